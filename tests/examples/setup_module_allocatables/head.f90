! A small shallow-water basin whose grid and fields are allocatable module
! variables, allocated by a set-up routine with the usual guard
! `if (.not. allocated(a)) allocate(a(...))` and filled there (a `forall`
! on the initial bump), then stepped by halo, momentum and continuity
! routines working on module state with array sections. Joint mode re-runs
! the set-up routine in the reverse sweep, where the arrays are still
! allocated and hold the adjoints of the later steps.
module grid
  implicit none
  integer :: nx, ny
  real(8), allocatable :: depth(:, :)
end module grid

module fields
  use grid
  implicit none
  real(8), allocatable :: eta(:, :), u(:, :), v(:, :)
  real(8) :: drag
contains
  subroutine setup(n, m, x)
    integer, intent(in) :: n, m
    real(8), intent(in) :: x(:)
    integer :: i, j
    nx = n
    ny = m
    if (.not. allocated(depth)) allocate(depth(nx, ny))
    if (.not. allocated(eta)) allocate(eta(0:nx+1, 0:ny+1), u(nx+1, ny), v(nx, ny+1))
    do j = 1, ny
      do i = 1, nx
        depth(i, j) = 100.0d0 + 10.0d0 * sin(0.3d0 * i) * cos(0.2d0 * j)
      end do
    end do
    eta = 0
    forall (i = 1:nx, j = 1:ny) eta(i, j) = x(1) * exp(-0.1d0 * ((i - nx/2)**2 + (j - ny/2)**2))
    u = 0
    v = 0
    drag = x(2)
  end subroutine setup

  subroutine halo()
    eta(0, :) = eta(1, :)
    eta(nx + 1, :) = eta(nx, :)
    eta(:, 0) = eta(:, 1)
    eta(:, ny + 1) = eta(:, ny)
  end subroutine halo

  subroutine momentum(dt)
    real(8), intent(in) :: dt
    u(2:nx, :) = u(2:nx, :) * (1.0d0 - dt * drag) - dt * 9.81d0 * (eta(2:nx, 1:ny) - eta(1:nx-1, 1:ny))
    v(:, 2:ny) = v(:, 2:ny) * (1.0d0 - dt * drag) - dt * 9.81d0 * (eta(1:nx, 2:ny) - eta(1:nx, 1:ny-1))
  end subroutine momentum

  subroutine continuity(dt)
    real(8), intent(in) :: dt
    eta(1:nx, 1:ny) = eta(1:nx, 1:ny) - dt * depth * ((u(2:nx+1, :) - u(1:nx, :)) + (v(:, 2:ny+1) - v(:, 1:ny)))
  end subroutine continuity
end module fields

subroutine head(x, y)
  use fields
  implicit none
  real(8), intent(in) :: x(2)
  real(8), intent(out) :: y(2)
  integer :: t
  !$openad INDEPENDENT(x)
  call setup(12, 10, x)
  do t = 1, 25
    call halo()
    call momentum(0.002d0)
    call continuity(0.002d0)
  end do
  y(1) = sum(eta(1:nx, 1:ny)**2)
  y(2) = maxval(abs(u))
  !$openad DEPENDENT(y)
end subroutine head
