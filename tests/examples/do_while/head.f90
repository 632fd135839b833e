! do while with a passive counter bounding an active iteration.
subroutine head(x, y)
  implicit none
  double precision :: x(2), y(1)
  double precision :: r
  integer :: k
  !$openad INDEPENDENT(x)
  ! a few Newton steps for sqrt(x(1)) started at x(2)
  r = x(2)
  k = 0
  do while (k < 6)
    r = 0.5d0 * (r + x(1) / r)
    k = k + 1
  end do
  y(1) = r
  !$openad DEPENDENT(y)
end subroutine head
