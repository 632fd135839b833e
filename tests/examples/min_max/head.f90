! min and max with two and more arguments (no ties at x0).
subroutine head(x, y)
  implicit none
  double precision :: x(4), y(3)
  !$openad INDEPENDENT(x)
  y(1) = min(x(1), x(2)) + max(x(3), x(4))
  y(2) = max(x(1), x(2), x(3), x(4)) * min(x(1) * x(3), 1.0d0, x(2))
  y(3) = max(0.0d0, x(1) - x(2)) + min(x(4), -x(3))
  !$openad DEPENDENT(y)
end subroutine head
