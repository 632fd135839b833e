! Scalar arithmetic: + - * / and unary minus.
subroutine head(x, y)
  implicit none
  double precision :: x(3), y(3)
  !$openad INDEPENDENT(x)
  y(1) = x(1) + x(2) * x(3) - x(1) / x(2)
  y(2) = -x(3) * (x(1) - 2.0d0 * x(2)) / (1.0d0 + x(1) * x(1))
  y(3) = -(-x(1)) * 3.0d0 + 4.0d0 / x(3) - x(2)
  !$openad DEPENDENT(y)
end subroutine head
