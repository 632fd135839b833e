! Implicit (backward Euler) time steps of a stiff reaction-diffusion
! column, each solved by a damped Newton iteration whose stopping test
! calls a function: `do while (residual_norm(...) > tol ...)`.
! x(1:4): initial profile, x(5): reaction rate. y: final profile and the
! number of Newton iterations is not differentiated (passive).
module column
  implicit none
  integer, parameter :: nz = 4
  real(8), parameter :: dz = 0.25d0
contains
  subroutine residual(u, uold, k, dt, r)
    real(8), intent(in) :: u(nz), uold(nz), k, dt
    real(8), intent(out) :: r(nz)
    integer :: i
    real(8) :: lap
    do i = 1, nz
      if (i == 1) then
        lap = (u(2) - u(1)) / dz**2
      else if (i == nz) then
        lap = (u(nz - 1) - u(nz)) / dz**2
      else
        lap = (u(i + 1) - 2d0 * u(i) + u(i - 1)) / dz**2
      end if
      r(i) = u(i) - uold(i) - dt * (0.05d0 * lap - k * u(i)**2)
    end do
  end subroutine residual

  real(8) function residual_norm(u, uold, k, dt)
    real(8), intent(in) :: u(nz), uold(nz), k, dt
    real(8) :: r(nz)
    call residual(u, uold, k, dt, r)
    residual_norm = sqrt(sum(r**2))
  end function residual_norm

  subroutine newton_update(u, uold, k, dt)
    ! One damped, Jacobi-preconditioned correction: u <- u - 0.7 r / diag(J).
    real(8), intent(inout) :: u(nz)
    real(8), intent(in) :: uold(nz), k, dt
    real(8) :: r(nz), diag
    integer :: i
    call residual(u, uold, k, dt, r)
    do i = 1, nz
      diag = 1d0 + dt * (0.1d0 / dz**2 + 2d0 * k * u(i))
      u(i) = u(i) - 0.7d0 * r(i) / diag
    end do
  end subroutine newton_update
end module column

subroutine head(x, y)
  use column
  implicit none
  real(8), intent(in) :: x(5)
  real(8), intent(out) :: y(4)
  real(8) :: u(nz), uold(nz), k, dt
  integer :: step, iters
  !$openad INDEPENDENT(x)
  u = x(1:4)
  k = x(5)
  dt = 0.1d0
  do step = 1, 3
    uold = u
    iters = 0
    do while (residual_norm(u, uold, k, dt) > 1d-6 .and. iters < 40)
      call newton_update(u, uold, k, dt)
      iters = iters + 1
    end do
  end do
  y = u
  !$openad DEPENDENT(y)
end subroutine head
