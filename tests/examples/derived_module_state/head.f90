! Shallow-water-like model keeping its state in a module-level derived
! type with array components, stepped in a time loop through a call tree.
module ocean_state
  implicit none
  integer, parameter :: n = 6
  type state_t
    double precision :: h(n)
    double precision :: u(n)
    double precision :: dt
    integer :: steps
  end type state_t
  type(state_t) :: st
  public :: state_t
contains
  subroutine init_state(x)
    double precision, intent(in) :: x(n)
    st%h = 1.0d0 + 0.1d0 * x
    st%u = 0.0d0
    st%dt = 0.02d0
    st%steps = 12
  end subroutine init_state

  subroutine fluxes(f)
    double precision, intent(out) :: f(n)
    integer :: i
    do i = 1, n
      f(i) = st%h(i) * st%u(i)
    end do
  end subroutine fluxes

  subroutine step()
    double precision :: f(n)
    integer :: i, im, ip
    call fluxes(f)
    do i = 1, n
      ip = mod(i, n) + 1
      im = mod(i + n - 2, n) + 1
      st%u(i) = st%u(i) - st%dt * 9.81d0 * 0.5d0 * (st%h(ip) - st%h(im))
    end do
    do i = 1, n
      ip = mod(i, n) + 1
      im = mod(i + n - 2, n) + 1
      st%h(i) = st%h(i) - st%dt * 0.5d0 * (f(ip) - f(im))
    end do
  end subroutine step
end module ocean_state

subroutine head(x, y)
  use ocean_state
  implicit none
  double precision :: x(n), y(2)
  integer :: t
  !$openad INDEPENDENT(x)
  call init_state(x)
  do t = 1, st%steps
    call step()
  end do
  y(1) = sum(st%h * st%h)
  y(2) = sum(st%h * st%u**2)
  !$openad DEPENDENT(y)
end subroutine head
