! Default subroutine template for the joint adjoint (-m rj); expansion
! rules as in split.f90.
! A call with tape and adjoint both set runs the forward sweep with the
! callees in plain mode storing their arguments (arg_store), then the
! reverse sweep in which each callee, reached in reverse, restores its
! arguments (arg_restore) and runs its own forward and reverse sweeps.
subroutine template()
  use OAD_tape
  use OAD_rev
  !$template_pragma_declarations
  type(modetype) :: oad_saved_mode
  if (our_rev_mode%arg_store) then
    !$placeholder arg_store
  end if
  if (our_rev_mode%arg_restore) then
    !$placeholder arg_restore
  end if
  if (our_rev_mode%plain) then
    oad_saved_mode = our_rev_mode
    call OAD_revPlain()
    !$placeholder 1
    our_rev_mode = oad_saved_mode
  end if
  if (our_rev_mode%tape) then
    oad_saved_mode = our_rev_mode
    call OAD_revPlain()
    call OAD_revArgStore()
    !$placeholder 2
    our_rev_mode = oad_saved_mode
  end if
  if (our_rev_mode%adjoint) then
    oad_saved_mode = our_rev_mode
    call OAD_revJoint()
    call OAD_revArgRestore()
    !$placeholder 3
    our_rev_mode = oad_saved_mode
  end if
end subroutine template
