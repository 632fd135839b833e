! Time-stepping model: explicit 1-D heat equation with a nonlinear
! conductivity, insulated left end and a heat-loss branch on the right.
subroutine head(x, y)
  implicit none
  integer, parameter :: n = 20, nsteps = 40
  double precision :: x(4), y(3)
  double precision :: u(0:n + 1), unew(n), kappa, dt, dx, flux_l, flux_r
  integer :: i, step
  !$openad INDEPENDENT(x)
  dx = 1.0d0 / n
  dt = 0.2d0 * dx * dx
  do i = 0, n + 1
    u(i) = x(1) * sin(3.14159d0 * i * dx) + x(2)
  end do
  do step = 1, nsteps
    u(0) = u(1)
    if (u(n) > x(4)) then
      u(n + 1) = u(n) - 0.5d0 * (u(n) - x(4))
    else
      u(n + 1) = u(n)
    end if
    do i = 1, n
      kappa = x(3) * (1.0d0 + 0.1d0 * u(i) * u(i))
      flux_r = kappa * (u(i + 1) - u(i)) / dx
      flux_l = kappa * (u(i) - u(i - 1)) / dx
      unew(i) = u(i) + dt * (flux_r - flux_l) / dx
    end do
    u(1:n) = unew
  end do
  y(1) = sum(u(1:n)) * dx
  y(2) = maxval(u(1:n))
  y(3) = u(n / 2)
  !$openad DEPENDENT(y)
end subroutine head
