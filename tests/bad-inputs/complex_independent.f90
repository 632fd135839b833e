! error-at: 8, error-kind: unsupported
! A complex INDEPENDENT: the driver API's type(active) is real, so the
! tool refuses it by name instead of dropping the seed.
subroutine head(z, y)
  implicit none
  complex(8) :: z
  double precision :: y(1)
  !$openad INDEPENDENT(z)
  y(1) = abs(z)
  !$openad DEPENDENT(y)
end subroutine head
