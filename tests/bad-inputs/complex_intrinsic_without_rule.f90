! error-at: 10, error-kind: unsupported
! sqrt of active complex data has no rule in the part lowering: refused
! by name (supported: + - * / ** conjg cmplx exp real aimag abs).
subroutine head(x, y)
  implicit none
  double precision :: x(2), y(1)
  complex(8) :: z
  !$openad INDEPENDENT(x)
  z = cmplx(x(1), x(2), kind=8)
  z = z * sqrt(z)
  y(1) = real(z)
  !$openad DEPENDENT(y)
end subroutine head
