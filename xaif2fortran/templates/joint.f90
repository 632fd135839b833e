! Default subroutine template for the joint adjoint (-m rj).
! Same expansion rules as split.f90. With tape and adjoint both set the
! routine runs its forward sweep and then its reverse sweep in one call.
! The argument store / restore sections let a caller checkpoint the
! arguments in its forward sweep and restore them before re-running this
! routine in its reverse sweep.
subroutine template()
  use OAD_tape
  use OAD_rev
  !$template_pragma_declarations
  if (our_rev_mode%arg_store) then
    !$placeholder_pragma$ id=4
  end if
  if (our_rev_mode%arg_restore) then
    !$placeholder_pragma$ id=5
  end if
  if (our_rev_mode%plain) then
    !$placeholder_pragma$ id=1
  end if
  if (our_rev_mode%tape) then
    !$placeholder_pragma$ id=2
  end if
  if (our_rev_mode%res_store) then
    !$placeholder_pragma$ id=6
  end if
  if (our_rev_mode%res_restore) then
    !$placeholder_pragma$ id=7
  end if
  if (our_rev_mode%adjoint) then
    !$placeholder_pragma$ id=3
  end if
end subroutine template
