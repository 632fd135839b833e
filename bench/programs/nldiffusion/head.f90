! Benchmark for binomial checkpointing: 10,000 time steps of a 1-D
! nonlinear diffusion model on 1000 cells, written like a real model: the
! state and the physical parameters in modules, a time step that sets the
! boundary conditions, computes face fluxes with a temperature-dependent
! conductivity, adds a heat source switched on after the spin-up, and
! updates the state. The time loop of `head` is reversed with binomial
! checkpointing (bench.py, section `checkpoint`, rewrites the snapshot
! count and removes the pragma for the plain adjoint).
module nld_grid
  implicit none
  integer, parameter :: ncells = 1000 ! bench-size
  double precision :: temp(0:ncells + 1), face_flux(0:ncells)
  double precision :: dx, dt
end module nld_grid

module nld_physics
  use nld_grid
  implicit none
  double precision :: k0, k1, source_rate
  integer :: spinup_steps
contains
  ! Conductivity of the material at temperature t.
  double precision function conductivity(t)
    double precision, intent(in) :: t
    conductivity = k0 * (1.0d0 + k1 * t * t)
  end function conductivity

  subroutine set_boundaries(step)
    integer, intent(in) :: step
    ! fixed cold wall on the left, insulated right end
    temp(0) = 2.0d0 * 0.1d0 - temp(1)
    temp(ncells + 1) = temp(ncells)
    if (step < spinup_steps) temp(0) = temp(1)
  end subroutine set_boundaries

  subroutine fluxes()
    integer :: i
    double precision :: kf
    do i = 0, ncells
      kf = 0.5d0 * (conductivity(temp(i)) + conductivity(temp(i + 1)))
      face_flux(i) = -kf * (temp(i + 1) - temp(i)) / dx
    end do
  end subroutine fluxes

  subroutine time_step(step)
    integer, intent(in) :: step
    integer :: i
    call set_boundaries(step)
    call fluxes()
    do i = 1, ncells
      temp(i) = temp(i) - dt / dx * (face_flux(i) - face_flux(i - 1))
    end do
    if (step >= spinup_steps) then
      do i = ncells / 2 - 10, ncells / 2 + 10
        temp(i) = temp(i) + dt * source_rate * exp(-temp(i))
      end do
    end if
  end subroutine time_step
end module nld_physics

subroutine head(x, y)
  use nld_physics
  implicit none
  double precision :: x(3), y(2)
  integer :: step, i
  integer, parameter :: nsteps = 10000
  !$openad INDEPENDENT(x)
  k0 = x(1)
  k1 = x(2)
  source_rate = x(3)
  spinup_steps = nsteps / 10
  dx = 1.0d0 / ncells
  dt = 0.2d0 * dx * dx / (k0 * (1.0d0 + k1))
  do i = 0, ncells + 1
    temp(i) = 0.1d0 + 0.5d0 * sin(3.14159265d0 * i * dx)**2
  end do
  !$openad CHECKPOINT BINOMIAL(snapshots=10)
  do step = 1, nsteps
    call time_step(step)
  end do
  y(1) = sum(temp(1:ncells)) * dx
  y(2) = temp(ncells / 2)
  !$openad DEPENDENT(y)
end subroutine head
