! select case on an integer derived from the data, with ranges and default.
subroutine head(x, y)
  implicit none
  double precision :: x(4), y(2)
  integer :: i, kind_of
  !$openad INDEPENDENT(x)
  y = 0.0d0
  do i = 1, 4
    kind_of = mod(i * 7, 5)
    select case (kind_of)
    case (0)
      y(1) = y(1) + x(i)
    case (1, 2)
      y(1) = y(1) * x(i)
    case (3:)
      y(2) = y(2) + exp(x(i))
    case default
      y(2) = -y(2)
    end select
  end do
  select case (int(x(1)))
  case (:0)
    y(2) = y(2) * 2.0d0
  case default
    y(2) = y(2) * x(1)
  end select
  !$openad DEPENDENT(y)
end subroutine head
