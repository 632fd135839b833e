! A coupled sea-ice/ocean mixed layer: two derived-type states holding
! allocatable 2-D fields, components and their column sections passed to
! generic routines on plain arrays (`call relax(ocn%t(:, j), ...)`), a
! flux routine with intent(out) arrays, an associate block naming
! components, and a coupler exchanging heat between the two types.
! Parameters: x(1) air temperature, x(2) exchange coefficient, x(3)
! initial ice thickness.
module coupled_types
  implicit none
  integer, parameter :: nx = 8, ny = 5
  type ocean_state
    double precision, allocatable :: t(:, :), s(:, :)
    double precision :: depth
  end type ocean_state
  type ice_state
    double precision, allocatable :: h(:, :)
    double precision :: albedo
  end type ice_state
end module coupled_types

module coupled_physics
  use coupled_types
  implicit none
contains
  subroutine relax(f, target_value, rate)
    double precision, intent(inout) :: f(:)
    double precision, intent(in) :: target_value, rate
    f = f + rate * (target_value - f)
  end subroutine relax

  subroutine surface_fluxes(tair, t_ocn, h_ice, coef, q_ocn, q_ice)
    double precision, intent(in) :: tair, coef
    double precision, intent(in) :: t_ocn(:, :), h_ice(:, :)
    double precision, intent(out) :: q_ocn(:, :), q_ice(:, :)
    q_ice = coef * (tair - (-1.8d0)) / (1.0d0 + h_ice)
    q_ocn = coef * (tair - t_ocn) * exp(-h_ice)
  end subroutine surface_fluxes

  subroutine couple(ocn, ice, tair, coef)
    type(ocean_state), intent(inout) :: ocn
    type(ice_state), intent(inout) :: ice
    double precision, intent(in) :: tair, coef
    double precision :: q_ocn(nx, ny), q_ice(nx, ny)
    integer :: j
    call surface_fluxes(tair, ocn%t, ice%h, coef, q_ocn, q_ice)
    associate (t => ocn%t, h => ice%h)
      t = t + 0.1d0 * q_ocn / ocn%depth
      h = max(h - 0.05d0 * q_ice * (1.0d0 - ice%albedo), 0.0d0)
    end associate
    do j = 1, ny
      call relax(ocn%t(:, j), 4.0d0, 0.02d0)
      call relax(ocn%s(:, j), 34.5d0 + 0.1d0 * sum(ice%h(:, j)), 0.01d0)
    end do
  end subroutine couple
end module coupled_physics

subroutine head(x, y)
  use coupled_types
  use coupled_physics
  implicit none
  double precision :: x(3), y(2)
  type(ocean_state) :: ocn
  type(ice_state) :: ice
  integer :: i, j, step
  !$openad INDEPENDENT(x)
  allocate(ocn%t(nx, ny), ocn%s(nx, ny), ice%h(nx, ny))
  ocn%depth = 30.0d0
  ice%albedo = 0.6d0
  do j = 1, ny
    do i = 1, nx
      ocn%t(i, j) = 2.0d0 + 0.1d0 * i - 0.2d0 * j
      ocn%s(i, j) = 34.0d0
      ice%h(i, j) = x(3) * (1.0d0 + 0.05d0 * i * j)
    end do
  end do
  do step = 1, 12
    call couple(ocn, ice, x(1), x(2))
  end do
  y(1) = sum(ocn%t) / (nx * ny) + sum(ocn%s(:, 2))
  y(2) = maxval(ice%h(:, 3))
  !$openad DEPENDENT(y)
end subroutine head
