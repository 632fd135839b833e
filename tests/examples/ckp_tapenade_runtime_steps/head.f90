! Binomial checkpointing with Tapenade's directive: the time loop of
! `integrate` runs a number of steps computed at run time from the input
! (nt = 20 + int(10*x(3))) with a number of snapshots computed from it
! (a variable). Each step advects a tracer on a periodic grid and, on two
! steps out of three, reacts it; the reaction also updates diagnostics in
! a module that `integrate` itself does not use (the adjoint must still
! snapshot them; `head` resets them).
module ckt_grid
  implicit none
  integer, parameter :: m = 25
  double precision :: c(m)
  double precision :: speed, rate
end module ckt_grid

module ckt_diag
  implicit none
  integer :: reactions = 0
  double precision :: cpeak = 0.0d0
end module ckt_diag

module ckt_physics
  use ckt_grid
  implicit none
contains
  subroutine advect(dt)
    double precision, intent(in) :: dt
    double precision :: upwind(m)
    integer :: i
    upwind(1) = c(m)
    do i = 2, m
      upwind(i) = c(i - 1)
    end do
    do i = 1, m
      c(i) = c(i) - speed * dt * (c(i) - upwind(i))
    end do
  end subroutine advect

  subroutine react(dt)
    use ckt_diag
    double precision, intent(in) :: dt
    integer :: i
    do i = 1, m
      c(i) = c(i) + dt * rate * c(i) * (1.0d0 - c(i)) * (1.0d0 + cpeak)
    end do
    reactions = reactions + 1
    cpeak = 0.1d0 * max(cpeak, c(m / 2))
  end subroutine react
end module ckt_physics

subroutine integrate(nt, total)
  use ckt_physics
  implicit none
  integer :: nt
  double precision :: total
  integer :: nsnap, t
  double precision :: dt
  dt = 0.05d0
  nsnap = 2 + nt / 20
  !$AD BINOMIAL-CKP nt nsnap 1
  do t = 1, nt
    call advect(dt)
    if (mod(t, 3) /= 0) call react(dt)
  end do
  total = sum(c)
end subroutine integrate

subroutine head(x, y)
  use ckt_grid
  use ckt_diag
  implicit none
  double precision :: x(3), y(2)
  integer :: nt, i
  !$openad INDEPENDENT(x)
  speed = x(1)
  rate = x(2)
  reactions = 0
  cpeak = 0.0d0
  nt = 20 + int(10.0d0 * x(3))
  do i = 1, m
    c(i) = 0.5d0 + 0.3d0 * x(3) * sin(6.283185d0 * i / m)
  end do
  call integrate(nt, y(1))
  y(2) = c(m / 3) * c(m / 2)
  !$openad DEPENDENT(y)
end subroutine head
