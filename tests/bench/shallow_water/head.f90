! Benchmark: 1-D shallow water equations, Lax-Friedrichs scheme on n
! cells with reflective walls. Parameters: x(1) bump height, x(2) bump
! width, x(3) bottom friction. Outputs: total energy, height at the
! first gauge, momentum at the second gauge.
module shallow_size
  implicit none
  integer, parameter :: n = 200000 ! bench-size
  integer, parameter :: nsteps = 40
  double precision, parameter :: grav = 9.81d0
end module shallow_size

subroutine head(x, y)
  use shallow_size
  implicit none
  double precision :: x(3), y(3)
  double precision, allocatable :: h(:), q(:), hn(:), qn(:)
  double precision :: dx, dt, fl, fr, gl, gr, xc
  integer :: i, step
  !$openad INDEPENDENT(x)
  allocate(h(0:n + 1), q(0:n + 1), hn(n), qn(n))
  dx = 1.0d0 / n
  dt = 0.1d0 * dx / sqrt(grav * 2.0d0)
  do i = 0, n + 1
    xc = (i - 0.5d0) * dx - 0.5d0
    h(i) = 1.0d0 + x(1) * exp(-(xc / x(2))**2)
    q(i) = 0.0d0
  end do
  do step = 1, nsteps
    h(0) = h(1)
    q(0) = -q(1)
    h(n + 1) = h(n)
    q(n + 1) = -q(n)
    do i = 1, n
      fl = q(i - 1)
      fr = q(i + 1)
      gl = q(i - 1)**2 / h(i - 1) + 0.5d0 * grav * h(i - 1)**2
      gr = q(i + 1)**2 / h(i + 1) + 0.5d0 * grav * h(i + 1)**2
      hn(i) = 0.5d0 * (h(i - 1) + h(i + 1)) - 0.5d0 * dt / dx * (fr - fl)
      qn(i) = 0.5d0 * (q(i - 1) + q(i + 1)) - 0.5d0 * dt / dx * (gr - gl) &
           - dt * x(3) * q(i) * abs(q(i)) / (h(i) * h(i))
    end do
    h(1:n) = hn
    q(1:n) = qn
  end do
  y(1) = 0.0d0
  do i = 1, n
    y(1) = y(1) + (0.5d0 * q(i)**2 / h(i) + 0.5d0 * grav * h(i)**2) * dx
  end do
  y(2) = h(n / 3)
  y(3) = q(n / 2 - n / 10)
  deallocate(h, q, hn, qn)
  !$openad DEPENDENT(y)
end subroutine head
