! error-at: any, error-kind: semantic
! No INDEPENDENT/DEPENDENT pragma: nothing to differentiate.
subroutine head(x, y)
  implicit none
  double precision :: x(2), y(1)
  y(1) = x(1) * x(2)
end subroutine head
