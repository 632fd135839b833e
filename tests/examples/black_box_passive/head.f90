! Upwind advection with decay of a tracer in a channel fed by an inflow
! (modelled from the input at first, replaced by an observation from a
! C library, another passive black box, from step 7 on). Each
! step a C routine (a passive black box, declared in monitor.bb) reports
! the total mass, logged in the module, and the number of negative
! cells; when there are any, a positivity fix clips them (not at this
! input point: the fix is a kink the derivatives do not see). At the end
! another C routine, declared passive by a pragma next to its call,
! records the extremes of the field.
module tracer_mod
  implicit none
  integer, parameter :: ncell = 8
  integer, parameter :: nsteps = 12
  real(8), parameter :: dx = 0.125d0
  real(8) :: mass_log(nsteps)
  integer :: clipped_steps = 0
  real(8) :: field_min, field_max
contains
  subroutine advect(c, velocity, decay, dt, inflow)
    real(8), intent(inout) :: c(ncell)
    real(8), intent(in) :: velocity, decay, dt, inflow
    real(8) :: flux(ncell)
    integer :: i, upwind
    do i = 1, ncell
      upwind = i - 1
      if (upwind < 1) then
        flux(i) = velocity * inflow
      else
        flux(i) = velocity * c(upwind)
      end if
    end do
    do i = 1, ncell
      c(i) = c(i) - dt / dx * (velocity * c(i) - flux(i)) - dt * decay * c(i)**2
    end do
  end subroutine advect

  subroutine step(c, velocity, decay, dt, k, inflow)
    real(8), intent(inout) :: c(ncell)
    real(8), intent(in) :: velocity, decay, dt, inflow
    integer, intent(in) :: k
    real(8) :: mass
    integer :: negative
    call advect(c, velocity, decay, dt, inflow)
    call monitor_tracer(ncell, c, dx, mass, negative)
    mass_log(k) = mass
    if (negative > 0) then
      c = max(c, 0.0d0)
      clipped_steps = clipped_steps + 1
    end if
  end subroutine step
end module tracer_mod

subroutine head(x, y)
  use tracer_mod
  implicit none
  real(8), intent(in) :: x(3)
  real(8), intent(out) :: y(2)
  real(8) :: c(ncell), inflow
  integer :: i, k
  !$openad INDEPENDENT(x)
  do i = 1, ncell
    c(i) = 1.0d0 + x(1) * exp(-(i - 4.0d0)**2 / 4.0d0)
  end do
  inflow = 1.0d0 + 0.5d0 * x(1)
  do k = 1, nsteps
    if (k >= 7) call observed_inflow(k, inflow)
    call step(c, x(2), x(3), 0.02d0, k, inflow)
  end do
  !$openad BLACK-BOX PASSIVE record_extremes(in, in, out, out)
  call record_extremes(ncell, c, field_min, field_max)
  y(1) = sum(c) * dx
  y(2) = c(ncell / 2) * c(ncell)
  !$openad DEPENDENT(y)
end subroutine head
