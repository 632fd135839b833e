! Default subroutine template for the split adjoint (-m rs).
! The unit header replaces the 'subroutine template()' line; the lines
! before the declarations pragma (use statements only) follow the header;
! the unit's declarations replace the declarations pragma; each
! placeholder line is replaced by the code of the booster's Replacement
! with that placeholder id:
!   1 plain (original computation)   2 tape (forward sweep, taping)
!   3 adjoint (reverse sweep)        4 argument store   5 argument restore
!   6 result store                   7 result restore
! Missing replacements leave their placeholder empty.
subroutine template()
  use OAD_tape
  use OAD_rev
  !$template_pragma_declarations
  if (our_rev_mode%plain) then
    !$placeholder_pragma$ id=1
  end if
  if (our_rev_mode%tape) then
    !$placeholder_pragma$ id=2
  end if
  if (our_rev_mode%adjoint) then
    !$placeholder_pragma$ id=3
  end if
end subroutine template
