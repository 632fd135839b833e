! A 2-D shallow-ice flow model in modern Fortran: kinds from
! iso_fortran_env, a private module with a pure elemental diffusivity,
! contiguous assumed-shape state, a value dummy, an optional surface mass
! balance, and work arrays that come into being the modern way:
! `allocate(s, mold=h)`, `allocate(slope2(nx, ny), source=0.0_dp)`,
! `allocate(h_old, source=h)` and allocation on assignment
! (`d = flux_coef(...)` allocates d). Before, the generated code did not
! compile (mold= and a real source= on type(active) data) and the
! assignment to the unallocated d ran its loops over no storage (a crash).
module ice_flow
  use, intrinsic :: iso_fortran_env, only: dp => real64
  implicit none
  private
  public :: flow_step, ice_volume
  real(dp), parameter :: glen_a = 1.0e-2_dp, rho_g = 9.0_dp
contains
  pure elemental function flux_coef(h, s) result(d)
    real(dp), intent(in) :: h, s
    real(dp) :: d
    d = glen_a * rho_g**3 * h**5 * s**2
  end function

  subroutine flow_step(h, b, dt, dx, smb)
    real(dp), intent(inout), contiguous :: h(:, :)
    real(dp), intent(in) :: b(:, :)
    real(dp), value :: dt
    real(dp), intent(in) :: dx
    real(dp), intent(in), optional :: smb(:, :)
    real(dp), allocatable :: s(:, :), slope2(:, :), d(:, :), fx(:, :), fy(:, :), h_old(:, :)
    integer :: nx, ny
    nx = size(h, 1); ny = size(h, 2)
    allocate(h_old, source=h)
    allocate(s, mold=h)
    s = h + b
    allocate(slope2(nx, ny), source=0.0_dp)
    slope2(2:nx-1, 2:ny-1) = ((s(3:nx, 2:ny-1) - s(1:nx-2, 2:ny-1)) / (2*dx))**2 &
                           + ((s(2:nx-1, 3:ny) - s(2:nx-1, 1:ny-2)) / (2*dx))**2
    d = flux_coef(h, sqrt(slope2 + 1.0e-6_dp))
    allocate(fx(nx-1, ny), fy(nx, ny-1))
    fx = -0.5_dp * (d(1:nx-1, :) + d(2:nx, :)) * (s(2:nx, :) - s(1:nx-1, :)) / dx
    fy = -0.5_dp * (d(:, 1:ny-1) + d(:, 2:ny)) * (s(:, 2:ny) - s(:, 1:ny-1)) / dx
    h(2:nx-1, 2:ny-1) = h(2:nx-1, 2:ny-1) - dt / dx * (fx(2:nx-1, 2:ny-1) - fx(1:nx-2, 2:ny-1) &
                                                      + fy(2:nx-1, 2:ny-1) - fy(2:nx-1, 1:ny-2))
    if (present(smb)) h = h + dt * smb
    h = max(0.9_dp * h + 0.1_dp * h_old, 0.0_dp)
  end subroutine

  real(dp) function ice_volume(h, dx) result(v)
    real(dp), intent(in) :: h(:, :), dx
    v = sum(h, mask=h > 0.0_dp) * dx**2
  end function
end module

subroutine head(x, y)
  use ice_flow
  implicit none
  real(8), intent(in) :: x(3)
  real(8), intent(out) :: y(2)
  integer, parameter :: nx = 8, ny = 6
  real(8) :: h(nx, ny), b(nx, ny), smb(nx, ny)
  integer :: i, j, k
  !$openad INDEPENDENT(x)
  do j = 1, ny
    do i = 1, nx
      b(i, j) = 0.1d0 * i
      h(i, j) = x(1) * exp(-((i - 4.5d0)**2 + (j - 3.5d0)**2) / 8d0)
      smb(i, j) = x(2) * (1.0d0 - 0.2d0 * b(i, j)) - 0.05d0
    end do
  end do
  do k = 1, 5
    if (mod(k, 2) == 0) then
      call flow_step(h, b, 0.01d0 * x(3), 1.0d0, smb)
    else
      call flow_step(h, b, 0.01d0 * x(3), 1.0d0)
    end if
  end do
  y(1) = ice_volume(h, 1.0d0)
  y(2) = maxval(h)
  !$openad DEPENDENT(y)
end subroutine
