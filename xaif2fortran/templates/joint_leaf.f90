! Template for the joint adjoint (-m rj) of a routine that calls no
! routine with an adjoint (a leaf of the call tree). A leaf is not
! checkpointed and re-run: a joint caller runs it taping in its own
! forward sweep (the caller's tape and adjoint sweeps follow each other,
! so the leaf's tape lives no longer than the caller's) and runs its
! adjoint in the caller's reverse sweep, as split mode does. A joint
! caller's forward sweep sets arg_store, its reverse sweep arg_restore.
! Every placeholder appears once (labels and allocation replay are
! generated once per section).
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
