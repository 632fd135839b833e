! Implicit nonlinear diffusion stepped in time: head (time loop) ->
! picard (per step) -> cg_solve (conjugate gradients, left by an
! `if (...) exit` at the top of its iteration loop once the residual has
! dropped) -> apply_operator / dot. Two more routines leave their loops
! in ways that do not nest: relax exits after updating the state, and
! limit exits from an arm that first changes the state; smooth leaves its
! loop at the top on a test of the iteration count.
! Parameters: x(1) nonlinearity, x(2) source strength, x(3) boundary value.
module cg_exit_model
  implicit none
  integer, parameter :: n = 8
  integer, parameter :: nsteps = 3
  integer, parameter :: ncg = 40, npicard = 2
  double precision, parameter :: dt = 2.0d-3
contains
  function dot(a, b) result(s)
    double precision, intent(in) :: a(n), b(n)
    double precision :: s
    integer :: i
    s = 0.0d0
    do i = 1, n
      s = s + a(i) * b(i)
    end do
  end function dot

  subroutine apply_operator(k, v, w)
    double precision, intent(in) :: k(n + 1), v(n)
    double precision, intent(out) :: w(n)
    double precision :: c
    integer :: i
    c = dt * (n + 1)**2
    w(1) = v(1) + c * ((k(1) + k(2)) * v(1) - k(2) * v(2))
    do i = 2, n - 1
      w(i) = v(i) + c * (-k(i) * v(i - 1) + (k(i) + k(i + 1)) * v(i) - k(i + 1) * v(i + 1))
    end do
    w(n) = v(n) + c * (-k(n) * v(n - 1) + (k(n) + k(n + 1)) * v(n))
  end subroutine apply_operator

  ! CG from the initial guess u; the test at the top of the iteration
  ! leaves before any work once the residual has dropped by 1e-24.
  subroutine cg_solve(k, b, u)
    double precision, intent(in) :: k(n + 1), b(n)
    double precision, intent(inout) :: u(n)
    double precision :: r(n), p(n), q(n), rr, rr_new, rr0, alpha
    integer :: it
    call apply_operator(k, u, q)
    r = b - q
    p = r
    rr = dot(r, r)
    rr0 = rr
    do it = 1, ncg
      if (rr <= 1.0d-24 * rr0) exit
      call apply_operator(k, p, q)
      alpha = rr / dot(p, q)
      u = u + alpha * p
      r = r - alpha * q
      rr_new = dot(r, r)
      p = r + (rr_new / rr) * p
      rr = rr_new
    end do
  end subroutine cg_solve

  ! Damped Jacobi sweeps on u, leaving after the sweep that brings the
  ! correction below a bound: the exit comes after the state changed.
  subroutine relax(u, c)
    double precision, intent(inout) :: u(n)
    double precision, intent(in) :: c
    double precision :: corr
    integer :: it, i
    do it = 1, 5
      corr = 0.0d0
      do i = 2, n - 1
        corr = corr + c * (u(i - 1) - 2.0d0 * u(i) + u(i + 1))
        u(i) = u(i) + 0.1d0 * c * (u(i - 1) - 2.0d0 * u(i) + u(i + 1))
      end do
      if (abs(corr) < 0.1d0) exit
    end do
  end subroutine relax

  ! Clips the growth of u: the arm that leaves the loop pulls the middle
  ! value back towards the bound first.
  subroutine limit(u, s)
    double precision, intent(inout) :: u(n)
    double precision, intent(in) :: s
    integer :: it
    do it = 1, 4
      if (u(n / 2) > s) then
        u(n / 2) = s + 0.5d0 * (u(n / 2) - s)
        exit
      end if
      u = u * 1.01d0
    end do
  end subroutine limit

  ! A fixed number of smoothing passes: the loop is left at the top once
  ! it has run npass times, the last trips do nothing.
  subroutine smooth(u, npass)
    double precision, intent(inout) :: u(n)
    integer, intent(in) :: npass
    integer :: it, i
    double precision :: un(n)
    do it = 1, 10
      if (it > npass) exit
      un = u
      do i = 2, n - 1
        u(i) = 0.25d0 * un(i - 1) + 0.5d0 * un(i) + 0.25d0 * un(i + 1)
      end do
    end do
  end subroutine smooth

  ! One backward Euler step: Picard iterations on the conductivities.
  subroutine picard(u, c, src, ub)
    double precision, intent(inout) :: u(n)
    double precision, intent(in) :: c, src, ub
    double precision :: k(n + 1), b(n), uold(n), w(n)
    integer :: i, iter
    uold = u
    do iter = 1, npicard
      w = u
      k(1) = 1.0d0 + c * ub**2
      do i = 2, n
        k(i) = 1.0d0 + c * (0.5d0 * (w(i - 1) + w(i)))**2
      end do
      k(n + 1) = 1.0d0 + c * ub**2
      do i = 1, n
        b(i) = uold(i) + dt * src * sin(3.0d0 * i / n)
      end do
      b(1) = b(1) + dt * (n + 1)**2 * k(1) * ub
      b(n) = b(n) + dt * (n + 1)**2 * k(n + 1) * ub
      call cg_solve(k, b, u)
    end do
  end subroutine picard
end module cg_exit_model

subroutine head(x, y)
  use cg_exit_model
  implicit none
  double precision :: x(3), y(2)
  double precision :: u(n)
  integer :: i, step
  !$openad INDEPENDENT(x)
  do i = 1, n
    u(i) = x(3) + 0.1d0 * x(2) * i
  end do
  do step = 1, nsteps
    call picard(u, x(1), x(2), x(3))
    call relax(u, x(1))
    call limit(u, 2.15d0 * x(3))
    call smooth(u, step)
  end do
  y(1) = 0.0d0
  do i = 1, n
    y(1) = y(1) + u(i)**2 / n
  end do
  y(2) = u(n / 2)
  !$openad DEPENDENT(y)
end subroutine head
