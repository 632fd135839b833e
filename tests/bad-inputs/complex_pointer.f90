! error-at: 11, error-kind: unsupported
! A pointer to complex data that depends on the independents would carry
! values without derivatives (pointers are passive): refused by name.
subroutine head(x, y)
  implicit none
  real(8) :: x(2), y(1)
  complex(8), target :: z
  complex(8), pointer :: p
  !$openad INDEPENDENT(x)
  z = cmplx(x(1), x(2), kind=8)
  p => z
  y(1) = real(p * p)
  !$openad DEPENDENT(y)
end subroutine head
