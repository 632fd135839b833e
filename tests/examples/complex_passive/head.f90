! A complex variable used passively: its real and imaginary parts feed
! constant coefficients.
subroutine head(x, y)
  implicit none
  double precision :: x(2), y(2)
  complex(kind=8) :: z
  double precision :: c1, c2
  !$openad INDEPENDENT(x)
  z = cmplx(0.6d0, 0.8d0, kind=8)
  z = z * z
  c1 = real(z)
  c2 = aimag(z)
  y(1) = c1 * x(1) + c2 * x(2)
  y(2) = abs(z) * x(1) * x(2)
  !$openad DEPENDENT(y)
end subroutine head
