! Adjoint stress: a call chain four deep that reads and writes active globals.
module globals
  implicit none
  double precision :: g(3)
  double precision :: energy
end module globals

subroutine level4(a)
  use globals
  implicit none
  double precision, intent(inout) :: a
  a = a * g(3) + sin(a)
  energy = energy + a * a
end subroutine level4

subroutine level3(a, b)
  use globals
  implicit none
  double precision, intent(inout) :: a, b
  call level4(a)
  b = b + a * g(2)
  g(2) = g(2) * 0.5d0 + b
  call level4(b)
end subroutine level3

subroutine level2(v)
  use globals
  implicit none
  double precision, intent(inout) :: v(2)
  integer :: i
  do i = 1, 2
    call level3(v(1), v(2))
    g(3) = g(3) - 0.1d0 * v(1)
  end do
end subroutine level2

subroutine level1(x, v)
  use globals
  implicit none
  double precision, intent(in) :: x(3)
  double precision, intent(out) :: v(2)
  g = x
  energy = 0.0d0
  v(1) = x(1)
  v(2) = x(2) * x(3)
  call level2(v)
end subroutine level1

subroutine head(x, y)
  use globals
  implicit none
  double precision :: x(3), y(3)
  double precision :: v(2)
  !$openad INDEPENDENT(x)
  call level1(x, v)
  y(1:2) = v
  y(3) = energy + g(2)
  !$openad DEPENDENT(y)
end subroutine head
