! Statement functions are expanded by the front end.
subroutine head(x, y)
  implicit none
  double precision :: x(2), y(2)
  double precision :: a, b, f, g
  f(a) = a * a + 1.0d0
  g(a, b) = a * sin(b) + f(b)
  !$openad INDEPENDENT(x)
  y(1) = f(x(1)) * g(x(1), x(2))
  y(2) = g(f(x(2)), x(1))
  !$openad DEPENDENT(y)
end subroutine head
