! error-at: 11, error-kind: unsupported
! Active complex(8) data stored into a complex(4) variable, which stays
! passive: derivatives would be lost, so it is refused by name.
subroutine head(x, y)
  implicit none
  double precision :: x(2), y(1)
  complex(8) :: z
  complex :: c
  !$openad INDEPENDENT(x)
  z = cmplx(x(1), x(2), kind=8)
  c = z
  y(1) = real(c)
  !$openad DEPENDENT(y)
end subroutine head
