! Template for the joint adjoint (-m rj) of a routine whose call tree has
! no loop and that calls routines with an adjoint (joint_leaf.f90 is the
! same without mode switches, for routines that call none). No loop (no
! loop in it or in any routine with an adjoint it calls, no recursion)
! means its tape per call is bounded like a statement's, so it is taped in
! its caller's forward sweep and adjoined in its caller's reverse sweep
! (which follows at once in joint mode) instead of being checkpointed and
! re-run. A joint caller's forward sweep calls it with arg_store set, its
! reverse sweep with arg_restore set, and it passes the same on to its own
! callees: already the mode they get, so the mode is switched only when a
! driver calls it with tape and adjoint both set (it then runs both
! sweeps). Every placeholder appears once (labels and allocation replay
! are generated once per section).
subroutine template()
  use OAD_tape
  use OAD_rev
  !$template_pragma_declarations
  type(modetype) :: oad_saved_mode
  logical :: oad_switched
  if (our_rev_mode%plain .and. .not. our_rev_mode%arg_store) then
    !$placeholder 1
  end if
  if (our_rev_mode%arg_store .or. (our_rev_mode%tape .and. .not. our_rev_mode%arg_restore)) then
    ! callees tape: arg_store and plain
    oad_switched = .not. our_rev_mode%arg_store
    if (oad_switched) then
      oad_saved_mode = our_rev_mode
      our_rev_mode = modetype(.true., .false., .false., .false., .true., .false., .false.)
    end if
    !$placeholder 2
    if (oad_switched) our_rev_mode = oad_saved_mode
  end if
  if (our_rev_mode%arg_restore .or. our_rev_mode%adjoint) then
    ! callees run their adjoint sweeps: arg_restore, tape and adjoint
    oad_switched = .not. our_rev_mode%arg_restore
    if (oad_switched) then
      oad_saved_mode = our_rev_mode
      our_rev_mode = modetype(.false., .true., .false., .false., .false., .true., .true.)
    end if
    !$placeholder 3
    if (oad_switched) our_rev_mode = oad_saved_mode
  end if
end subroutine template
