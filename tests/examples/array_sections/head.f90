! Whole-array and section assignments, including overlapping shifts.
subroutine head(x, y)
  implicit none
  double precision :: x(6), y(6)
  double precision :: a(6), b(3, 3)
  !$openad INDEPENDENT(x)
  a = x
  a(2:6) = a(1:5) + a(2:6)
  a(1:5:2) = 2.0d0 * a(1:5:2)
  a(6:1:-1) = a * x(1)
  b = 0.0d0
  b(1, :) = a(1:3)
  b(:, 2) = b(:, 2) + a(4:6)
  b(2:3, 1:2) = b(2:3, 1:2) - x(1)
  y = a
  y(1:3) = y(1:3) + b(:, 2) * b(1, 1)
  !$openad DEPENDENT(y)
end subroutine head
