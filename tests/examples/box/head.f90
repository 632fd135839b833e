! A small box model: two reservoirs exchanging heat for a number of steps.
subroutine head(x, y)
  implicit none
  double precision, intent(in) :: x(3)
  double precision, intent(out) :: y(2)
  double precision :: a, b, flux
  integer :: step
  !$openad INDEPENDENT(x)
  a = x(1)
  b = x(2)
  do step = 1, 10
    flux = x(3) * (a - b) + 0.1d0 * sin(a)
    a = a - 0.1d0 * flux
    b = b + 0.1d0 * flux * exp(-0.1d0 * b)
  end do
  y(1) = a
  y(2) = sqrt(a * a + b * b)
  !$openad DEPENDENT(y)
end subroutine head
