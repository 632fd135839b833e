! Default subroutine template for the split adjoint (-m rs).
! Expansion (see docs/backend.md): the unit header replaces the
! 'subroutine template()' line; the use statements before the declarations
! pragma follow the header; the unit's declarations replace the pragma;
! '!$placeholder N' is replaced by the booster's Replacement N
! (1 plain, 2 tape = forward sweep, 3 adjoint = reverse sweep);
! '!$placeholder arg_store' / 'arg_restore' by checkpoint code for the
! arguments that the back end generates.
! Split: callees run in the caller's mode, so one call in tape mode tapes
! the whole call tree and one call in adjoint mode reverses it.
subroutine template()
  use OAD_tape
  use OAD_rev
  !$template_pragma_declarations
  if (our_rev_mode%plain) then
    !$placeholder 1
  end if
  if (our_rev_mode%tape) then
    !$placeholder 2
  end if
  if (our_rev_mode%adjoint) then
    !$placeholder 3
  end if
end subroutine template
