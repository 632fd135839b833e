! Implicit time stepping of a nonlinear diffusion with a drift, the
! linear system of each step solved by LAPACK's dgesv (a black box:
! declared in lapack.bb, derivative routines in dgesv_derivs.f90).
! The log-determinant of the step matrices, read from the LU factors
! dgesv leaves in the matrix, is an output too (as in a likelihood). At
! the end, head solves once more, itself, into a work array of the
! module (a use-associated variable passed to the black box), and a
! routine without loops (a leaf of joint mode) solves for another load.
! BLAS dcopy (a black box with an intent(in) and an intent(out) active
! argument) reuses a work array.
module diffusion_mod
  implicit none
  integer, parameter :: n = 6
  integer, parameter :: nsteps = 5
  real(8), parameter :: dt = 0.1d0
  real(8) :: response(n)
contains
  ! Backward Euler matrix I + dt*K(u): conductivity grows with the state
  ! at each face; the drift makes it unsymmetric, the coupling of the
  ! last cell to the first (a return flow) makes dgesv pivot.
  subroutine assemble(u, kappa, drift, a)
    real(8), intent(in) :: u(n), kappa, drift
    real(8), intent(out) :: a(n, n)
    integer :: i
    real(8) :: k_face
    a = 0.0d0
    do i = 1, n
      a(i, i) = 1.0d0
    end do
    do i = 1, n - 1
      k_face = kappa * (1.0d0 + 0.5d0 * (u(i) + u(i + 1))**2)
      a(i, i) = a(i, i) + dt * k_face
      a(i + 1, i + 1) = a(i + 1, i + 1) + dt * k_face
      a(i, i + 1) = a(i, i + 1) - dt * (k_face - drift)
      a(i + 1, i) = a(i + 1, i) - dt * (k_face + drift)
    end do
    a(n, 1) = a(n, 1) + 3.0d0 * kappa
  end subroutine assemble

  subroutine implicit_step(u, kappa, drift, source, logdet)
    real(8), intent(inout) :: u(n)
    real(8), intent(in) :: kappa, drift, source(n)
    real(8), intent(inout) :: logdet
    real(8) :: a(n, n), b(n)
    integer :: ipiv(n), info, i
    call assemble(u, kappa, drift, a)
    b = u + dt * source
    call dgesv(n, 1, a, n, ipiv, b, n, info)
    if (info /= 0) stop 'implicit_step: singular matrix'
    u = b
    do i = 1, n
      logdet = logdet + log(abs(a(i, i)))
    end do
  end subroutine implicit_step

  ! Displacement of the last cell under a load at the middle one.
  subroutine middle_load_response(a, load, tip)
    real(8), intent(inout) :: a(n, n)
    real(8), intent(in) :: load
    real(8), intent(out) :: tip
    real(8) :: rhs(n)
    integer :: ipiv(n), info
    rhs = 0.0d0
    rhs(n / 2) = load
    call dgesv(n, 1, a, n, ipiv, rhs, n, info)
    if (info /= 0) stop 'middle_load_response: singular matrix'
    tip = rhs(n)
  end subroutine middle_load_response
end module diffusion_mod

subroutine head(x, y)
  use diffusion_mod
  implicit none
  real(8), intent(in) :: x(4)
  real(8), intent(out) :: y(3)
  real(8) :: u(n), source(n), logdet, a(n, n), tip, work(n)
  integer :: i, step, ipiv(n), info
  !$openad INDEPENDENT(x)
  do i = 1, n
    u(i) = x(1) * sin(0.7d0 * i) + 0.2d0
    source(i) = x(4) * exp(-0.3d0 * i)
  end do
  logdet = 0.0d0
  do step = 1, nsteps
    call implicit_step(u, x(2), x(3), source, logdet)
  end do
  ! Response of the final state to a unit load at the first cell.
  call assemble(u, x(2), x(3), a)
  response = 0.0d0
  response(1) = 1.0d0
  call dgesv(n, 1, a, n, ipiv, response, n, info)
  call assemble(u, x(2), x(3), a)
  call middle_load_response(a, x(4), tip)
  work = 2.0d0 * source
  y(3) = logdet + work(1)
  call dcopy(n, u, 1, work, 1)
  y(1) = sum(u * u) + tip + work(2)
  y(2) = u(n / 2) + a_corner(u) + response(n)
  !$openad DEPENDENT(y)
contains
  real(8) function a_corner(v)
    real(8), intent(in) :: v(n)
    a_corner = 0.5d0 * v(1) * v(n)
  end function a_corner
end subroutine head
