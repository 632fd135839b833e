! An ODE integrator library used as scientists use one: a generic RK4
! driver taking the right-hand side as a procedure argument with an
! explicit interface and passing it on to its stage routine, two models
! plugged in (a predator-prey system and a damped oscillator, module
! procedures whose parameters are module variables set from the inputs),
! and a trapezoidal quadrature taking a function argument declared
! `external`, called with an external function. Each call gets a copy of
! the routine specialised to the procedures it passes.
module ode_rhs
  implicit none
  double precision :: alpha, beta, damping, width
contains
  subroutine lotka(t, u, dudt)
    double precision, intent(in) :: t, u(:)
    double precision, intent(out) :: dudt(:)
    dudt(1) = alpha * u(1) - beta * u(1) * u(2)
    dudt(2) = -u(2) + beta * u(1) * u(2) * (1.0d0 + 0.1d0 * sin(t))
  end subroutine lotka

  subroutine oscillator(t, u, dudt)
    double precision, intent(in) :: t, u(:)
    double precision, intent(out) :: dudt(:)
    dudt(1) = u(2)
    dudt(2) = -u(1) - damping * u(2) + 0.05d0 * cos(t)
  end subroutine oscillator
end module ode_rhs

module ode_solver
  implicit none
contains
  subroutine rk4(rhs, u, t, dt, nsteps)
    interface
      subroutine rhs(t, u, dudt)
        double precision, intent(in) :: t, u(:)
        double precision, intent(out) :: dudt(:)
      end subroutine rhs
    end interface
    double precision, intent(inout) :: u(:), t
    double precision, intent(in) :: dt
    integer, intent(in) :: nsteps
    double precision :: k1(size(u)), k2(size(u)), k3(size(u)), k4(size(u))
    integer :: n
    do n = 1, nsteps
      call rhs(t, u, k1)
      call stage(rhs, t, u, 0.5d0 * dt, k1, k2)
      call stage(rhs, t, u, 0.5d0 * dt, k2, k3)
      call stage(rhs, t, u, dt, k3, k4)
      u = u + dt / 6.0d0 * (k1 + 2.0d0 * k2 + 2.0d0 * k3 + k4)
      t = t + dt
    end do
  end subroutine rk4

  subroutine stage(f, t, u, h, k_in, k_out)
    interface
      subroutine f(t, u, dudt)
        double precision, intent(in) :: t, u(:)
        double precision, intent(out) :: dudt(:)
      end subroutine f
    end interface
    double precision, intent(in) :: t, u(:), h, k_in(:)
    double precision, intent(out) :: k_out(:)
    call f(t + h, u + h * k_in, k_out)
  end subroutine stage

  function trapezoid(g, a, b, n) result(s)
    double precision, external :: g
    double precision, intent(in) :: a, b
    integer, intent(in) :: n
    double precision :: s, h
    integer :: i
    h = (b - a) / n
    s = 0.5d0 * (g(a) + g(b))
    do i = 1, n - 1
      s = s + g(a + i * h)
    end do
    s = s * h
  end function trapezoid
end module ode_solver

subroutine head(x, y)
  use ode_rhs
  use ode_solver, only: rk4, trapezoid
  implicit none
  double precision :: x(3), y(2)
  double precision :: u(2), v(2), t
  double precision, external :: bump
  !$openad INDEPENDENT(x)
  alpha = x(1)
  beta = 0.5d0 * x(2)
  damping = 0.1d0 * x(3)
  u = [1.0d0, 0.5d0]
  t = 0.0d0
  call rk4(lotka, u, t, 0.05d0, 40)
  v = [x(3), 0.0d0]
  t = 0.0d0
  call rk4(oscillator, v, t, 0.1d0, 30)
  y(1) = u(1) * u(2)
  width = 0.5d0 + 0.1d0 * u(1)
  y(2) = v(1) + v(2)**2 + trapezoid(bump, -1.0d0, x(1), 40)
  !$openad DEPENDENT(y)
end subroutine head

double precision function bump(z)
  use ode_rhs, only: width
  implicit none
  double precision, intent(in) :: z
  bump = exp(-(z / width)**2)
end function bump
