! Parameters and data statements initialise constant tables.
subroutine head(x, y)
  implicit none
  integer, parameter :: n = 4
  double precision, parameter :: half = 0.5d0, coeff(n) = (/ 1.0d0, -2.0d0, 0.5d0, 3.0d0 /)
  double precision :: x(n), y(2)
  double precision :: weights(n), offset
  integer :: i
  data weights /0.1d0, 0.2d0, 0.3d0, 0.4d0/
  data offset /1.5d0/
  !$openad INDEPENDENT(x)
  y(1) = offset
  y(2) = 0.0d0
  do i = 1, n
    y(1) = y(1) + coeff(i) * x(i)**2 * half
    y(2) = y(2) + weights(i) * sin(x(i))
  end do
  !$openad DEPENDENT(y)
end subroutine head
