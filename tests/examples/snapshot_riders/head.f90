! Two-phase flow in a pipe (Buckley-Leverett saturation), MacCormack's
! predictor-corrector scheme on a periodic grid, every time level kept in
! w(:, 0:nt). Each face and cell is one straight-line block with
! divisions (the fractional flow), read at a neighbour found through a
! periodic index (ip, im): references that do not mention the loop index.
! - predictor: reads w(i, t) and w(ip, t); the time loop writes only
!   level t+1, so both come from one copy of w taken after the time loop
!   (w(ip, t) rides on the copy w(i, t) justifies);
! - corrector: reads w(i, t) and the predictor, stored as the first guess
!   of level t+1, at w(i, t+1) and w(im, t+1), which the last loop of the
!   step overwrites: those may not ride on the time loop's copy (it holds
!   the corrected values, not the predictor the corrector read).
! A second model (isothermal gas in a periodic pipe, two arrays) reads
! r(i), r(ip), m(i), m(ip) per face like the HLL flux of bench/hllflux.
module pipe_flow
  implicit none
  integer, parameter :: n = 16, nt = 5
contains
  subroutine maccormack(w, mob, c)
    double precision, intent(inout) :: w(n, 0:nt)
    double precision, intent(in) :: mob, c
    double precision :: p(n), wn(n), u0, a, b, fa, fb
    integer :: t, i, ip, im
    do t = 0, nt - 1
      ! predictor: w(ip, t) rides on the copy of w the time loop takes for w(i, t)
      do i = 1, n
        ip = i + 1
        if (ip > n) ip = 1
        u0 = w(i, t)
        b = w(ip, t)
        fa = u0 * u0 / (u0 * u0 + mob * (1.0d0 - u0)**2)
        fb = b * b / (b * b + mob * (1.0d0 - b)**2)
        p(i) = u0 - c * (fb - fa)
      end do
      ! the predictor becomes the first guess of the new level
      do i = 1, n
        w(i, t + 1) = p(i)
      end do
      ! corrector: reads the guess, which the last loop overwrites
      do i = 1, n
        im = i - 1
        if (im < 1) im = n
        u0 = w(i, t)
        a = w(i, t + 1)
        b = w(im, t + 1)
        fa = a * a / (a * a + mob * (1.0d0 - a)**2)
        fb = b * b / (b * b + mob * (1.0d0 - b)**2)
        wn(i) = 0.5d0 * (u0 + a - c * (fa - fb))
      end do
      do i = 1, n
        w(i, t + 1) = wn(i)
      end do
    end do
  end subroutine maccormack

  subroutine gas_steps(r, m, cs, dt)
    double precision, intent(inout) :: r(n), m(n)
    double precision, intent(in) :: cs, dt
    double precision :: fr(n), fm(n), rl, ml, rr, mr, ul, ur, s
    integer :: k, i, ip, im
    do k = 1, 4
      do i = 1, n
        ip = i + 1
        if (ip > n) ip = 1
        rl = r(i)
        ml = m(i)
        rr = r(ip)
        mr = m(ip)
        ul = ml / rl
        ur = mr / rr
        s = max(abs(ul), abs(ur)) + cs
        fr(i) = 0.5d0 * (ml + mr) - 0.5d0 * s * (rr - rl)
        fm(i) = 0.5d0 * (ml * ul + cs * cs * rl + mr * ur + cs * cs * rr) - 0.5d0 * s * (mr - ml)
      end do
      do i = 1, n
        im = i - 1
        if (im < 1) im = n
        r(i) = r(i) - dt * (fr(i) - fr(im))
        m(i) = m(i) - dt * (fm(i) - fm(im))
      end do
    end do
  end subroutine gas_steps
end module pipe_flow

subroutine head(x, y)
  use pipe_flow
  implicit none
  double precision :: x(3), y(3)
  double precision :: w(n, 0:nt), r(n), m(n)
  integer :: i
  !$openad INDEPENDENT(x)
  do i = 1, n
    w(i, 0) = 0.2d0 + x(1) * exp(-0.1d0 * (i - 6)**2)
    r(i) = 1.0d0 + 0.1d0 * x(1) * sin(0.4d0 * i)
    m(i) = x(3) * r(i) * (1.0d0 + 0.05d0 * i)
  end do
  call maccormack(w, x(2), 0.3d0)
  call gas_steps(r, m, 1.0d0 + x(2), 0.05d0)
  y(1) = 0.0d0
  do i = 1, n
    y(1) = y(1) + w(i, nt)**2 * i
  end do
  y(2) = w(3, nt) * w(9, nt - 1)
  y(3) = 0.0d0
  do i = 1, n
    y(3) = y(3) + m(i)**2 / r(i) + r(i) * i
  end do
  !$openad DEPENDENT(y)
end subroutine head
