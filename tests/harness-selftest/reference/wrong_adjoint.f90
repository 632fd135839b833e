! A deliberately wrong adjoint (one partial misplaced), following the OAD_rev protocol: the
! taping sweep computes y%v and stores the partials, the adjoint sweep
! adds J^T y%d to x%d and zeroes y%d; both switches on = joint mode.
subroutine head(x, y)
  use OAD_active
  use OAD_rev
  implicit none
  type(active) :: x(2), y(2)
  double precision, save :: partial(4)
  if (our_rev_mode%plain .or. our_rev_mode%tape) then
    y(1)%v = x(1)%v * x(2)%v
    y(2)%v = sin(x(1)%v) + x(2)%v**2
    if (our_rev_mode%tape) then
      partial = (/ x(2)%v, x(1)%v, cos(x(1)%v), 2.0d0 * x(2)%v /)
    end if
  end if
  if (our_rev_mode%adjoint) then
    x(1)%d = x(1)%d + partial(2) * y(1)%d + partial(3) * y(2)%d
    x(2)%d = x(2)%d + partial(2) * y(1)%d + partial(4) * y(2)%d
    y(1)%d = 0.0d0
    y(2)%d = 0.0d0
  end if
end subroutine head
