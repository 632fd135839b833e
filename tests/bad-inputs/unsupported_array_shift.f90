! error-at: 9, error-kind: unsupported
! cshift with an array-valued shift (one shift per column) is refused by
! name: the scalarised index map needs one shift per dimension.
subroutine head(x, y)
  implicit none
  double precision :: x(6), y(6)
  double precision :: a(3, 2)
  !$openad INDEPENDENT(x)
  a = cshift(reshape(x, (/ 3, 2 /)), (/ 1, -1 /), 1)
  y = reshape(a, (/ 6 /))
  !$openad DEPENDENT(y)
end subroutine head
