! error-at: 6, error-kind: semantic
! The INDEPENDENT pragma names a variable that does not exist.
subroutine head(x, y)
  implicit none
  double precision :: x(2), y(1)
  !$openad INDEPENDENT(z)
  y(1) = x(1) * x(2)
  !$openad DEPENDENT(y)
end subroutine head
