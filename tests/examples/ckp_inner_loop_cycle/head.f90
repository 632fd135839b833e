! A checkpointed loop (4 snapshots, 25 steps) whose body leaves every
! fourth iteration early with `cycle`, and has inner loops (one with a
! `cycle` of its own) and a running sum carried from step to step.
subroutine head(x, y)
  implicit none
  double precision :: x(5), y(2)
  double precision :: v(10), w(10), s
  integer :: t, j
  !$openad INDEPENDENT(x)
  do j = 1, 10
    v(j) = 0.1d0 * j * x(mod(j - 1, 5) + 1)
  end do
  w = 0.0d0
  s = 0.0d0
  !$openad CHECKPOINT BINOMIAL(snapshots=4)
  do t = 1, 25
    s = s + 0.01d0 * v(1) * v(10)
    if (mod(t, 4) == 0) cycle
    do j = 2, 10
      w(j) = v(j) + 0.05d0 * sin(v(j - 1)) * x(5)
    end do
    do j = 2, 10
      if (mod(j + t, 5) == 0) cycle
      v(j) = w(j)
    end do
    v(1) = v(1) * (1.0d0 + 0.01d0 * cos(v(10)))
  end do
  y(1) = s
  y(2) = sum(v)
  !$openad DEPENDENT(y)
end subroutine head
