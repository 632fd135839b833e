! Powers: integer exponents, real exponents, active exponents.
subroutine head(x, y)
  implicit none
  double precision :: x(3), y(4)
  integer :: n
  !$openad INDEPENDENT(x)
  n = 3
  y(1) = x(1)**2 + x(2)**n - x(3)**(-2)
  y(2) = x(1)**0.5d0 + x(2)**1.5d0
  y(3) = x(1)**x(2)
  y(4) = 2.0d0**x(3) + x(3)**2.5d0 * x(1)**(n - 1)
  !$openad DEPENDENT(y)
end subroutine head
