! A time integrator library in the modern style (after the model module:
! the copies the tool makes of the integrator use the model's module):
! the right-hand side's
! interface is an `abstract interface` of the library, the integrator
! takes the right-hand side as a `procedure(rhs_iface)` dummy and passes
! it on to its stage routine (declared the same way), and a model module
! supplies two right-hand sides (a nutrient-phytoplankton box and a
! relaxation towards a forcing) whose parameters are module variables
! set from the inputs. A quadrature takes its integrand through a second
! abstract interface (a function).
module plankton
  implicit none
  double precision :: growth, grazing, tau, forcing_amp
contains
  subroutine np_box(t, u, dudt)
    double precision, intent(in) :: t, u(:)
    double precision, intent(out) :: dudt(:)
    double precision :: uptake
    uptake = growth * u(1) / (0.5d0 + u(1)) * u(2)
    dudt(1) = -uptake + 0.1d0 * grazing * u(2)
    dudt(2) = uptake - grazing * u(2)**2 * (1.0d0 + 0.05d0 * sin(t))
  end subroutine np_box

  subroutine relaxation(t, u, dudt)
    double precision, intent(in) :: t, u(:)
    double precision, intent(out) :: dudt(:)
    dudt = (forcing_amp * cos(t) - u) / tau
  end subroutine relaxation

  double precision function light(z)
    double precision, intent(in) :: z
    light = exp(-z / tau) * (1.0d0 + z**2)
  end function light
end module plankton

module integrators
  implicit none
  private
  public :: rhs_iface, heun, integrand_iface, simpson

  abstract interface
    subroutine rhs_iface(t, u, dudt)
      double precision, intent(in) :: t, u(:)
      double precision, intent(out) :: dudt(:)
    end subroutine rhs_iface

    double precision function integrand_iface(z)
      double precision, intent(in) :: z
    end function integrand_iface
  end interface

contains

  subroutine heun(rhs, u, t, dt, nsteps)
    procedure(rhs_iface) :: rhs
    double precision, intent(inout) :: u(:), t
    double precision, intent(in) :: dt
    integer, intent(in) :: nsteps
    double precision :: k1(size(u)), k2(size(u))
    integer :: n
    do n = 1, nsteps
      call rhs(t, u, k1)
      call stage(rhs, t + dt, u + dt * k1, k2)
      u = u + 0.5d0 * dt * (k1 + k2)
      t = t + dt
    end do
  end subroutine heun

  subroutine stage(f, t, u, k)
    procedure(rhs_iface) :: f
    double precision, intent(in) :: t, u(:)
    double precision, intent(out) :: k(:)
    call f(t, u, k)
  end subroutine stage

  double precision function simpson(g, a, b, n)
    procedure(integrand_iface) :: g
    double precision, intent(in) :: a, b
    integer, intent(in) :: n
    double precision :: h
    integer :: i
    h = (b - a) / (2 * n)
    simpson = g(a) + g(b)
    do i = 1, 2 * n - 1
      if (mod(i, 2) == 1) then
        simpson = simpson + 4.0d0 * g(a + i * h)
      else
        simpson = simpson + 2.0d0 * g(a + i * h)
      end if
    end do
    simpson = simpson * h / 3.0d0
  end function simpson
end module integrators

subroutine head(x, y)
  use integrators, only: heun, simpson
  use plankton
  implicit none
  double precision :: x(4), y(3)
  double precision :: u(2), v(3), t
  !$openad INDEPENDENT(x)
  growth = x(1)
  grazing = 0.5d0 * x(2)
  tau = 1.0d0 + x(3)
  forcing_amp = x(4)
  u = [1.0d0, 0.2d0]
  t = 0.0d0
  call heun(np_box, u, t, 0.05d0, 60)
  v = [x(1), 0.0d0, -x(2)]
  t = 0.0d0
  call heun(relaxation, v, t, 0.1d0, 25)
  y(1) = u(1) + u(2)
  y(2) = sum(v**2)
  y(3) = simpson(light, 0.0d0, u(2), 10)
  !$openad DEPENDENT(y)
end subroutine head
