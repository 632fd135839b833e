! Snapshot slots of loops reversed with binomial checkpointing
! (`!$openad CHECKPOINT BINOMIAL(snapshots=S)`; docs/adjoint.md,
! "Checkpointed loops"). The generated adjoint code drives one
! oad_snapshot_loop per checkpointed loop:
!
!   call oad_snap_start(loop, steps, snaps)
!   do while (action /= OAD_REVOLVE_TERMINATE)
!     action = oad_snap_next(loop)
!     select case (action)
!     case (OAD_REVOLVE_TAKESHOT)
!       call oad_snap_store_begin(loop)
!       ... cp_store_* of every variable of the loop state ...
!       call oad_snap_store_end(loop)
!     case (OAD_REVOLVE_RESTORE)
!       call oad_snap_restore_begin(loop)
!       ... cp_restore_* of the same variables, in reverse order ...
!       call oad_snap_restore_end(loop)
!     case ... (advance, turns: see OAD_revolve)
!     end select
!   end do
!
! The snapshots live on the checkpoint stacks of OAD_tape (oad_cdt,
! oad_cit, oad_clt), above whatever was there when the plan started, so
! the stacks' byte count and high-water mark include them. The schedule
! uses slots 1..k as a stack (OAD_revolve): slot c is written only when
! slots 1..c-1 are live and everything above them is dead, and read with
! slot c on top of the live ones. Slot c spans the stack entries from
! start(:, c) to start(:, c+1)-1 (one column per stack). A store moves
! the stack pointers to the start of its slot (dropping dead slots) and
! pushes; a restore moves them to the end of its slot, pops the state
! back (reaching the slot's start) and moves them to the end again, so
! the slot stays live. Between actions the code of one iteration pushes
! and pops its own checkpoints (argument checkpoints of callees, saves
! around calls) above the slots, balanced within the action.
! At TERMINATE the pointers return to where they were at the start.
module OAD_snapshots
  use, intrinsic :: iso_fortran_env, only: error_unit
  use OAD_tape
  use OAD_rev
  use OAD_revolve
  implicit none
  private
  public :: oad_snapshot_loop, oad_snap_start, oad_snap_next, &
       oad_snap_store_begin, oad_snap_store_end, oad_snap_restore_begin, &
       oad_snap_restore_end, oad_snapshot_forward_steps, &
       oad_snapshot_counters_reset
  public :: OAD_REVOLVE_TAKESHOT, OAD_REVOLVE_ADVANCE, &
       OAD_REVOLVE_FIRSTRUN, OAD_REVOLVE_YOUTURN, OAD_REVOLVE_RESTORE, &
       OAD_REVOLVE_TERMINATE, OAD_REVOLVE_ERROR

  ! The reversal of one execution of a checkpointed loop.
  type oad_snapshot_loop
    type(oad_revolve_plan) :: plan
    ! The mode the generated code switches away from (callees run in
    ! other modes during recomputations and turns).
    type(modetype) :: mode
    ! start(:, c): (oad_cdt_ptr, oad_cit_ptr, oad_clt_ptr) where slot c
    ! begins; start(:, c+1) where it ends once written.
    integer(8), allocatable :: start(:, :)
  end type oad_snapshot_loop

  ! Plain iterations (ADVANCE) run by all plans that terminated since the
  ! last reset: the recomputation cost of checkpointing.
  integer(8), save :: oad_forward_total = 0

contains

  ! Begin reversing a loop of steps iterations with at most snaps
  ! snapshots, the slots above the current checkpoint stacks.
  subroutine oad_snap_start(loop, steps, snaps)
    type(oad_snapshot_loop), intent(inout) :: loop
    integer, intent(in) :: steps, snaps
    integer :: room
    call oad_revolve_start(loop%plan, steps, snaps)
    room = max(1, min(snaps, steps)) + 1
    if (allocated(loop%start)) then
      if (size(loop%start, 2) < room) deallocate(loop%start)
    end if
    if (.not. allocated(loop%start)) allocate(loop%start(3, room))
    loop%start(:, 1) = (/ oad_cdt_ptr, oad_cit_ptr, oad_clt_ptr /)
  end subroutine oad_snap_start

  ! The next action (an OAD_REVOLVE_* code). A schedule error stops the
  ! program with the schedule's message; at TERMINATE the checkpoint
  ! stacks are back where oad_snap_start found them.
  integer function oad_snap_next(loop) result(action)
    type(oad_snapshot_loop), intent(inout) :: loop
    action = oad_revolve_next(loop%plan)
    select case (action)
    case (OAD_REVOLVE_ERROR)
      write(error_unit, '(a)') trim(loop%plan%message)
      error stop 'OAD_snapshots: cannot reverse a checkpointed loop'
    case (OAD_REVOLVE_TERMINATE)
      call seek(loop%start(:, 1))
      oad_forward_total = oad_forward_total + oad_revolve_forward_count(loop%plan)
    end select
  end function oad_snap_next

  ! TAKESHOT: the stores that follow write slot plan%check.
  subroutine oad_snap_store_begin(loop)
    type(oad_snapshot_loop), intent(inout) :: loop
    call seek(loop%start(:, loop%plan%check))
  end subroutine oad_snap_store_begin

  subroutine oad_snap_store_end(loop)
    type(oad_snapshot_loop), intent(inout) :: loop
    loop%start(:, loop%plan%check + 1) = (/ oad_cdt_ptr, oad_cit_ptr, oad_clt_ptr /)
    call oad_tape_sample()
  end subroutine oad_snap_store_end

  ! RESTORE: the restores that follow read slot plan%check (the top live
  ! one), which stays live.
  subroutine oad_snap_restore_begin(loop)
    type(oad_snapshot_loop), intent(inout) :: loop
    call seek(loop%start(:, loop%plan%check + 1))
  end subroutine oad_snap_restore_begin

  subroutine oad_snap_restore_end(loop)
    type(oad_snapshot_loop), intent(inout) :: loop
    call seek(loop%start(:, loop%plan%check + 1))
  end subroutine oad_snap_restore_end

  ! Plain iterations run by the checkpointed loops reversed since the
  ! last reset.
  integer(8) function oad_snapshot_forward_steps()
    oad_snapshot_forward_steps = oad_forward_total
  end function oad_snapshot_forward_steps

  subroutine oad_snapshot_counters_reset()
    oad_forward_total = 0
  end subroutine oad_snapshot_counters_reset

  ! Moves the three checkpoint stack pointers; the stacks never shrink,
  ! so entries below a pointer keep their values.
  subroutine seek(at)
    integer(8), intent(in) :: at(3)
    oad_cdt_ptr = at(1)
    oad_cit_ptr = at(2)
    oad_clt_ptr = at(3)
  end subroutine seek

end module OAD_snapshots
