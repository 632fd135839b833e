! error-at: 8, error-kind: semantic
! A binomially checkpointed loop needs at least one snapshot.
subroutine head(x, y)
  double precision :: x(2), y(1), u
  integer :: t
  !$openad INDEPENDENT(x)
  u = x(1)
  !$AD BINOMIAL-CKP 10 0 1
  do t = 1, 10
    u = u * x(2)
  end do
  y(1) = u
  !$openad DEPENDENT(y)
end subroutine head
