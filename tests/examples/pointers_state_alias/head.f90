! Shallow-water-like column model: the state lives in a module, the
! routines work on pointer aliases of it associated once at setup.
module model_state
  implicit none
  integer, parameter :: n = 4
  double precision, target :: h_store(n), u_store(n)
  double precision, pointer :: h(:), u(:)
contains
  subroutine setup()
    h => h_store
    u => u_store
  end subroutine setup

  subroutine step(dt)
    double precision, intent(in) :: dt
    double precision :: flux(n)
    integer :: i
    do i = 1, n
      flux(i) = h(i) * u(i)
    end do
    do i = 2, n
      h(i) = h(i) - dt * (flux(i) - flux(i-1))
    end do
    u = u - dt * 0.5d0 * h
  end subroutine step
end module model_state

subroutine head(x, y)
  use model_state
  implicit none
  double precision :: x(4), y(2)
  integer :: t
  !$openad INDEPENDENT(x)
  call setup()
  h_store = x
  u_store = 0.5d0
  do t = 1, 5
    call step(0.1d0)
  end do
  y(1) = sum(h * h)
  y(2) = u(n) * h(1)
  !$openad DEPENDENT(y)
end subroutine head
