! Time-stepping model whose time loop is reversed with binomial
! checkpointing (3 snapshots for 40 steps): 1-D nonlinear diffusion with
! advection, the state in a module, each step a call tree (step ->
! boundary, flux per face), a boundary condition and a forcing switched by
! the step number, and a module step counter the output reads.
module ckd_state
  implicit none
  integer, parameter :: n = 30
  double precision :: u(0:n + 1), unew(n)
  double precision :: kappa, vel, dt, dx
  integer :: steps_done
end module ckd_state

module ckd_model
  use ckd_state
  implicit none
contains
  ! Ghost cells: insulated left end; on the right an outflow that loses
  ! half its value every fifth step.
  subroutine boundary(t)
    integer, intent(in) :: t
    u(0) = u(1)
    if (mod(t, 5) == 0) then
      u(n + 1) = 0.5d0 * u(n)
    else
      u(n + 1) = u(n)
    end if
  end subroutine boundary

  ! Flux through the face between cells i and i+1.
  subroutine flux(i, f)
    integer, intent(in) :: i
    double precision, intent(out) :: f
    double precision :: k
    k = kappa * (1.0d0 + 0.2d0 * u(i) * u(i))
    f = -k * (u(i + 1) - u(i)) / dx + vel * 0.5d0 * (u(i) + u(i + 1))
  end subroutine flux

  subroutine step(t, forcing)
    integer, intent(in) :: t
    double precision, intent(in) :: forcing
    double precision :: fl, fr
    integer :: i
    call boundary(t)
    do i = 1, n
      call flux(i - 1, fl)
      call flux(i, fr)
      unew(i) = u(i) - dt / dx * (fr - fl)
    end do
    if (t > 10) unew(n / 2) = unew(n / 2) + dt * forcing * u(n / 2)
    u(1:n) = unew
    steps_done = steps_done + 1
  end subroutine step
end module ckd_model

subroutine head(x, y)
  use ckd_model
  implicit none
  double precision :: x(4), y(2)
  integer :: t, i
  integer, parameter :: nt = 40
  !$openad INDEPENDENT(x)
  kappa = x(1)
  vel = x(2)
  dx = 1.0d0 / n
  dt = 0.4d0 * dx * dx
  steps_done = 0
  do i = 0, n + 1
    u(i) = x(3) * exp(-((i * dx - 0.5d0) / 0.15d0)**2)
  end do
  !$openad CHECKPOINT BINOMIAL(snapshots=3)
  do t = 1, nt
    call step(t, x(4))
  end do
  y(1) = sum(u(1:n)) * dx
  y(2) = u(n / 2) * steps_done
  !$openad DEPENDENT(y)
end subroutine head
