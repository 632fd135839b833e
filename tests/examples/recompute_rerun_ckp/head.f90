! Isothermal gas flow on a periodic grid, stepped in time with the time
! loop reversed by binomial checkpointing (3 snapshots for 30 steps). Each
! step calls two routines with loops (re-run in the joint adjoint's
! reverse sweep from their argument checkpoints): `faces`, a wave-speed
! flux per face, a long straight-line block with sqrt, min and max whose
! partials the adjoint recomputes in the reverse sweep from its few taped
! inputs; `update`, which overwrites the state it reads (m(i) = m(i) - ...,
! r(i) = r(i)*...) and carries a scalar from one cell to the next and from
! one step to the next, so every input is overwritten in later iterations.
module rrc_state
  implicit none
  integer, parameter :: n = 24
  double precision :: r(n), m(n), f(0:n)
  double precision :: gam, dt
end module rrc_state

module rrc_model
  use rrc_state
  implicit none
contains
  subroutine faces()
    integer :: i, ip
    double precision :: rl, rr, ul, ur, cl, cr, sl, sr, fl, fr
    do i = 1, n
      ip = i + 1
      if (ip > n) ip = 1
      rl = r(i)
      rr = r(ip)
      ul = m(i) / rl
      ur = m(ip) / rr
      cl = sqrt(gam * rl)
      cr = sqrt(gam * rr)
      sl = min(ul - cl, ur - cr)
      sr = max(ul + cl, ur + cr)
      fl = m(i) * ul + 0.5d0 * gam * rl * rl
      fr = m(ip) * ur + 0.5d0 * gam * rr * rr
      f(i) = (sr * fl - sl * fr + sl * sr * (m(ip) - m(i))) / (sr - sl)
    end do
    f(0) = f(n)
  end subroutine faces

  subroutine update(carry)
    double precision, intent(inout) :: carry
    integer :: i
    do i = 1, n
      m(i) = m(i) - dt * (f(i) - f(i - 1))
      carry = carry * 0.9d0 + 0.1d0 * m(i) / r(i)
      r(i) = r(i) * (1.0d0 + 0.01d0 * dt * carry)
    end do
  end subroutine update
end module rrc_model

subroutine head(x, y)
  use rrc_model
  implicit none
  double precision :: x(4), y(2)
  double precision :: carry
  integer :: t, i
  !$openad INDEPENDENT(x)
  gam = x(4)
  dt = 0.2d0 / n
  carry = 0.0d0
  do i = 1, n
    r(i) = 1.0d0 + x(1) * exp(-((i - 12.5d0) / 5.0d0)**2)
    m(i) = x(2) * r(i) + 0.1d0 * x(3) * sin(6.2831853d0 * i / n)
  end do
  !$openad CHECKPOINT BINOMIAL(snapshots=3)
  do t = 1, 30
    call faces()
    call update(carry)
  end do
  y(1) = sum(r * r) / n
  y(2) = carry + m(n / 3)
  !$openad DEPENDENT(y)
end subroutine head
