! Module named constants shadowed by a local (dx in smooth) and by a dummy
! (n in relax) of routines re-run in -m rj: constants are never saved.
module grid
  implicit none
  integer, parameter :: n = 6
  real(8), parameter :: dx = 0.1d0
  real(8) :: state(n)
contains
  subroutine smooth(u, m)
    integer, intent(in) :: m
    real(8), intent(inout) :: u(m)
    real(8) :: dx
    integer :: i, k
    dx = 0.5d0
    do k = 1, 2
      do i = 2, m - 1
        u(i) = u(i) + dx * 0.1d0 * (u(i-1) - 2d0*u(i) + u(i+1))
      end do
    end do
  end subroutine
  subroutine relax(u, n)
    integer, intent(in) :: n
    real(8), intent(inout) :: u(n)
    integer :: i
    do i = 1, n
      u(i) = u(i) * (1d0 - 0.01d0 * i) + dx * sin(u(i))
    end do
  end subroutine
end module

subroutine head(x, y)
  use grid
  implicit none
  real(8), intent(in) :: x(6)
  real(8), intent(out) :: y(2)
  integer :: t
  !$openad INDEPENDENT(x)
  state = x
  do t = 1, 3
    call smooth(state, n)
    call relax(state, n)
  end do
  y(1) = sum(state**2)
  y(2) = state(3) * state(4)
  !$openad DEPENDENT(y)
end subroutine
