! Benchmark model (bench/): a periodic glacier-like nonlinear diffusion
! written with DO loops: the periodic neighbours of the first and last
! cells by separate statements, clipping with an if, the outputs by loops. bench/programs/glacier_periodic_array is the
! same arithmetic in array syntax (cshift, where, maxval, sum with mask).
! Parameters: x(1) mass-balance rate, x(2) flow rate factor, x(3) initial
! thickness. Outputs: maximum and total thickness above 0.5 at the end.
module glacier_periodic_size
  implicit none
  integer, parameter :: n = 100000 ! bench-size
  integer, parameter :: nsteps = 40
end module glacier_periodic_size

subroutine head(x, y)
  use glacier_periodic_size
  implicit none
  double precision :: x(3), y(2)
  double precision, allocatable :: h(:, :), q(:)
  double precision :: dt
  integer :: i, t
  !$openad INDEPENDENT(x)
  allocate(h(n, nsteps + 1), q(n))
  dt = 0.5d0
  do i = 1, n
    h(i, 1) = x(3) * (1.0d0 - 0.5d0 * sin(6.2831853d0 * i / n)**2)
  end do
  do t = 1, nsteps
    do i = 1, n - 1
      q(i) = x(2) * (0.5d0 * (h(i + 1, t) + h(i, t)))**3 * (h(i + 1, t) - h(i, t))
    end do
    q(n) = x(2) * (0.5d0 * (h(1, t) + h(n, t)))**3 * (h(1, t) - h(n, t))
    h(1, t + 1) = h(1, t) + dt * (q(1) - q(n)) + dt * x(1) * (0.8d0 - h(1, t))
    do i = 2, n
      h(i, t + 1) = h(i, t) + dt * (q(i) - q(i - 1)) + dt * x(1) * (0.8d0 - h(i, t))
    end do
    do i = 1, n
      if (h(i, t + 1) > 0.95d0) h(i, t + 1) = 0.95d0 + 0.5d0 * (h(i, t + 1) - 0.95d0)
    end do
  end do
  y(1) = h(1, nsteps + 1)
  do i = 1, n
    y(1) = max(y(1), h(i, nsteps + 1))
  end do
  y(2) = 0.0d0
  do i = 1, n
    if (h(i, nsteps + 1) > 0.5d0) y(2) = y(2) + h(i, nsteps + 1)
  end do
  deallocate(h, q)
  !$openad DEPENDENT(y)
end subroutine head
