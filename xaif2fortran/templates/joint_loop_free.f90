! Template for the joint adjoint (-m rj) of a routine whose call tree has
! no loop and that calls routines with an adjoint (joint_leaf.f90 is the
! same without mode switches, for routines that call none) (no loop in it or in any routine with an adjoint it calls, no
! recursion): its tape per call is bounded like a statement's, so it is
! taped in its caller's forward sweep and adjoined in its caller's reverse
! sweep (which follows at once in joint mode) instead of being
! checkpointed and re-run. A joint caller's forward sweep calls it with
! arg_store set, its reverse sweep with arg_restore set; it passes the
! same on to its own callees. Called by a driver with tape and adjoint
! both set it runs both sweeps. Every placeholder appears once (labels and
! allocation replay are generated once per section).
subroutine template()
  use OAD_tape
  use OAD_rev
  !$template_pragma_declarations
  type(modetype) :: oad_saved_mode
  if (our_rev_mode%plain .and. .not. our_rev_mode%arg_store) then
    !$placeholder 1
  end if
  if (our_rev_mode%arg_store .or. (our_rev_mode%tape .and. .not. our_rev_mode%arg_restore)) then
    oad_saved_mode = our_rev_mode
    ! arg_store and plain: callees tape
    our_rev_mode = modetype(.true., .false., .false., .false., .true., .false., .false.)
    !$placeholder 2
    our_rev_mode = oad_saved_mode
  end if
  if (our_rev_mode%arg_restore .or. our_rev_mode%adjoint) then
    oad_saved_mode = our_rev_mode
    ! arg_restore, tape and adjoint: callees run their adjoint sweeps
    our_rev_mode = modetype(.false., .true., .false., .false., .false., .true., .true.)
    !$placeholder 3
    our_rev_mode = oad_saved_mode
  end if
end subroutine template
