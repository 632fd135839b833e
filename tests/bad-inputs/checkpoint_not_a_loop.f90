! error-at: 9, error-kind: semantic
! A CHECKPOINT BINOMIAL pragma must stand right before a counted DO loop.
subroutine head(x, y)
  double precision :: x(2), y(1), u
  integer :: t
  !$openad INDEPENDENT(x)
  u = x(1)
  t = 0
  !$openad CHECKPOINT BINOMIAL(snapshots=2)
  do while (t < 3)
    u = u * x(2)
    t = t + 1
  end do
  y(1) = u
  !$openad DEPENDENT(y)
end subroutine head
