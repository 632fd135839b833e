! dot_product and matmul (matrix-vector and matrix-matrix).
subroutine head(x, y)
  implicit none
  double precision :: x(6), y(5)
  double precision :: a(2, 3), b(3, 2), c(2, 2), v(3), w(2)
  !$openad INDEPENDENT(x)
  a = reshape(x, (/ 2, 3 /))
  b = reshape((/ 1.0d0, 2.0d0, 0.5d0, -1.0d0, 3.0d0, 0.25d0 /), (/ 3, 2 /))
  v = x(4:6)
  w = matmul(a, v)
  c = matmul(a, b)
  y(1) = dot_product(x(1:3), x(4:6))
  y(2:3) = w
  y(4) = c(1, 1) * c(2, 2)
  y(5) = c(1, 2) - c(2, 1)
  !$openad DEPENDENT(y)
end subroutine head
