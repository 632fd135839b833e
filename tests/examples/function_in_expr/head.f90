! User functions called inside expressions, also nested and in a loop.
double precision function smooth(a, b)
  implicit none
  double precision, intent(in) :: a, b
  smooth = a * exp(-b * b) + b / (1.0d0 + a * a)
end function smooth

double precision function cube(a)
  implicit none
  double precision :: a
  cube = a * a * a
end function cube

subroutine head(x, y)
  implicit none
  double precision :: x(3), y(2)
  double precision, external :: smooth
  double precision :: cube
  integer :: i
  !$openad INDEPENDENT(x)
  y(1) = 2.0d0 * smooth(x(1), x(2)) + cube(x(3)) - smooth(cube(x(1)), 0.5d0)
  y(2) = 0.0d0
  do i = 1, 3
    y(2) = y(2) + smooth(x(i), x(4 - i)) * cube(x(i))
  end do
  !$openad DEPENDENT(y)
end subroutine head
