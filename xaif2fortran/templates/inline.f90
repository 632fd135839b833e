! Inline definitions of the runtime routines the booster calls through
! InlinableSubroutineCall (names as in docs/ARCHITECTURE.md: push_real,
! pop_real, push_int, pop_int, push_bool, pop_bool; the cp_* routines are
! the argument checkpoints the back end generates for the joint
! template). The back end replaces each call by the body of
! the subroutine of the same name, with the dummy names replaced by the
! actual arguments (values of active variables are passed as x%v, their
! derivatives as x%d when the reference is marked deriv="true").
! The stacks are the public arrays of module OAD_tape.
! Several consecutive pushes to one stack are fused by the back end (one
! capacity test with oad_*_grow_to, one pointer increment; see
! src/codegen/push_runs.rs) as long as push_real, push_int and push_bool are
! these definitions; a changed definition is expanded call by call.

! real(8) scalar on the tape
subroutine push_real(x)
  if (oad_dt_ptr > oad_dt_sz) call oad_dt_grow()
  oad_dt(oad_dt_ptr) = x
  oad_dt_ptr = oad_dt_ptr + 1
end subroutine

subroutine pop_real(x)
  oad_dt_ptr = oad_dt_ptr - 1
  x = oad_dt(oad_dt_ptr)
end subroutine

! real(8) array of any rank on the tape (element order)
subroutine push_real_array(x)
  do while (oad_dt_ptr + size(x) - 1 > oad_dt_sz)
    call oad_dt_grow()
  end do
  oad_dt(oad_dt_ptr:oad_dt_ptr + size(x) - 1) = reshape(x, (/ size(x) /))
  oad_dt_ptr = oad_dt_ptr + size(x)
end subroutine

subroutine pop_real_array(x)
  oad_dt_ptr = oad_dt_ptr - size(x)
  x = reshape(oad_dt(oad_dt_ptr:oad_dt_ptr + size(x) - 1), shape(x))
end subroutine

! integer scalar (addresses, branch ids, loop counts) on the tape
subroutine push_int(x)
  if (oad_it_ptr > oad_it_sz) call oad_it_grow()
  oad_it(oad_it_ptr) = x
  oad_it_ptr = oad_it_ptr + 1
end subroutine

subroutine pop_int(x)
  oad_it_ptr = oad_it_ptr - 1
  x = oad_it(oad_it_ptr)
end subroutine

! logical scalar on the tape
subroutine push_bool(x)
  if (oad_lt_ptr > oad_lt_sz) call oad_lt_grow()
  oad_lt(oad_lt_ptr) = x
  oad_lt_ptr = oad_lt_ptr + 1
end subroutine

subroutine pop_bool(x)
  oad_lt_ptr = oad_lt_ptr - 1
  x = oad_lt(oad_lt_ptr)
end subroutine

! Argument and result checkpoints: store pushes, restore pops. A restore
! writes only where the value differs: an argument whose actual is a
! constant (all arguments are inout for want of better knowledge) is then
! never written.
subroutine cp_store_real_scalar(x)
  if (oad_cdt_ptr > oad_cdt_sz) call oad_cdt_grow()
  oad_cdt(oad_cdt_ptr) = x
  oad_cdt_ptr = oad_cdt_ptr + 1
end subroutine

subroutine cp_restore_real_scalar(x)
  oad_cdt_ptr = oad_cdt_ptr - 1
  if (x /= oad_cdt(oad_cdt_ptr)) x = oad_cdt(oad_cdt_ptr)
end subroutine

subroutine cp_store_real_array(x)
  do while (oad_cdt_ptr + size(x) - 1 > oad_cdt_sz)
    call oad_cdt_grow()
  end do
  oad_cdt(oad_cdt_ptr:oad_cdt_ptr + size(x) - 1) = reshape(x, (/ size(x) /))
  oad_cdt_ptr = oad_cdt_ptr + size(x)
end subroutine

subroutine cp_restore_real_array(x)
  oad_cdt_ptr = oad_cdt_ptr - size(x)
  if (any(x /= reshape(oad_cdt(oad_cdt_ptr:oad_cdt_ptr + size(x) - 1), shape(x)))) &
    x = reshape(oad_cdt(oad_cdt_ptr:oad_cdt_ptr + size(x) - 1), shape(x))
end subroutine

! Rank-1 arrays need no reshape; active values (x%v) are never
! constants, so their restores write unconditionally.
subroutine cp_store_real_vector(x)
  do while (oad_cdt_ptr + size(x) - 1 > oad_cdt_sz)
    call oad_cdt_grow()
  end do
  oad_cdt(oad_cdt_ptr:oad_cdt_ptr + size(x) - 1) = x
  oad_cdt_ptr = oad_cdt_ptr + size(x)
end subroutine

subroutine cp_restore_real_vector(x)
  oad_cdt_ptr = oad_cdt_ptr - size(x)
  if (any(x /= oad_cdt(oad_cdt_ptr:oad_cdt_ptr + size(x) - 1))) &
    x = oad_cdt(oad_cdt_ptr:oad_cdt_ptr + size(x) - 1)
end subroutine

subroutine cp_restore_real_vector_active(x)
  oad_cdt_ptr = oad_cdt_ptr - size(x)
  x = oad_cdt(oad_cdt_ptr:oad_cdt_ptr + size(x) - 1)
end subroutine

subroutine cp_restore_real_array_active(x)
  oad_cdt_ptr = oad_cdt_ptr - size(x)
  x = reshape(oad_cdt(oad_cdt_ptr:oad_cdt_ptr + size(x) - 1), shape(x))
end subroutine

subroutine cp_store_integer_scalar(x)
  if (oad_cit_ptr > oad_cit_sz) call oad_cit_grow()
  oad_cit(oad_cit_ptr) = x
  oad_cit_ptr = oad_cit_ptr + 1
end subroutine

subroutine cp_restore_integer_scalar(x)
  oad_cit_ptr = oad_cit_ptr - 1
  if (x /= oad_cit(oad_cit_ptr)) x = oad_cit(oad_cit_ptr)
end subroutine

subroutine cp_store_bool_scalar(x)
  if (oad_clt_ptr > oad_clt_sz) call oad_clt_grow()
  oad_clt(oad_clt_ptr) = x
  oad_clt_ptr = oad_clt_ptr + 1
end subroutine

subroutine cp_restore_bool_scalar(x)
  oad_clt_ptr = oad_clt_ptr - 1
  if (x .neqv. oad_clt(oad_clt_ptr)) x = oad_clt(oad_clt_ptr)
end subroutine

subroutine cp_store_integer_array(x)
  do while (oad_cit_ptr + size(x) - 1 > oad_cit_sz)
    call oad_cit_grow()
  end do
  oad_cit(oad_cit_ptr:oad_cit_ptr + size(x) - 1) = reshape(x, (/ size(x) /))
  oad_cit_ptr = oad_cit_ptr + size(x)
end subroutine

subroutine cp_restore_integer_array(x)
  oad_cit_ptr = oad_cit_ptr - size(x)
  if (any(x /= reshape(oad_cit(oad_cit_ptr:oad_cit_ptr + size(x) - 1), shape(x)))) &
    x = reshape(oad_cit(oad_cit_ptr:oad_cit_ptr + size(x) - 1), shape(x))
end subroutine

subroutine cp_store_bool_array(x)
  do while (oad_clt_ptr + size(x) - 1 > oad_clt_sz)
    call oad_clt_grow()
  end do
  oad_clt(oad_clt_ptr:oad_clt_ptr + size(x) - 1) = reshape(x, (/ size(x) /))
  oad_clt_ptr = oad_clt_ptr + size(x)
end subroutine

subroutine cp_restore_bool_array(x)
  oad_clt_ptr = oad_clt_ptr - size(x)
  if (any(x .neqv. reshape(oad_clt(oad_clt_ptr:oad_clt_ptr + size(x) - 1), shape(x)))) &
    x = reshape(oad_clt(oad_clt_ptr:oad_clt_ptr + size(x) - 1), shape(x))
end subroutine

! Binomially checkpointed loops (booster: adjoint/checkpointed_loops.rs;
! runtime: OAD_snapshots, OAD_revolve). `loop` is the loop's
! type(oad_snapshot_loop) temporary; the state's variables themselves
! are stored and restored with oad_state_store / oad_state_restore,
! which the back end expands through the cp_store_* / cp_restore_*
! definitions above according to each variable's declaration.
subroutine oad_snapshot_start(loop, steps, snaps)
  call oad_snap_start(loop, steps, snaps)
end subroutine

subroutine oad_snapshot_next(loop, action)
  action = oad_snap_next(loop)
end subroutine

subroutine oad_snapshot_store_begin(loop)
  call oad_snap_store_begin(loop)
end subroutine

subroutine oad_snapshot_store_end(loop)
  call oad_snap_store_end(loop)
end subroutine

subroutine oad_snapshot_restore_begin(loop)
  call oad_snap_restore_begin(loop)
end subroutine

subroutine oad_snapshot_restore_end(loop)
  call oad_snap_restore_end(loop)
end subroutine

! ADVANCE: run iterations first..last plainly.
subroutine oad_snapshot_advance_range(loop, first, last)
  first = loop%plan%old_capo + 1
  last = loop%plan%capo
end subroutine

! FIRSTRUN, YOUTURN: tape and adjoin iteration first (= last).
subroutine oad_snapshot_turn_range(loop, first, last)
  first = loop%plan%capo + 1
  last = first
end subroutine

! Mode switches around the code a checkpointed loop runs in another
! sweep's mode. The back end picks the definition for the unit's
! template: `_split` (split template, and any user template in -m rs),
! `_joint` (joint templates, and any user template in -m rj); the
! callees then run as they do in that template's own sections.
subroutine oad_mode_save(loop)
  loop%mode = our_rev_mode
end subroutine

subroutine oad_mode_restore(loop)
  our_rev_mode = loop%mode
end subroutine

subroutine oad_mode_plain(loop)
  call OAD_revPlain()
end subroutine

subroutine oad_mode_tape_sweep_split(loop)
  call OAD_revTape()
end subroutine

subroutine oad_mode_tape_sweep_joint(loop)
  call OAD_revPlain()
  call OAD_revArgStore()
end subroutine

! The tape of one iteration is complete: its size peaks here.
subroutine oad_mode_adjoint_sweep_split(loop)
  call oad_tape_sample()
  call OAD_revAdjoint()
end subroutine

subroutine oad_mode_adjoint_sweep_joint(loop)
  call oad_tape_sample()
  call OAD_revJoint()
  call OAD_revArgRestore()
end subroutine
