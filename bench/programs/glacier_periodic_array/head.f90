! Benchmark model (bench/): bench/programs/glacier_periodic_loops in array
! syntax: neighbours by cshift, clipping by where (its mask reads the
! array it assigns), the outputs by maxval and sum with a mask. The two
! should cost the same.
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
  forall (i = 1:n) h(i, 1) = x(3) * (1.0d0 - 0.5d0 * sin(6.2831853d0 * i / n)**2)
  do t = 1, nsteps
    q = x(2) * (0.5d0 * (cshift(h(:, t), 1) + h(:, t)))**3 * (cshift(h(:, t), 1) - h(:, t))
    h(:, t + 1) = h(:, t) + dt * (q - cshift(q, -1)) + dt * x(1) * (0.8d0 - h(:, t))
    where (h(:, t + 1) > 0.95d0) h(:, t + 1) = 0.95d0 + 0.5d0 * (h(:, t + 1) - 0.95d0)
  end do
  y(1) = maxval(h(:, nsteps + 1))
  y(2) = sum(h(:, nsteps + 1), mask=h(:, nsteps + 1) > 0.5d0)
  deallocate(h, q)
  !$openad DEPENDENT(y)
end subroutine head
