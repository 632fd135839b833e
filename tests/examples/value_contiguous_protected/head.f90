! Jacobi relaxation of a 1-D heat rod with the attributes of modern
! Fortran: the grid spacing is a `protected` module variable set by the
! module's own routine, the sweep routine takes the rod as a
! `contiguous` assumed-shape array, and its relaxation factor and sweep
! count by `value` (the routine changes its copies, the caller's
! variables keep their values and are used again), as does a damping
! function. Called in a time loop.
module grid_config
  implicit none
  real(8), protected :: dx = 1.0d0
  integer, protected :: npts = 0
contains
  subroutine set_grid(length, n)
    real(8), intent(in) :: length
    integer, intent(in) :: n
    npts = n
    dx = length / (n - 1)
  end subroutine set_grid
end module grid_config

module rod
  use grid_config
  implicit none
contains
  real(8) function damp(r)
    real(8), value :: r
    r = min(r, 1.0d0)
    damp = r * (2.0d0 - r)
  end function damp

  subroutine sweep(u, alpha, nsweep)
    real(8), contiguous, intent(inout) :: u(:)
    real(8), value :: alpha
    integer, value :: nsweep
    integer :: i
    do while (nsweep > 0)
      do i = 2, npts - 1
        u(i) = u(i) + alpha * (u(i - 1) - 2.0d0 * u(i) + u(i + 1)) / dx**2
      end do
      ! The copies change; the caller's variables do not.
      alpha = 0.8d0 * alpha
      nsweep = nsweep - 1
    end do
  end subroutine sweep
end module rod

subroutine head(x, y)
  use grid_config
  use rod
  implicit none
  real(8) :: x(3), y(3)
  real(8) :: u(8), alpha
  integer :: k, nsweep, step
  !$openad INDEPENDENT(x)
  call set_grid(x(3), 8)
  do k = 1, 8
    u(k) = x(1) * sin(0.4d0 * k)
  end do
  alpha = 0.02d0 * x(2)
  nsweep = 3
  do step = 1, 4
    call sweep(u, alpha, nsweep)
    u(1) = u(1) * damp(alpha * 10.0d0)
    alpha = alpha * 1.05d0
    nsweep = nsweep + 1
  end do
  y(1) = u(4)
  y(2) = sum(u) * alpha
  y(3) = u(8) + dx * nsweep
  !$openad DEPENDENT(y)
end subroutine head
