! Online binomial checkpointing ("revolve": A. Griewank and A. Walther,
! Algorithm 799, ACM TOMS 26(1), 2000) for reversing a loop whose trip
! count is known only when the loop starts. The module computes the
! schedule and nothing else: the generated adjoint code stores, restores
! and runs the loop body as the actions it hands out say.
!
! Numbering. The loop runs iterations 1..steps (steps >= 0); iteration i
! maps the loop state x(i-1) to x(i). "Position p" is the state x(p)
! after p iterations; x(0) is the state on loop entry. The adjoint has to
! run the adjoints of iterations steps, steps-1, ..., 1, each once, and
! the adjoint of iteration i needs its tape, recorded by running
! iteration i from x(i-1).
!
! Use (plans are values of a derived type, so nested loops each drive
! their own):
!   use OAD_revolve
!   type(oad_revolve_plan) :: plan
!   call oad_revolve_start(plan, steps, snaps)
!   do
!     select case (oad_revolve_next(plan))
!     case (OAD_REVOLVE_TAKESHOT)   ! store the state, x(plan%capo), in
!                                   ! snapshot slot plan%check
!     case (OAD_REVOLVE_ADVANCE)    ! run iterations plan%old_capo+1 ..
!                                   ! plan%capo plainly (no taping)
!     case (OAD_REVOLVE_FIRSTRUN)   ! run iteration plan%capo+1 (= steps)
!                                   ! taping it, then its adjoint
!     case (OAD_REVOLVE_YOUTURN)    ! the same for iteration plan%capo+1
!                                   ! of every later turn
!     case (OAD_REVOLVE_RESTORE)    ! state := snapshot slot plan%check,
!                                   ! which holds x(plan%capo)
!     case (OAD_REVOLVE_TERMINATE)  ! every iteration has been adjoined
!       exit
!     case (OAD_REVOLVE_ERROR)      ! bad arguments: plan%message says why
!     end select
!   end do
! The state is at x(plan%capo) before every TAKESHOT, FIRSTRUN and
! YOUTURN and after every ADVANCE and RESTORE. After a turn the state is
! not needed again: the next action is a RESTORE or TERMINATE. Once a
! plan has said TERMINATE (or ERROR) it keeps saying so until it is
! started again (a plan never started says TERMINATE).
!
! Snapshot slots are 1..snaps and used as a stack: the live snapshots
! are always slots 1..k, holding increasing positions; a TAKESHOT writes
! slot k+1 (so the caller may keep its snapshots in an array of snaps
! states, or push them on a stack), a RESTORE reads slot k and keeps it
! live. A snapshot dies, silently, once the iteration it starts has been
! adjoined, and its slot is then written again by a later TAKESHOT. The
! state is never stored right before its own turn, so at most
! min(snaps, steps-1) slots are ever used.
!
! Cost. Only plain iterations (ADVANCE) are counted: every schedule runs
! each iteration taped exactly once. With s snapshots (the one holding
! x(0) included), beta(s, r) = C(s+r, s) is the largest number of
! iterations that can be reversed running no iteration plainly more than
! r times, and for beta(s, r-1) < l <= beta(s, r) the fewest plain
! iterations to reverse l iterations are
!   T(l, s) = r*l - beta(s+1, r-1) = r*l - C(s+r, s+1)
!           = sum over j = 0..r-1 of (l - beta(s, j))
! (T = 0 for l <= 1, l(l-1)/2 for s = 1, l-1 for s >= l-1). This module
! meets T exactly: oad_revolve_max_forward(steps, snaps) is T, and
! oad_revolve_forward_count(plan) counts what a plan made the caller run.
!
! Algorithm (binomial partitioning). Reversing iterations a+1..b
! (l = b-a) from x(a), with s snapshots of which one holds x(a):
!   l = 1: turn (tape and adjoin iteration b; x(a) needs no snapshot);
!   else:  advance m iterations to x(a+m); reverse a+m+1..b with the
!          s-1 other snapshots (storing x(a+m) first unless l-m = 1);
!          then restore x(a) and reverse a+1..a+m with all s snapshots.
! That costs m + T(m, s) + T(l-m, s-1). T(., s) is convex and linear
! with slope r on [beta(s, r-1), beta(s, r)], so it lies above each of
! these lines; adding the line of slope r-1 for the first part and of
! slope r for the rest, Pascal's rule beta(s+1, r-2) + beta(s, r-1) =
! beta(s+1, r-1) makes the bound exactly T(l, s). The split is therefore
! optimal exactly when both parts lie on those pieces:
!   beta(s, r-2)   <= m   <= beta(s, r-1)   (r-1 repetitions, s snapshots)
!   beta(s-1, r-1) <= l-m <= beta(s-1, r)   (r repetitions, s-1 snapshots)
! with r the repetition number of l, the smallest r with beta(s, r) >=
! l. Pascal's rule also shows that these intervals always meet, inside
! 1 <= m <= l-1. We advance by the smallest such m,
!   m = max(1, beta(s, r-2), l - beta(s-1, r)),
! which in our tests writes fewer snapshots than the largest (any m of
! the intersection gives the same forward count). For s = 1 it is l-1:
! rerun from the single snapshot before every turn. beta(s-1, .) comes
! from beta(s, .) by Pascal's rule: beta(s-1, j) = beta(s, j) -
! beta(s, j-1).
!
! Online form. A plan keeps the positions of its live snapshots (the
! stack above), fine, the iteration to adjoin next (fine+1..steps are
! done), and capo, the position of the state. Each oad_revolve_next:
!   - after a turn: fine := fine-1; drop the top snapshot if it holds
!     x(fine) (it only served iteration fine+1); TERMINATE if fine = 0,
!     else RESTORE the top snapshot;
!   - fine = capo+1: turn (FIRSTRUN the first time);
!   - the top snapshot does not hold x(capo): TAKESHOT;
!   - else ADVANCE by the m above for l = fine-capo and s = snaps minus
!     the live snapshots below the top one.
! A call costs O(r) integer operations (O(1) for s = 1), so the work of
! the schedule itself grows like the r*l iterations it asks for, with a
! much smaller constant. Binomials are 64-bit and only ever computed
! below l*(s+r), so steps and snaps up to huge(0) cannot overflow.
! Nothing is allocated per step: oad_revolve_start
! allocates the position stack, min(snaps, steps) integers, once (and
! keeps it when a plan is started again and it is large enough).
module OAD_revolve
  implicit none
  private
  public :: oad_revolve_plan, oad_revolve_start, oad_revolve_next, &
       oad_revolve_max_forward, oad_revolve_forward_count, &
       oad_revolve_peak_snapshots, oad_revolve_live_snapshots, &
       oad_revolve_action_name
  public :: OAD_REVOLVE_TAKESHOT, OAD_REVOLVE_ADVANCE, &
       OAD_REVOLVE_FIRSTRUN, OAD_REVOLVE_YOUTURN, OAD_REVOLVE_RESTORE, &
       OAD_REVOLVE_TERMINATE, OAD_REVOLVE_ERROR

  ! The actions oad_revolve_next hands out.
  integer, parameter :: OAD_REVOLVE_TAKESHOT = 1
  integer, parameter :: OAD_REVOLVE_ADVANCE = 2
  integer, parameter :: OAD_REVOLVE_FIRSTRUN = 3
  integer, parameter :: OAD_REVOLVE_YOUTURN = 4
  integer, parameter :: OAD_REVOLVE_RESTORE = 5
  integer, parameter :: OAD_REVOLVE_TERMINATE = 6
  integer, parameter :: OAD_REVOLVE_ERROR = 7

  ! Where a plan is between calls.
  integer, parameter :: oad_at_state = 0   ! the state is x(capo)
  integer, parameter :: oad_turned = 1     ! iteration fine was just adjoined
  integer, parameter :: oad_done = 2       ! TERMINATE said
  integer, parameter :: oad_failed = 3     ! ERROR said

  ! One reversal of one loop. The caller reads capo, old_capo, check
  ! and message; the rest belongs to the module.
  type oad_revolve_plan
    integer :: capo = 0          ! position of the state (see the actions)
    integer :: old_capo = 0      ! ADVANCE: the position it starts from
    integer :: check = 0         ! TAKESHOT, RESTORE: the snapshot slot
    character(len=100) :: message = ''  ! ERROR: what is wrong
    integer, private :: steps = 0, snaps = 0
    integer, private :: fine = 0         ! the iteration to adjoin next
    integer, private :: live = 0         ! live snapshots: slots 1..live
    integer, private :: peak = 0         ! most snapshots live at once
    integer, private :: phase = oad_done
    logical, private :: turned_once = .false.
    integer(8), private :: forward = 0   ! plain iterations asked for
    ! pos(k): the position snapshot slot k holds, k = 1..live
    integer, allocatable, private :: pos(:)
  end type oad_revolve_plan

contains

  ! Begin reversing a loop of steps iterations with at most snaps
  ! snapshots. Bad arguments (steps < 0, or snaps < 1 when steps > 1)
  ! make the first oad_revolve_next say ERROR.
  subroutine oad_revolve_start(plan, steps, snaps)
    type(oad_revolve_plan), intent(inout) :: plan
    integer, intent(in) :: steps, snaps
    integer :: room
    plan%steps = steps
    plan%snaps = snaps
    plan%fine = steps
    plan%capo = 0
    plan%old_capo = 0
    plan%check = 0
    plan%live = 0
    plan%peak = 0
    plan%forward = 0
    plan%turned_once = .false.
    plan%message = ''
    plan%phase = oad_at_state
    if (steps < 0) then
      write(plan%message, '(a, i0)') 'OAD_revolve: negative number of steps ', steps
      plan%phase = oad_failed
      return
    end if
    if (steps > 1 .and. snaps < 1) then
      write(plan%message, '(a, i0, a, i0, a)') 'OAD_revolve: ', snaps, &
           ' snapshots cannot reverse ', steps, ' steps (at least 1 needed)'
      plan%phase = oad_failed
      return
    end if
    ! At most min(snaps, steps-1) snapshots are ever live.
    room = max(1, min(snaps, steps))
    if (allocated(plan%pos)) then
      if (size(plan%pos) < room) deallocate(plan%pos)
    end if
    if (.not. allocated(plan%pos)) allocate(plan%pos(room))
  end subroutine oad_revolve_start

  ! The next action for the caller to carry out (see the top of the
  ! module); plan%capo, plan%old_capo and plan%check describe it.
  integer function oad_revolve_next(plan) result(action)
    type(oad_revolve_plan), intent(inout) :: plan
    integer :: m
    select case (plan%phase)
    case (oad_done)
      action = OAD_REVOLVE_TERMINATE
      return
    case (oad_failed)
      action = OAD_REVOLVE_ERROR
      return
    case (oad_turned)
      ! Iteration fine has been adjoined; the snapshot of its input
      ! state, if it is on top, has served its purpose.
      plan%fine = plan%fine - 1
      if (plan%live > 0) then
        if (plan%pos(plan%live) >= plan%fine) plan%live = plan%live - 1
      end if
      if (plan%fine == 0) then
        plan%phase = oad_done
        action = OAD_REVOLVE_TERMINATE
      else if (plan%live == 0) then
        call fail('no snapshot left to restore')
      else
        plan%check = plan%live
        plan%old_capo = plan%capo
        plan%capo = plan%pos(plan%live)
        plan%phase = oad_at_state
        action = OAD_REVOLVE_RESTORE
      end if
      return
    end select

    ! The state is x(capo) and iterations capo+1..fine remain.
    plan%old_capo = plan%capo
    if (plan%fine == 0) then
      ! an empty loop
      plan%phase = oad_done
      action = OAD_REVOLVE_TERMINATE
    else if (plan%fine == plan%capo + 1) then
      if (plan%turned_once) then
        action = OAD_REVOLVE_YOUTURN
      else
        action = OAD_REVOLVE_FIRSTRUN
        plan%turned_once = .true.
      end if
      plan%phase = oad_turned
    else if (plan%live == 0) then
      call take_shot()
    else if (plan%pos(plan%live) /= plan%capo) then
      call take_shot()
    else
      ! The top snapshot holds x(capo); s counts it and the free ones.
      m = oad_binomial_split(plan%fine - plan%capo, plan%snaps - plan%live + 1)
      plan%capo = plan%capo + m
      plan%forward = plan%forward + m
      action = OAD_REVOLVE_ADVANCE
    end if

  contains

    subroutine take_shot()
      if (plan%live >= min(plan%snaps, size(plan%pos))) then
        call fail('snapshots exhausted')
        return
      end if
      plan%live = plan%live + 1
      plan%pos(plan%live) = plan%capo
      plan%check = plan%live
      plan%peak = max(plan%peak, plan%live)
      action = OAD_REVOLVE_TAKESHOT
    end subroutine take_shot

    ! An inconsistency that the schedule rules out: say ERROR for good.
    subroutine fail(what)
      character(*), intent(in) :: what
      plan%message = 'OAD_revolve: internal error: ' // what
      plan%phase = oad_failed
      action = OAD_REVOLVE_ERROR
    end subroutine fail

  end function oad_revolve_next

  ! How far to advance from x(a), a snapshot, to reverse the l >= 2
  ! iterations a+1..a+l optimally with s >= 1 snapshots (the one holding
  ! x(a) included): the smallest m of the binomial rule at the top.
  integer function oad_binomial_split(l, s) result(m)
    integer, intent(in) :: l, s
    integer(8) :: r, b0, b1, b2
    if (s == 1) then
      ! the rule gives l-1; the loop below would take l-1 rounds
      m = l - 1
      return
    end if
    ! r: the repetition number of l; b0, b1, b2 = beta(s, r), beta(s,
    ! r-1), beta(s, r-2), with beta(s, -1) = beta(s, -2) = 0. The
    ! product below stays under l*(s+r): no overflow.
    r = 0
    b0 = 1
    b1 = 0
    b2 = 0
    do while (b0 < l)
      r = r + 1
      b2 = b1
      b1 = b0
      b0 = b0 * (s + r) / r
    end do
    ! beta(s-1, r) = b0 - b1
    m = int(max(1_8, b2, int(l, 8) - (b0 - b1)))
  end function oad_binomial_split

  ! T(steps, snaps), the fewest plain iterations that reverse steps
  ! iterations with snaps snapshots (the formula at the top); -1 if
  ! snaps is too small (< 1 for steps > 1).
  integer(8) function oad_revolve_max_forward(steps, snaps) result(t)
    integer, intent(in) :: steps, snaps
    integer(8) :: l, s, r, b
    l = steps
    s = snaps
    if (l <= 1) then
      t = 0
    else if (s < 1) then
      t = -1
    else if (s == 1) then
      t = l * (l - 1) / 2
    else
      ! T = sum over j < r of (l - beta(s, j)), r the first j with
      ! beta(s, j) >= l.
      t = 0
      r = 0
      b = 1
      do while (b < l)
        t = t + (l - b)
        r = r + 1
        b = b * (s + r) / r
      end do
    end if
  end function oad_revolve_max_forward

  ! Plain iterations the plan has asked for so far (ADVANCE actions).
  integer(8) function oad_revolve_forward_count(plan)
    type(oad_revolve_plan), intent(in) :: plan
    oad_revolve_forward_count = plan%forward
  end function oad_revolve_forward_count

  ! The most snapshots live at once so far.
  integer function oad_revolve_peak_snapshots(plan)
    type(oad_revolve_plan), intent(in) :: plan
    oad_revolve_peak_snapshots = plan%peak
  end function oad_revolve_peak_snapshots

  ! Snapshots live now: slots 1..oad_revolve_live_snapshots(plan).
  integer function oad_revolve_live_snapshots(plan)
    type(oad_revolve_plan), intent(in) :: plan
    oad_revolve_live_snapshots = plan%live
  end function oad_revolve_live_snapshots

  ! The name of an action, for traces and messages.
  function oad_revolve_action_name(action) result(name)
    integer, intent(in) :: action
    character(len=9) :: name
    select case (action)
    case (OAD_REVOLVE_TAKESHOT)
      name = 'takeshot'
    case (OAD_REVOLVE_ADVANCE)
      name = 'advance'
    case (OAD_REVOLVE_FIRSTRUN)
      name = 'firstrun'
    case (OAD_REVOLVE_YOUTURN)
      name = 'youturn'
    case (OAD_REVOLVE_RESTORE)
      name = 'restore'
    case (OAD_REVOLVE_TERMINATE)
      name = 'terminate'
    case (OAD_REVOLVE_ERROR)
      name = 'error'
    case default
      name = 'unknown'
    end select
  end function oad_revolve_action_name

end module OAD_revolve
