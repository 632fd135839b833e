! Adjoint stress: branches inside loops inside branches, several levels.
subroutine head(x, y)
  implicit none
  double precision :: x(4), y(2)
  integer :: i, j
  !$openad INDEPENDENT(x)
  y(1) = x(1)
  y(2) = x(2)
  if (x(3) > 0.0d0) then
    do i = 1, 4
      if (mod(i, 2) == 0) then
        y(1) = y(1) * x(i) + 0.1d0
      else if (y(1) > 1.0d0) then
        y(1) = sqrt(y(1)) + x(i)
      else
        y(1) = y(1) + x(i) * x(i)
      end if
      do j = 1, i
        if (y(2) < y(1)) then
          y(2) = y(2) + 0.5d0 * y(1)
        else
          y(2) = y(2) * 0.9d0
        end if
      end do
    end do
  else
    y(1) = -x(3)
  end if
  !$openad DEPENDENT(y)
end subroutine head
