! A tracer-box model written with an integrator object: the `stepper`
! type holds the step size and a work array, its type-bound `advance`
! takes the right-hand side as a `procedure(tendency)` dummy declared
! through an abstract interface, and the top-level routine advances two
! boxes with different tendencies in a time loop by
! `call rk%advance(decay, c, t)`: devirtualised first, then specialised
! to the procedure it passes.
module tendencies
  implicit none
  double precision :: k_decay, k_source
contains
  subroutine decay(t, c, dcdt)
    double precision, intent(in) :: t, c(:)
    double precision, intent(out) :: dcdt(:)
    dcdt = -k_decay * c * (1.0d0 + 0.2d0 * sin(t))
  end subroutine decay

  subroutine exchange(t, c, dcdt)
    double precision, intent(in) :: t, c(:)
    double precision, intent(out) :: dcdt(:)
    dcdt(1) = k_source * (c(2) - c(1))
    dcdt(2) = k_source * (c(1) - c(2)) - 0.1d0 * c(2)**2 * cos(t)
  end subroutine exchange
end module tendencies

module steppers
  implicit none

  abstract interface
    subroutine tendency(t, c, dcdt)
      double precision, intent(in) :: t, c(:)
      double precision, intent(out) :: dcdt(:)
    end subroutine tendency
  end interface

  type :: stepper
    double precision :: dt
    integer :: substeps
  contains
    procedure :: advance
  end type stepper

contains

  subroutine advance(self, f, c, t)
    class(stepper), intent(in) :: self
    procedure(tendency) :: f
    double precision, intent(inout) :: c(:), t
    double precision :: k1(size(c)), k2(size(c))
    integer :: s
    do s = 1, self%substeps
      call f(t, c, k1)
      call f(t + self%dt, c + self%dt * k1, k2)
      c = c + 0.5d0 * self%dt * (k1 + k2)
      t = t + self%dt
    end do
  end subroutine advance
end module steppers

subroutine head(x, y)
  use tendencies
  use steppers, only: stepper
  implicit none
  double precision :: x(3), y(2)
  type(stepper) :: rk
  double precision :: a(2), b(2), t
  integer :: n
  !$openad INDEPENDENT(x)
  k_decay = x(1)
  k_source = x(2)
  rk%dt = 0.05d0
  rk%substeps = 4
  a = [x(3), 1.0d0]
  b = [1.0d0, x(3)]
  t = 0.0d0
  do n = 1, 10
    call rk%advance(decay, a, t)
    call rk%advance(exchange, b, t)
  end do
  y(1) = a(1) + a(2)
  y(2) = b(1) * b(2)
  !$openad DEPENDENT(y)
end subroutine head
