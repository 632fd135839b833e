! error-at: 11
! The body of a checkpointed loop may not leave it: the reversal needs the
! trip count when the loop starts.
subroutine head(x, y)
  double precision :: x(2), y(1), u
  integer :: t
  !$openad INDEPENDENT(x)
  u = x(1)
  !$openad CHECKPOINT BINOMIAL(snapshots=2)
  do t = 1, 10
    if (u > 5d0) exit
    u = u * x(2)
  end do
  y(1) = u
  !$openad DEPENDENT(y)
end subroutine head
