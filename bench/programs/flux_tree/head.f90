! Benchmark model (bench/): 1-D conservation law stepped in time with a
! flux-per-face call tree three deep, the way finite-volume codes are
! written: head -> step (per time step) -> face_flux (per face, with the
! face index passed down) -> kernel (a Rusanov flux of two states).
! Parameters: x(1) mean state, x(2) bump amplitude, x(3) viscosity.
! Outputs: the state's energy, a point value.
module flux_tree_model
  implicit none
  integer, parameter :: n = 20000 ! bench-size
  integer, parameter :: nsteps = 40 ! bench-steps
contains
  subroutine kernel(ul, ur, nu, f)
    double precision, intent(in) :: ul, ur, nu
    double precision, intent(out) :: f
    double precision :: a
    a = max(abs(ul), abs(ur))
    f = 0.25d0 * (ul * ul + ur * ur) - 0.5d0 * (a + nu) * (ur - ul)
  end subroutine kernel

  subroutine face_flux(u, i, nu, f)
    double precision, intent(in) :: u(n)
    integer, intent(in) :: i
    double precision, intent(in) :: nu
    double precision, intent(out) :: f
    call kernel(u(i), u(i + 1), nu, f)
  end subroutine face_flux

  subroutine step(u, dt, nu)
    double precision, intent(inout) :: u(n)
    double precision, intent(in) :: dt, nu
    double precision :: f(n), fl
    integer :: i
    f = 0.0d0
    do i = 1, n - 1
      call face_flux(u, i, nu, fl)
      f(i) = fl
    end do
    do i = 2, n - 1
      u(i) = u(i) - dt * (f(i) - f(i - 1))
    end do
  end subroutine step
end module flux_tree_model

subroutine head(x, y)
  use flux_tree_model
  implicit none
  double precision :: x(3), y(2)
  double precision :: u(n), h, dt
  integer :: i, k
  !$openad INDEPENDENT(x)
  h = 1.0d0 / n
  do i = 1, n
    u(i) = x(1) + x(2) * exp(-((i * h - 0.3d0)**2) / 0.01d0)
  end do
  dt = 0.2d0 * h
  do k = 1, nsteps
    call step(u, dt / h, x(3))
  end do
  y(1) = 0.0d0
  do i = 1, n
    y(1) = y(1) + h * u(i)**2
  end do
  y(2) = u(n / 2)
  !$openad DEPENDENT(y)
end subroutine head
