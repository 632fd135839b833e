! abs and sign, evaluated away from their kinks.
subroutine head(x, y)
  implicit none
  double precision :: x(3), y(3)
  !$openad INDEPENDENT(x)
  y(1) = abs(x(1)) * x(2) + abs(x(2) - x(3))
  y(2) = sign(x(3), x(1)) + sign(2.0d0, x(2)) * x(1)
  y(3) = sign(x(1) * x(2), -1.0d0) - abs(-x(3))
  !$openad DEPENDENT(y)
end subroutine head
