! Benchmark: 1-D viscous Burgers equation on n points, periodic, with an
! upwind convective term whose stencil depends on the sign of u.
! Parameters: x(1) amplitude, x(2) mean velocity, x(3) viscosity.
! Outputs: kinetic energy, value at a quarter of the domain.
module burgers_size
  implicit none
  integer, parameter :: n = 200000 ! bench-size
  integer, parameter :: nsteps = 40
end module burgers_size

subroutine head(x, y)
  use burgers_size
  implicit none
  double precision :: x(3), y(2)
  double precision, allocatable :: u(:), unew(:)
  double precision :: h, dt, conv, diff
  integer :: i, step, left, right
  !$openad INDEPENDENT(x)
  allocate(u(n), unew(n))
  h = 1.0d0 / n
  dt = 0.2d0 * h
  do i = 1, n
    u(i) = x(2) + x(1) * sin(6.2831853d0 * i * h)
  end do
  do step = 1, nsteps
    do i = 1, n
      left = i - 1
      if (left < 1) left = n
      right = i + 1
      if (right > n) right = 1
      if (u(i) > 0.0d0) then
        conv = u(i) * (u(i) - u(left)) / h
      else
        conv = u(i) * (u(right) - u(i)) / h
      end if
      diff = x(3) * (u(left) - 2.0d0 * u(i) + u(right)) / (h * h)
      unew(i) = u(i) + dt * (diff - conv) * 1.0d-3
    end do
    u = unew
  end do
  y(1) = 0.5d0 * sum(u * u) * h
  y(2) = u(n / 4)
  deallocate(u, unew)
  !$openad DEPENDENT(y)
end subroutine head
