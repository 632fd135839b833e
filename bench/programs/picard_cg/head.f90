! Benchmark model (bench/): nonlinear diffusion u_t = (k(u) u_x)_x + s on
! a 1-D grid, k(u) = 1 + x(1) u**2, backward Euler in time; each step is a
! few Picard iterations around a matrix-free conjugate-gradient solve of
! (I + dt A(k)) u = u_old + dt s, the way implicit models are written:
! head (time loop) -> picard (per step) -> cg_solve -> apply_operator / dot
! (per CG iteration, stopping when the residual has dropped by 1e-12).
! Parameters: x(1) nonlinearity, x(2) source strength, x(3) boundary value.
! Outputs: the solution's energy, a point value.
module picard_model
  implicit none
  integer, parameter :: n = 400 ! bench-size
  integer, parameter :: nsteps = 40 ! bench-steps
  integer, parameter :: ncg = 200, npicard = 3
  double precision, parameter :: dt = 2.0d-5
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

  ! w = (I + dt A(k)) v, A the tridiagonal operator with face
  ! conductivities k on a grid of spacing 1/(n+1).
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

  ! CG from the initial guess u until the residual norm has dropped by
  ! 1e-12 (at most ncg iterations).
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
        b(i) = uold(i) + dt * src
      end do
      b(1) = b(1) + dt * (n + 1)**2 * k(1) * ub
      b(n) = b(n) + dt * (n + 1)**2 * k(n + 1) * ub
      call cg_solve(k, b, u)
    end do
  end subroutine picard
end module picard_model

subroutine head(x, y)
  use picard_model
  implicit none
  double precision :: x(3), y(2)
  double precision :: u(n)
  integer :: i, step
  !$openad INDEPENDENT(x)
  do i = 1, n
    u(i) = x(3)
  end do
  do step = 1, nsteps
    call picard(u, x(1), x(2), x(3))
  end do
  y(1) = 0.0d0
  do i = 1, n
    y(1) = y(1) + u(i)**2 / n
  end do
  y(2) = u(n / 2)
  !$openad DEPENDENT(y)
end subroutine head
