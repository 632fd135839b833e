! asin, acos, atan, atan2.
subroutine head(x, y)
  implicit none
  double precision :: x(3), y(4)
  !$openad INDEPENDENT(x)
  y(1) = asin(x(1)) + acos(x(2))
  y(2) = atan(x(3) * x(1))
  y(3) = atan2(x(1), x(3))
  y(4) = atan2(-x(2), x(3) - 2.0d0) * acos(x(1) * x(2))
  !$openad DEPENDENT(y)
end subroutine head
