! Benchmark model (bench/): glacier-like nonlinear diffusion of ice
! thickness h on n cells, stepped in time, keeping every time level in a
! 2-D array h(cell, level) and written with array syntax:
! h(2:n-1, t+1) from sections of h(:, t). The canonicaliser must read the
! other time level in place (issue 11): a copy of h per step makes time
! and tape grow with the square of the number of steps.
! bench/programs/glacier_loops is the same model written with DO loops.
! Parameters: x(1) mass-balance rate, x(2) flow rate factor, x(3) initial
! thickness. Outputs: maximum and total thickness at the end.
module glacier_size
  implicit none
  integer, parameter :: n = 100000 ! bench-size
  integer, parameter :: nsteps = 40
end module glacier_size

subroutine head(x, y)
  use glacier_size
  implicit none
  double precision :: x(3), y(2)
  double precision, allocatable :: h(:, :), q(:)
  double precision :: dt
  integer :: i, t
  !$openad INDEPENDENT(x)
  allocate(h(n, nsteps + 1), q(n - 1))
  dt = 0.5d0
  do i = 1, n
    h(i, 1) = x(3) * (1.0d0 - 0.5d0 * sin(6.2831853d0 * i / n)**2)
  end do
  do t = 1, nsteps
    q(1:n-1) = x(2) * (0.5d0 * (h(2:n, t) + h(1:n-1, t)))**3 * (h(2:n, t) - h(1:n-1, t))
    h(2:n-1, t+1) = h(2:n-1, t) + dt * (q(2:n-1) - q(1:n-2)) &
         + dt * x(1) * (0.8d0 - h(2:n-1, t))
    h(1, t+1) = 0.0d0
    h(n, t+1) = 0.0d0
  end do
  y(1) = maxval(h(:, nsteps + 1))
  y(2) = sum(h(:, nsteps + 1))
  deallocate(h, q)
  !$openad DEPENDENT(y)
end subroutine head
