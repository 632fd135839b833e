! error-at: 12, error-kind: unsupported
! An active complex variable (type(active_c) in the output) in an I/O
! statement: the back end refuses it by name at the user's line.
subroutine head(x, y)
  implicit none
  double precision :: x(2), y(1)
  complex(8) :: z
  integer :: n
  !$openad INDEPENDENT(x)
  z = cmplx(x(1), x(2), kind=8)
  n = 2
  write(*, *) 'phasor', n, z
  y(1) = aimag(z * z)
  !$openad DEPENDENT(y)
end subroutine head
