! Benchmark model (bench/): bench/programs/glacier_sections written with DO
! loops instead of array syntax (the same arithmetic in the same order), the
! reference its run-time ratios are compared with.
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
    do i = 1, n - 1
      q(i) = x(2) * (0.5d0 * (h(i + 1, t) + h(i, t)))**3 * (h(i + 1, t) - h(i, t))
    end do
    do i = 2, n - 1
      h(i, t + 1) = h(i, t) + dt * (q(i) - q(i - 1)) + dt * x(1) * (0.8d0 - h(i, t))
    end do
    h(1, t + 1) = 0.0d0
    h(n, t + 1) = 0.0d0
  end do
  y(1) = h(1, nsteps + 1)
  do i = 2, n
    y(1) = max(y(1), h(i, nsteps + 1))
  end do
  y(2) = 0.0d0
  do i = 1, n
    y(2) = y(2) + h(i, nsteps + 1)
  end do
  deallocate(h, q)
  !$openad DEPENDENT(y)
end subroutine head
