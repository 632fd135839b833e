! Joint-mode checkpoints cover what the re-run reads: a tracer column
! stepped in time, whose step routine reaches module state (the forcing
! and a model clock it advances) and a common block of mixing
! coefficients only two calls down, while a module archive and a
! diagnostics block stay visible to it but are never read there.
module column_state
  implicit none
  integer, parameter :: nz = 5
  double precision :: forcing(nz)
  double precision :: clock
  ! Written by head after the time loop only.
  double precision :: archive(nz)
  integer :: archived_steps
end module column_state

subroutine exchange(c, f)
  use column_state
  implicit none
  double precision, intent(in) :: c(nz)
  double precision, intent(out) :: f(nz)
  double precision :: kappa, drag
  common /mixing/ kappa, drag
  integer :: k, kup
  do k = 1, nz
    kup = mod(k, nz) + 1
    f(k) = kappa * (c(kup) - c(k)) + drag * forcing(k) * (1.0d0 + 0.5d0 * sin(clock))
  end do
end subroutine exchange

subroutine physics(c, tend)
  use column_state, only: nz
  implicit none
  double precision, intent(in) :: c(nz)
  double precision, intent(out) :: tend(nz)
  call exchange(c, tend)
  tend = tend - 0.1d0 * c**2
end subroutine physics

subroutine timestep(c, dt)
  use column_state
  implicit none
  double precision, intent(inout) :: c(nz)
  double precision, intent(in) :: dt
  double precision :: tend(nz)
  integer :: steps_done, warnings
  common /diagnostics/ steps_done, warnings
  integer :: k
  call physics(c, tend)
  do k = 1, nz
    c(k) = c(k) + dt * tend(k)
  end do
  clock = clock + dt
end subroutine timestep

subroutine head(x, y)
  use column_state
  implicit none
  double precision :: x(4), y(3)
  double precision :: c(nz)
  double precision :: kappa, drag
  common /mixing/ kappa, drag
  integer :: steps_done, warnings
  common /diagnostics/ steps_done, warnings
  integer :: step, k
  !$openad INDEPENDENT(x)
  kappa = 0.3d0
  drag = x(4)
  do k = 1, nz
    forcing(k) = x(1) * real(k, 8) / nz
    c(k) = x(2) + x(3) * real(k - 1, 8)
  end do
  clock = 0.0d0
  do step = 1, 6
    call timestep(c, 0.2d0)
    forcing = 0.9d0 * forcing + 0.05d0 * c
  end do
  archive = c
  archived_steps = 6
  steps_done = 6
  warnings = 0
  y(1) = sum(archive)
  y(2) = maxval(archive) * c(1)
  y(3) = c(nz) * forcing(2)
  !$openad DEPENDENT(y)
end subroutine head
