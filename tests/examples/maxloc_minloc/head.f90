! maxloc and minloc give integer positions used as indices.
subroutine head(x, y)
  implicit none
  double precision :: x(6), y(2)
  integer :: imax(1), imin
  !$openad INDEPENDENT(x)
  imax = maxloc(x)
  imin = minloc(x(2:6), dim=1) + 1
  y(1) = x(imax(1)) * x(imin)
  y(2) = x(imin)**2 + sum(x) / x(imax(1))
  !$openad DEPENDENT(y)
end subroutine head
