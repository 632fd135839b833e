! Benchmark model (bench/): tracer2d (bench/programs/tracer2d) written with
! derived types, as model code often keeps its state: the concentration
! fields are components of a `tracer_state`, the physical parameters of a
! `flow_params`; same numerics, same outputs. Compared with tracer2d, the
! derivative code should cost the same (issue 10: within 10 %).
! Parameters: x(1) plume amplitude, x(2) flow speed, x(3) reaction rate,
! x(4) background concentration. Outputs: total mass, a point value.
module tracer_size
  implicit none
  integer, parameter :: n = 300 ! bench-size
  integer, parameter :: nsteps = 40 ! bench-steps
  type flow_params
    double precision :: speed, rate, background
  end type flow_params
  type tracer_state
    double precision :: c(n, n), cn(n, n)
    double precision :: h, dt
  end type tracer_state
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
  type(tracer_state), save :: s
  type(flow_params) :: p
  double precision :: u, v, fx, fy, cc
  integer :: i, j, step, im, ip, jm, jp
  !$openad INDEPENDENT(x)
  p%speed = x(2)
  p%rate = x(3)
  p%background = x(4)
  s%h = 1.0d0 / n
  s%dt = 0.2d0 * s%h
  do j = 1, n
    do i = 1, n
      s%c(i, j) = p%background + x(1) * exp(-((i * s%h - 0.5d0)**2 + (j * s%h - 0.4d0)**2) / 0.02d0)
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
        u = p%speed * sin(6.2831853d0 * (j - 0.5d0) * s%h)
        v = -p%speed * sin(6.2831853d0 * (i - 0.5d0) * s%h)
        if (u > 0.0d0) then
          fx = u * (s%c(i, j) - s%c(im, j))
        else
          fx = u * (s%c(ip, j) - s%c(i, j))
        end if
        if (v > 0.0d0) then
          fy = v * (s%c(i, j) - s%c(i, jm))
        else
          fy = v * (s%c(i, jp) - s%c(i, j))
        end if
        cc = s%c(i, j) - s%dt / s%h * (fx + fy)
        if (mod(step, 2) == 0) call react(cc, p%rate, s%dt, 2)
        s%cn(i, j) = cc
      end do
    end do
    s%c = s%cn
  end do
  y(1) = sum(s%c) * s%h * s%h
  y(2) = s%c(n / 2, n / 3)
  !$openad DEPENDENT(y)
end subroutine head
