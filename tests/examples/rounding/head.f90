! mod, int, nint, aint, anint, floor, ceiling and the conversions
! real, dble, float: piecewise constant parts cut derivatives, the rest
! flows through.
subroutine head(x, y)
  implicit none
  double precision :: x(3), y(4)
  integer :: k, m
  !$openad INDEPENDENT(x)
  k = int(x(1))
  m = nint(x(2)) + floor(x(3)) - ceiling(x(1))
  y(1) = mod(x(1), 0.75d0) * x(2) + real(k, 8) * x(3)
  y(2) = (x(2) - aint(x(2))) * x(1) + anint(x(3)) * x(2)
  y(3) = dble(m) * x(1) + float(k) * x(2) + real(m, kind=8)
  y(4) = mod(x(3) * x(3), x(1)) + x(1) * dble(mod(7, 3))
  !$openad DEPENDENT(y)
end subroutine head
