module model
  implicit none
  integer, parameter :: n = 40
contains
  subroutine flux(u, i, f)
    real(8), intent(in) :: u(n)
    integer, intent(in) :: i
    real(8), intent(out) :: f
    f = 0.5d0 * (u(i)**2 + u(i+1)**2) - 0.1d0 * (u(i+1) - u(i))
  end subroutine
  subroutine step(u, dt)
    real(8), intent(inout) :: u(n)
    real(8), intent(in) :: dt
    real(8) :: f(n), fl
    integer :: i
    f = 0
    do i = 1, n - 1
      call flux(u, i, fl)
      f(i) = fl
    end do
    do i = 2, n - 1
      u(i) = u(i) - dt * (f(i) - f(i-1))
    end do
  end subroutine
end module

subroutine head(x, y)
  use model
  implicit none
  real(8), intent(in) :: x(n)
  real(8), intent(out) :: y(1)
  real(8) :: u(n)
  integer :: k
  !$openad INDEPENDENT(x)
  u = x
  do k = 1, 20
    call step(u, 1d-3)
  end do
  y(1) = sum(u**2)
  !$openad DEPENDENT(y)
end subroutine
