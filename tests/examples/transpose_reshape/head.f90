! transpose and reshape of active arrays.
subroutine head(x, y)
  implicit none
  double precision :: x(6), y(6)
  double precision :: a(2, 3), t(3, 2)
  !$openad INDEPENDENT(x)
  a = reshape(x * x, (/ 2, 3 /))
  t = transpose(a)
  t(1, :) = t(1, :) * x(6)
  y = reshape(t, (/ 6 /)) + sin(x)
  !$openad DEPENDENT(y)
end subroutine head
