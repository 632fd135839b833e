! Benchmark model (bench/): 1-D Euler equations of gas dynamics on a
! periodic grid, first-order finite volumes with the HLL approximate Riemann
! solver, explicit time steps. The flux at each face is one straight-line
! basic block of ~30 assignments (primitive variables, sound speeds, wave
! speed estimates with min/max, the HLL average) with 6 inputs (the two
! conservative states) and 3 outputs (the flux): basic-block
! preaccumulation (docs/benchmarks.md). The flow stays subsonic, so the
! HLL formula holds at every face without a branch.
! Parameters: x(1) density perturbation, x(2) mean velocity, x(3) mean
! pressure, x(4) ratio of specific heats. Outputs: density at a cell,
! kinetic energy.
module hllflux_size
  implicit none
  integer, parameter :: n = 2000 ! bench-size
  integer, parameter :: nsteps = 40 ! bench-steps
end module hllflux_size

subroutine head(x, y)
  use hllflux_size
  implicit none
  double precision :: x(4), y(2)
  double precision :: q1(n), q2(n), q3(n), f1(n), f2(n), f3(n)
  double precision :: rl, ml, el, rr, mr, er, ul, ur, pl, pr, cl, cr
  double precision :: fl1, fl2, fl3, fr1, fr2, fr3, sl, sr, rs, g, gm1, h, dt, xi
  integer :: i, ip, im, step
  !$openad INDEPENDENT(x)
  g = x(4)
  gm1 = g - 1.0d0
  h = 1.0d0 / n
  dt = 0.2d0 * h
  do i = 1, n
    xi = (i - 0.5d0) * h
    q1(i) = 1.0d0 + x(1) * exp(-100.0d0 * (xi - 0.5d0)**2)
    q2(i) = q1(i) * x(2)
    q3(i) = x(3) / gm1 + 0.5d0 * q1(i) * x(2)**2
  end do
  do step = 1, nsteps
    do i = 1, n
      ip = i + 1
      if (ip > n) ip = 1
      rl = q1(i)
      ml = q2(i)
      el = q3(i)
      rr = q1(ip)
      mr = q2(ip)
      er = q3(ip)
      ul = ml / rl
      ur = mr / rr
      pl = gm1 * (el - 0.5d0 * ml * ul)
      pr = gm1 * (er - 0.5d0 * mr * ur)
      cl = sqrt(g * pl / rl)
      cr = sqrt(g * pr / rr)
      fl1 = ml
      fl2 = ml * ul + pl
      fl3 = ul * (el + pl)
      fr1 = mr
      fr2 = mr * ur + pr
      fr3 = ur * (er + pr)
      sl = min(ul - cl, ur - cr)
      sr = max(ul + cl, ur + cr)
      rs = 1.0d0 / (sr - sl)
      f1(i) = (sr * fl1 - sl * fr1 + sl * sr * (rr - rl)) * rs
      f2(i) = (sr * fl2 - sl * fr2 + sl * sr * (mr - ml)) * rs
      f3(i) = (sr * fl3 - sl * fr3 + sl * sr * (er - el)) * rs
    end do
    do i = 1, n
      im = i - 1
      if (im < 1) im = n
      q1(i) = q1(i) - dt / h * (f1(i) - f1(im))
      q2(i) = q2(i) - dt / h * (f2(i) - f2(im))
      q3(i) = q3(i) - dt / h * (f3(i) - f3(im))
    end do
  end do
  y(1) = q1(n / 3)
  y(2) = 0.0d0
  do i = 1, n
    y(2) = y(2) + 0.5d0 * q2(i)**2 / q1(i) * h
  end do
  !$openad DEPENDENT(y)
end subroutine head
