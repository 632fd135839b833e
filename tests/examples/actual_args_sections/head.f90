! Array elements and array sections as actual arguments.
subroutine axpy(n, a, u, v)
  implicit none
  integer, intent(in) :: n
  double precision, intent(in) :: a, u(n)
  double precision, intent(inout) :: v(n)
  v = v + a * u
end subroutine axpy

subroutine square(s)
  implicit none
  double precision, intent(inout) :: s
  s = s * s
end subroutine square

subroutine head(x, y)
  implicit none
  double precision :: x(6), y(4)
  double precision :: m(3, 2)
  !$openad INDEPENDENT(x)
  m(:, 1) = x(1:3)
  m(:, 2) = x(4:6)
  y = 0.0d0
  call axpy(3, x(1), m(:, 2), m(:, 1))
  call axpy(2, m(3, 1), x(5:6), y(3:4))
  call square(m(2, 2))
  call square(y(4))
  y(1) = m(1, 1) + m(2, 2)
  y(2) = sum(m(:, 1))
  !$openad DEPENDENT(y)
end subroutine head
