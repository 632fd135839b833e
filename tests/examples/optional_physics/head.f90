! Optional arguments the way model code uses them: a column-physics step
! with an optional active forcing and an optional passive damping factor,
! present() tests, an optional passed on (absent or not) to a callee with
! its own optional, and keyword actuals, called in a time loop (the step
! has a loop, so -m rj re-runs it from a checkpoint that must not touch
! an absent argument).
module column_physics
  implicit none
  integer, parameter :: nz = 5
contains
  subroutine apply_source(t, dt, forcing)
    real(8), intent(inout) :: t(nz)
    real(8), intent(in) :: dt
    real(8), intent(in), optional :: forcing(nz)
    integer :: k
    if (.not. present(forcing)) return
    do k = 1, nz
      t(k) = t(k) + dt * forcing(k) * exp(-0.1d0 * t(k))
    end do
  end subroutine apply_source

  subroutine step(t, dt, forcing, damping, flux_out)
    real(8), intent(inout) :: t(nz)
    real(8), intent(in) :: dt
    real(8), intent(in), optional :: forcing(nz)
    real(8), intent(in), optional :: damping
    real(8), intent(out), optional :: flux_out
    real(8) :: d, flux(nz + 1)
    integer :: k
    d = 1.0d0
    if (present(damping)) d = damping
    flux(1) = 0.0d0
    flux(nz + 1) = 0.0d0
    do k = 2, nz
      flux(k) = 0.2d0 * (t(k - 1) - t(k)) * sqrt(1.0d0 + t(k)**2)
    end do
    do k = 1, nz
      t(k) = d * t(k) + dt * (flux(k) - flux(k + 1))
    end do
    call apply_source(t, dt, forcing)
    if (present(flux_out)) flux_out = sum(flux(2:nz))
  end subroutine step
end module column_physics

subroutine head(x, y)
  use column_physics
  implicit none
  real(8), intent(in) :: x(6)
  real(8), intent(out) :: y(3)
  real(8) :: t(nz), f(nz), total
  integer :: it
  !$openad INDEPENDENT(x)
  t = x(1:nz)
  f = (/ 1.0d0, 0.5d0, 0.25d0, 0.5d0, 1.0d0 /)
  f = x(6) * f
  total = 0.0d0
  y(3) = 0.0d0
  do it = 1, 8
    if (mod(it, 2) == 0) then
      call step(t, 0.05d0, forcing=f, flux_out=total)
      y(3) = y(3) + total
    else if (it == 3) then
      call step(t, 0.05d0, damping=0.99d0)
    else
      call step(t, 0.05d0)
    end if
  end do
  y(1) = sum(t**2)
  y(2) = t(2) * t(4)
  !$openad DEPENDENT(y)
end subroutine head
