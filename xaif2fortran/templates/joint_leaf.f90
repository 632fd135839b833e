! Template for the joint adjoint (-m rj) of a leaf: a routine without
! loops that calls no routine with an adjoint. Like joint_loop_free.f90
! (read it first) but with no callee to pass a mode to, so it never
! switches modes: a joint caller's forward sweep calls it with arg_store
! set (tape), its reverse sweep with arg_restore set (adjoint); a driver's
! call with tape and adjoint both set runs both sweeps.
subroutine template()
  use OAD_tape
  use OAD_rev
  !$template_pragma_declarations
  if (our_rev_mode%plain .and. .not. our_rev_mode%arg_store) then
    !$placeholder 1
  end if
  if (our_rev_mode%arg_store .or. (our_rev_mode%tape .and. .not. our_rev_mode%arg_restore)) then
    !$placeholder 2
  end if
  if (our_rev_mode%arg_restore .or. our_rev_mode%adjoint) then
    !$placeholder 3
  end if
end subroutine template
