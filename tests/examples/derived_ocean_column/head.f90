! A one-dimensional ocean column: temperature and salinity profiles live
! in allocatable components of a state type, allocated at run time from
! the number of levels. Each time step applies surface heat and freshwater
! fluxes, diffuses T and S vertically with a density-dependent
! diffusivity (stronger mixing where the column is less stable), and
! recomputes the density from a linear equation of state. The outputs are
! the column's mean temperature, its surface density and the heat content
! above the mid-depth.
module column_types
  implicit none
  type column
    integer :: n
    double precision :: dz
    double precision :: kappa
    double precision, allocatable :: t(:), s(:), rho(:)
  end type column
  type forcing
    double precision :: heat, fresh
  end type forcing
  double precision, parameter :: rho0 = 1025.0d0, alpha = 2.0d-4, beta = 7.6d-4
end module column_types

module column_physics
  use column_types
  implicit none
contains
  subroutine equation_of_state(col)
    type(column), intent(inout) :: col
    col%rho = rho0 * (1.0d0 - alpha * (col%t - 10.0d0) + beta * (col%s - 35.0d0))
  end subroutine equation_of_state

  subroutine surface_fluxes(col, f, dt)
    type(column), intent(inout) :: col
    type(forcing), intent(in) :: f
    double precision, intent(in) :: dt
    col%t(1) = col%t(1) + dt * f%heat / col%dz
    col%s(1) = col%s(1) - dt * f%fresh * col%s(1) / col%dz
  end subroutine surface_fluxes

  subroutine mix(col, dt)
    type(column), intent(inout) :: col
    double precision, intent(in) :: dt
    double precision :: flux_t(col%n + 1), flux_s(col%n + 1), k
    integer :: i
    flux_t = 0.0d0
    flux_s = 0.0d0
    do i = 2, col%n
      ! more mixing where the density step is small (weak stratification)
      k = col%kappa / (1.0d0 + 50.0d0 * (col%rho(i) - col%rho(i - 1))**2)
      flux_t(i) = k * (col%t(i - 1) - col%t(i)) / col%dz
      flux_s(i) = k * (col%s(i - 1) - col%s(i)) / col%dz
    end do
    col%t = col%t + dt * (flux_t(1:col%n) - flux_t(2:col%n + 1)) / col%dz
    col%s = col%s + dt * (flux_s(1:col%n) - flux_s(2:col%n + 1)) / col%dz
  end subroutine mix
end module column_physics

subroutine head(x, y)
  use column_types
  use column_physics
  implicit none
  double precision :: x(6), y(3)
  type(column) :: col
  type(forcing) :: f
  integer :: i, step, n
  double precision :: depth
  !$openad INDEPENDENT(x)
  n = 10
  col%n = n
  col%dz = 5.0d0
  col%kappa = 2.0d0 + x(4)
  allocate(col%t(n), col%s(n), col%rho(n))
  do i = 1, n
    depth = (i - 0.5d0) * col%dz
    col%t(i) = x(1) + x(2) * exp(-depth / 20.0d0)
    col%s(i) = x(3) + 0.01d0 * depth
  end do
  f%heat = x(5)
  f%fresh = x(6)
  call equation_of_state(col)
  do step = 1, 12
    call surface_fluxes(col, f, 0.5d0)
    call mix(col, 0.5d0)
    call equation_of_state(col)
  end do
  y(1) = sum(col%t) / n
  y(2) = col%rho(1)
  y(3) = sum(col%t(1:n / 2)) * col%dz
  deallocate(col%rho)
  deallocate(col%t, col%s)
  !$openad DEPENDENT(y)
end subroutine head
