! An ensemble of ocean mixed-layer columns (nx columns, nz levels) stepped
! in time: surface heat flux with freezing-point clipping (where), a
! generic smoother applied to whole arrays and to sections, convective
! adjustment with a branch per level pair, an elemental equation of state
! on array sections, array constructors with implied-do loops, a derived
! type holding allocatable state. Parameters: x(1) initial temperature
! scale, x(2) heat flux amplitude, x(3) mixing weight.
module column_params
  implicit none
  integer, parameter :: wp = kind(1.0d0)
  integer, parameter :: nx = 24, nz = 6, nsteps = 15
  real(wp), parameter :: dz(nz) = (/ 1.0_wp, 1.5_wp, 2.0_wp, 3.0_wp, 4.0_wp, 6.0_wp /)
end module column_params

module column_eos
  use column_params
  implicit none
contains
  elemental function density(t, s) result(rho)
    real(wp), intent(in) :: t, s
    real(wp) :: rho
    rho = 1025.0_wp * (1.0_wp - 2.0e-4_wp * (t - 10.0_wp) - 5.0e-6_wp * (t - 10.0_wp)**2 &
         + 7.6e-4_wp * (s - 35.0_wp))
  end function density
end module column_eos

module column_types
  use column_params
  implicit none
  type column_state
    real(wp), allocatable :: t(:, :), s(:, :)
    real(wp) :: mix
  end type column_state
  interface smooth
    module procedure smooth_line, smooth_plane
  end interface smooth
contains
  subroutine smooth_line(a, w)
    real(wp), intent(inout) :: a(:)
    real(wp), intent(in) :: w
    real(wp) :: b(size(a))
    integer :: i, n
    n = size(a)
    b = a
    do i = 2, n - 1
      a(i) = (1.0_wp - 2.0_wp * w) * b(i) + w * (b(i - 1) + b(i + 1))
    end do
  end subroutine smooth_line

  subroutine smooth_plane(a, w)
    real(wp), intent(inout) :: a(:, :)
    real(wp), intent(in) :: w
    integer :: k
    do k = 1, size(a, 2)
      call smooth_line(a(:, k), w)
    end do
  end subroutine smooth_plane
end module column_types

module column_physics
  use column_params
  use column_eos
  use column_types
  implicit none
contains
  subroutine convect(st)
    type(column_state), intent(inout) :: st
    real(wp) :: rho(nz), tm, sm
    integer :: i, k
    do i = 1, nx
      rho = density(st%t(i, :), st%s(i, :))
      do k = 1, nz - 1
        if (rho(k) > rho(k + 1)) then
          tm = (st%t(i, k) * dz(k) + st%t(i, k + 1) * dz(k + 1)) / (dz(k) + dz(k + 1))
          sm = (st%s(i, k) * dz(k) + st%s(i, k + 1) * dz(k + 1)) / (dz(k) + dz(k + 1))
          st%t(i, k:k + 1) = tm
          st%s(i, k:k + 1) = sm
          rho(k:k + 1) = density(st%t(i, k:k + 1), st%s(i, k:k + 1))
        end if
      end do
    end do
  end subroutine convect

  subroutine surface_flux(st, q, evap)
    type(column_state), intent(inout) :: st
    real(wp), intent(in) :: q(:), evap
    st%t(:, 1) = st%t(:, 1) + q / dz(1)
    where (st%t(:, 1) < -1.8_wp)
      st%t(:, 1) = -1.8_wp + 0.05_wp * (st%t(:, 1) + 1.8_wp)
    end where
    st%s(:, 1) = st%s(:, 1) * (1.0_wp + evap * dz(1) / sum(dz))
  end subroutine surface_flux

  subroutine step(st, q, evap)
    type(column_state), intent(inout) :: st
    real(wp), intent(in) :: q(nx), evap
    call surface_flux(st, q, evap)
    call smooth(st%t, st%mix)
    call smooth(st%s(:, 1), 0.5_wp * st%mix)
    call convect(st)
  end subroutine step
end module column_physics

subroutine head(x, y)
  use column_params
  use column_eos
  use column_types
  use column_physics
  implicit none
  real(wp) :: x(3), y(2)
  type(column_state) :: st
  real(wp) :: q(nx)
  integer :: i, k, n
  !$openad INDEPENDENT(x)
  allocate(st%t(nx, nz), st%s(nx, nz))
  st%mix = 0.1_wp * x(3)
  do k = 1, nz
    st%t(:, k) = x(1) * [(10.0_wp - 1.3_wp * k + 0.3_wp * sin(0.4_wp * i), i = 1, nx)]
    st%s(:, k) = 35.0_wp + 0.01_wp * k
  end do
  q = [(x(2) * cos(0.2_wp * i) - 0.5_wp, i = 1, nx)]
  do n = 1, nsteps
    call step(st, q, 1.0e-3_wp)
  end do
  y(1) = sum(density(st%t, st%s)) / (nx * nz)
  y(2) = sum(st%t(:, 1)**2) / nx
  deallocate(st%t, st%s)
  !$openad DEPENDENT(y)
end subroutine head
