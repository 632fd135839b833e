! Benchmark: explicit 2-D heat equation on an n x n grid with a
! temperature-dependent conductivity, a heat source and a Dirichlet
! boundary. Parameters: x(1) diffusivity, x(2) source amplitude,
! x(3) boundary temperature. Outputs: mean temperature, centre value.
module heat2d_size
  implicit none
  integer, parameter :: n = 316 ! bench-size
  integer, parameter :: nsteps = 40
end module heat2d_size

subroutine head(x, y)
  use heat2d_size
  implicit none
  double precision :: x(3), y(2)
  double precision, allocatable :: u(:, :), unew(:, :)
  double precision :: h, dt, kappa, lap
  integer :: i, j, step
  !$openad INDEPENDENT(x)
  allocate(u(0:n + 1, 0:n + 1), unew(n, n))
  h = 1.0d0 / (n + 1)
  dt = 0.1d0 * h * h
  u = x(3)
  do step = 1, nsteps
    do j = 1, n
      do i = 1, n
        kappa = x(1) * (1.0d0 + 0.05d0 * u(i, j))
        lap = (u(i - 1, j) + u(i + 1, j) + u(i, j - 1) + u(i, j + 1) - 4.0d0 * u(i, j)) / (h * h)
        unew(i, j) = u(i, j) + dt * (kappa * lap + x(2) * sin(3.14159d0 * i * h) * sin(3.14159d0 * j * h))
      end do
    end do
    u(1:n, 1:n) = unew
  end do
  y(1) = sum(u(1:n, 1:n)) / (dble(n) * dble(n))
  y(2) = u((n + 1) / 2, (n + 1) / 2)
  deallocate(u, unew)
  !$openad DEPENDENT(y)
end subroutine head
