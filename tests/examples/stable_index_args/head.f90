! 1-D transport stepped in time with a call tree that passes face and
! cell indices down: head (time loop) -> step -> face_flux (index of the
! face loop) -> rusanov (the same index, passed on); the reverse sweeps
! read these indices as they are instead of taping them. Beside them,
! indices the reverse sweep does not have: a running counter advanced
! after each call (source), and a routine called once with a loop index
! and once with a variable changed afterwards (damp).
! Parameters: x(1) mean state, x(2) bump amplitude, x(3) viscosity.
module stable_index_model
  implicit none
  integer, parameter :: n = 12
  integer, parameter :: nsteps = 4
contains
  subroutine rusanov(u, i, nu, f)
    double precision, intent(in) :: u(n)
    integer, intent(in) :: i
    double precision, intent(in) :: nu
    double precision, intent(out) :: f
    double precision :: a
    a = max(abs(u(i)), abs(u(i + 1)))
    f = 0.25d0 * (u(i)**2 + u(i + 1)**2) - 0.5d0 * (a + nu) * (u(i + 1) - u(i))
  end subroutine rusanov

  subroutine face_flux(u, i, nu, f)
    double precision, intent(in) :: u(n)
    integer, intent(in) :: i
    double precision, intent(in) :: nu
    double precision, intent(out) :: f
    call rusanov(u, i, nu, f)
  end subroutine face_flux

  ! Adds a source at cell j; the caller's counter moves on afterwards.
  subroutine source(u, j, s)
    double precision, intent(inout) :: u(n)
    integer, intent(in) :: j
    double precision, intent(in) :: s
    u(j) = u(j) + s * u(j) * u(j + 1)
  end subroutine source

  subroutine damp(u, k, c)
    double precision, intent(inout) :: u(n)
    integer, intent(in) :: k
    double precision, intent(in) :: c
    u(k) = u(k) * (1.0d0 - c * u(k - 1)**2)
  end subroutine damp

  subroutine step(u, dt, nu, kstep)
    double precision, intent(inout) :: u(n)
    double precision, intent(in) :: dt, nu
    integer, intent(in) :: kstep
    double precision :: f(n), fl
    integer :: i, j, m
    f = 0.0d0
    do i = 1, n - 1
      call face_flux(u, i, nu, fl)
      f(i) = fl
    end do
    do i = 2, n - 1
      u(i) = u(i) - dt * (f(i) - f(i - 1))
    end do
    j = 1 + mod(kstep, 2)
    do i = 1, 3
      call source(u, j, 0.01d0 * dt)
      j = j + 3
    end do
    do i = 3, n - 1, 4
      call damp(u, i, 0.1d0 * nu)
    end do
    m = n - 2
    call damp(u, m, 0.2d0 * nu)
    m = 2
  end subroutine step
end module stable_index_model

subroutine head(x, y)
  use stable_index_model
  implicit none
  double precision :: x(3), y(2)
  double precision :: u(n), h, dt
  integer :: i, k
  !$openad INDEPENDENT(x)
  h = 1.0d0 / n
  do i = 1, n
    u(i) = x(1) + x(2) * exp(-((i * h - 0.3d0)**2) / 0.02d0)
  end do
  dt = 0.2d0 * h
  do k = 1, nsteps
    call step(u, dt / h, x(3), k)
  end do
  y(1) = 0.0d0
  do i = 1, n
    y(1) = y(1) + h * u(i)**2
  end do
  y(2) = u(n / 2)
  !$openad DEPENDENT(y)
end subroutine head
