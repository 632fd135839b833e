! Shallow water over a sloping bed carrying a tracer: a Rusanov flux per
! face from van Albada limited depths, the momentum divided by the depth in the flux and its
! partials, and an implicit bottom friction solved by Newton iterations per
! cell. Every run of the flux and of the Newton update divides by the same
! depth (or denominator) more than once: the replay of a recomputed run
! shares their reciprocal.
module channel
  implicit none
  integer, parameter :: nc = 12
  double precision, parameter :: grav = 9.81d0
contains
  ! van Albada limited slope (smooth: no kink at a zero difference)
  subroutine limited_slope(dl, dr, s)
    double precision, intent(in) :: dl, dr
    double precision, intent(out) :: s
    s = dl * dr * (dl + dr) / (dl * dl + dr * dr + 1.0d-8)
  end subroutine limited_slope

  ! Rusanov flux between a left and a right state (depth, momentum,
  ! tracer mass)
  subroutine face_flux(hl, ml, cl_, hr, mr, cr_, fh, fm, fc)
    double precision, intent(in) :: hl, ml, cl_, hr, mr, cr_
    double precision, intent(out) :: fh, fm, fc
    double precision :: ul, ur, cl, cr, a
    ul = ml / hl
    ur = mr / hr
    cl = sqrt(grav * hl)
    cr = sqrt(grav * hr)
    a = max(ul + cl, ur + cr)
    fh = 0.5d0 * (ml + mr) - 0.5d0 * a * (hr - hl)
    fm = 0.5d0 * (ml * ml / hl + 0.5d0 * grav * hl * hl + mr * mr / hr &
         + 0.5d0 * grav * hr * hr) - 0.5d0 * a * (mr - ml)
    fc = 0.5d0 * (ml * cl_ / hl + mr * cr_ / hr) - 0.5d0 * a * (cr_ - cl_)
  end subroutine face_flux

  ! implicit friction m_new + dt*cf*m_new*|m_new|/h**2 = m, Newton per cell
  subroutine friction(h, m, dt, cf)
    double precision, intent(in) :: h(nc), dt, cf
    double precision, intent(inout) :: m(nc)
    double precision :: z, g, dg
    integer :: i, k
    do i = 1, nc
      z = m(i)
      do k = 1, 3
        g = z + dt * cf * z * abs(z) / (h(i) * h(i)) - m(i)
        dg = 1.0d0 + 2.0d0 * dt * cf * abs(z) / (h(i) * h(i))
        z = z - g / dg
      end do
      m(i) = z
    end do
  end subroutine friction

  subroutine step(h, m, c, dt, dx, cf)
    double precision, intent(inout) :: h(nc), m(nc), c(nc)
    double precision, intent(in) :: dt, dx, cf
    double precision :: fh(nc), fm(nc), fc(nc), hl, hr, sl, sr
    integer :: i
    fh = 0.0d0
    fm = 0.0d0
    fc = 0.0d0
    do i = 2, nc - 2
      call limited_slope(h(i) - h(i - 1), h(i + 1) - h(i), sl)
      call limited_slope(h(i + 1) - h(i), h(i + 2) - h(i + 1), sr)
      hl = h(i) + 0.5d0 * sl
      hr = h(i + 1) - 0.5d0 * sr
      call face_flux(hl, m(i), c(i), hr, m(i + 1), c(i + 1), fh(i), fm(i), fc(i))
    end do
    h(3:nc - 2) = h(3:nc - 2) - dt / dx * (fh(3:nc - 2) - fh(2:nc - 3))
    m(3:nc - 2) = m(3:nc - 2) - dt / dx * (fm(3:nc - 2) - fm(2:nc - 3))
    c(3:nc - 2) = c(3:nc - 2) - dt / dx * (fc(3:nc - 2) - fc(2:nc - 3))
    call friction(h, m, dt, cf)
  end subroutine step
end module channel

subroutine head(x, y)
  use channel
  implicit none
  double precision, intent(in) :: x(4)
  double precision, intent(out) :: y(3)
  double precision :: h(nc), m(nc), c(nc), dx, dt
  integer :: i, t
  !$openad INDEPENDENT(x)
  dx = 1.0d0 / nc
  dt = 0.2d0 * dx
  do i = 1, nc
    h(i) = 1.0d0 + x(1) * dble(nc - i) / nc + 0.05d0 * x(4) * sin(0.7d0 * i)
  end do
  m = x(2) * h
  c = h * (1.0d0 + 0.1d0 * x(4))
  do t = 1, 8
    call step(h, m, c, dt, dx, x(3))
  end do
  y(1) = sum(h * h) * dx
  y(2) = m(nc / 2)
  y(3) = sum(m * m / h) * dx + sum(c * c / h) * dx
  !$openad DEPENDENT(y)
end subroutine head
