! Benchmark model (bench/): vertical mixing in nx columns of nz levels,
! written with the array intrinsics: the source profile an implied-do
! array constructor, the mixing matrix built by reshape of a constructor,
! each step `c = c + dt * (matmul(a, c) + spread(q, 2, nx))`, an output by
! dot_product. bench/programs/column_loops is the same arithmetic with DO
! loops; the two should cost the same (issue 10).
! Parameters: x(1) mixing rate, x(2) source strength, x(3) initial value.
! Outputs: total and a weighted column value at the end.
module column_size
  implicit none
  integer, parameter :: nx = 40000 ! bench-size
  integer, parameter :: nz = 8
  integer, parameter :: nsteps = 40
end module column_size

subroutine head(x, y)
  use column_size
  implicit none
  double precision :: x(3), y(2)
  double precision :: c(nz, nx), a(nz, nz), q(nz), w(nz)
  double precision :: dt
  integer :: i, k, t
  !$openad INDEPENDENT(x)
  dt = 0.05d0
  w = [(exp(-0.25d0 * k), k = 1, nz)]
  q = x(2) * w
  a = x(1) * reshape([((merge(-2.0d0, merge(1.0d0, 0.0d0, abs(i - k) == 1), i == k), &
       i = 1, nz), k = 1, nz)], [nz, nz])
  do i = 1, nx
    c(:, i) = x(3) * (1.0d0 + 0.5d0 * sin(0.01d0 * i)) * w
  end do
  do t = 1, nsteps
    c = c + dt * (matmul(a, c) + spread(q, 2, nx))
  end do
  y(1) = sum(c)
  y(2) = dot_product(w, c(:, nx / 2))
  !$openad DEPENDENT(y)
end subroutine head
