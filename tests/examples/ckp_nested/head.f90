! Checkpointed loops inside checkpointed loops: an outer time loop (2
! snapshots) whose body runs an inner sub-stepping loop with a pragma of
! its own (3 snapshots), and calls a routine whose own loop is
! checkpointed too (so that routine's snapshots are taken during the outer
! loop's recomputations).
module ckn_work
  implicit none
contains
  subroutine relax(v, n, sweeps, w)
    integer, intent(in) :: n, sweeps
    double precision :: v(n), w
    integer :: k, j
    !$openad CHECKPOINT BINOMIAL(snapshots=2)
    do k = 1, sweeps
      do j = 2, n - 1
        v(j) = v(j) + w * (v(j - 1) - 2.0d0 * v(j) + v(j + 1))
      end do
    end do
  end subroutine relax
end module ckn_work

subroutine head(x, y)
  use ckn_work
  implicit none
  double precision :: x(3), y(2)
  double precision :: v(6), e
  integer :: t, s, j
  !$openad INDEPENDENT(x)
  do j = 1, 6
    v(j) = x(1) + 0.1d0 * j * x(2)
  end do
  e = 0.0d0
  !$openad CHECKPOINT BINOMIAL(snapshots=2)
  do t = 1, 9
    !$openad CHECKPOINT BINOMIAL(snapshots=3)
    do s = 1, 5
      v(1) = v(1) + 0.01d0 * sin(v(6)) * x(3)
      e = e + 0.1d0 * v(1) * v(2)
    end do
    call relax(v, 6, 1 + mod(t, 3), 0.1d0)
  end do
  y(1) = e
  y(2) = v(3) * v(4)
  !$openad DEPENDENT(y)
end subroutine head
