! error-at: 4, error-kind: unsupported
! BLOCK DATA (initial values of common blocks) is refused by name: give
! the common block's variables their values in a subroutine instead.
block data
  real(8) :: c(3)
  common /coefficients/ c
  data c /1d0, 2d0, 3d0/
end

subroutine head(x, y)
  real(8) :: x(3), y(3), c(3)
  common /coefficients/ c
  !$openad INDEPENDENT(x)
  y = c * x
  !$openad DEPENDENT(y)
end subroutine head
