! A 1-D transport model stepped in time. The routines' own work arrays
! (fluxes, gradients, a smoothing copy, the history of head) are never
! seen outside their routine; the halo-extended state and the squared
! field are passed to a call, and the level eta is a module variable.
module layout_state
  implicit none
  integer, parameter :: n = 12
  double precision :: eta(n)
contains
  subroutine relax(a, k)
    double precision, intent(inout) :: a(:)
    double precision, intent(in) :: k
    double precision :: tmp(size(a))
    integer :: i
    tmp = a
    do i = 2, size(a) - 1
      a(i) = tmp(i) + k * (tmp(i - 1) - 2.0d0 * tmp(i) + tmp(i + 1)) * tmp(i)
    end do
  end subroutine relax

  subroutine advance(u, c, dt)
    double precision, intent(inout) :: u(n)
    double precision, intent(in) :: c, dt
    double precision, allocatable :: flux(:)
    double precision :: work(0:n + 1)
    double precision :: grad(n, 2)
    integer :: i
    allocate(flux(n + 1))
    work(1:n) = u
    work(0) = u(n)
    work(n + 1) = u(1)
    call relax(work, 0.05d0)
    do i = 1, n + 1
      flux(i) = c * 0.5d0 * (work(i - 1)**2 + work(i)**2) - 0.1d0 * (work(i) - work(i - 1))
    end do
    do i = 1, n
      grad(i, 1) = flux(i + 1) - flux(i)
      grad(i, 2) = eta(i) * u(i)
    end do
    u = u - dt * grad(:, 1) + dt * sin(grad(:, 2))
    eta = eta + dt * grad(:, 2) / (1.0d0 + u**2)
    deallocate(flux)
  end subroutine advance
end module layout_state

subroutine head(x, y)
  use layout_state
  implicit none
  double precision :: x(3), y(2)
  double precision, allocatable :: u(:), hist(:)
  double precision :: s(n), lap(n)
  integer :: i, t
  integer, parameter :: nt = 6
  !$openad INDEPENDENT(x)
  allocate(u(n), hist(nt))
  do i = 1, n
    u(i) = x(1) + 0.1d0 * sin(dble(i))
    eta(i) = x(2) * cos(dble(i))
  end do
  do t = 1, nt
    call advance(u, x(3), 0.02d0)
    s = u * u
    call relax(s, 0.1d0)
    lap = 0.0d0
    do i = 2, n - 1
      lap(i) = s(i - 1) - 2.0d0 * s(i) + s(i + 1)
    end do
    hist(t) = sum(lap * u) + maxval(s)
  end do
  y(1) = sum(hist * hist)
  y(2) = sum(eta * u)
  deallocate(u, hist)
  !$openad DEPENDENT(y)
end subroutine head
