! Benchmark model (bench/): 2-D tracer transport on an n x n periodic grid
! with upwind branches in a nested loop, a nonlinear reaction that is
! sub-stepped in an inner loop of a called routine every other step, and a
! branch on the sign of the concentration.
! Parameters: x(1) plume amplitude, x(2) flow speed, x(3) reaction rate,
! x(4) background concentration. Outputs: total mass, a point value.
module tracer_size
  implicit none
  integer, parameter :: n = 300 ! bench-size
  integer, parameter :: nsteps = 40 ! bench-steps
end module tracer_size

subroutine react(c, k, dt, nsub)
  implicit none
  double precision, intent(inout) :: c
  double precision, intent(in) :: k, dt
  integer, intent(in) :: nsub
  integer :: s
  do s = 1, nsub
    if (c > 0.0d0) then
      c = c - dt / nsub * k * c * c / (1.0d0 + c)
    else
      c = c + dt / nsub * k * 0.1d0 * c
    end if
  end do
end subroutine react

subroutine head(x, y)
  use tracer_size
  implicit none
  double precision :: x(4), y(2)
  double precision, allocatable :: c(:, :), cn(:, :)
  double precision :: h, dt, u, v, fx, fy, cc
  integer :: i, j, step, im, ip, jm, jp
  !$openad INDEPENDENT(x)
  allocate(c(n, n), cn(n, n))
  h = 1.0d0 / n
  dt = 0.2d0 * h
  do j = 1, n
    do i = 1, n
      c(i, j) = x(4) + x(1) * exp(-((i * h - 0.5d0)**2 + (j * h - 0.4d0)**2) / 0.02d0)
    end do
  end do
  do step = 1, nsteps
    do j = 1, n
      jm = j - 1
      if (jm < 1) jm = n
      jp = j + 1
      if (jp > n) jp = 1
      do i = 1, n
        im = i - 1
        if (im < 1) im = n
        ip = i + 1
        if (ip > n) ip = 1
        u = x(2) * sin(6.2831853d0 * (j - 0.5d0) * h)
        v = -x(2) * sin(6.2831853d0 * (i - 0.5d0) * h)
        if (u > 0.0d0) then
          fx = u * (c(i, j) - c(im, j))
        else
          fx = u * (c(ip, j) - c(i, j))
        end if
        if (v > 0.0d0) then
          fy = v * (c(i, j) - c(i, jm))
        else
          fy = v * (c(i, jp) - c(i, j))
        end if
        cc = c(i, j) - dt / h * (fx + fy)
        if (mod(step, 2) == 0) call react(cc, x(3), dt, 2)
        cn(i, j) = cc
      end do
    end do
    c = cn
  end do
  y(1) = sum(c) * h * h
  y(2) = c(n / 2, n / 3)
  deallocate(c, cn)
  !$openad DEPENDENT(y)
end subroutine head
