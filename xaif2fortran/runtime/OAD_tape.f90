! Tapes for the reverse mode: typed stacks (real(8), integer, logical) for
! the tape proper (partials, addresses, branch ids, loop counts) and for
! checkpoints (argument / result store and restore). Each stack is a
! public module array, a public next-free index and a public size, so the
! back end can inline push and pop:
!   if (oad_dt_ptr > oad_dt_sz) call oad_dt_grow()
!   oad_dt(oad_dt_ptr) = x; oad_dt_ptr = oad_dt_ptr + 1      (push)
!   oad_dt_ptr = oad_dt_ptr - 1; x = oad_dt(oad_dt_ptr)      (pop)
! and reserve room for several pushes with one test:
!   if (oad_dt_ptr + 2 > oad_dt_sz) call oad_dt_grow_to(oad_dt_ptr + 2)
! Indices are 64-bit, so a tape may pass 2**31 entries. A stack that is
! full at least doubles (and starts allocated lazily, so a push before
! tape_init() is not an error).
module OAD_tape
  use, intrinsic :: iso_fortran_env, only: error_unit
  implicit none
  private
  public :: tape_init, oad_tape_init_sized, oad_tape_bytes, &
       oad_tape_allocated_bytes, oad_tape_report, oad_tape_sample, &
       oad_tape_high_water
  public :: oad_dt, oad_dt_ptr, oad_dt_sz, oad_dt_grow, oad_dt_grow_to
  public :: oad_it, oad_it_ptr, oad_it_sz, oad_it_grow, oad_it_grow_to
  public :: oad_lt, oad_lt_ptr, oad_lt_sz, oad_lt_grow, oad_lt_grow_to
  public :: oad_cdt, oad_cdt_ptr, oad_cdt_sz, oad_cdt_grow, oad_cdt_grow_to
  public :: oad_cit, oad_cit_ptr, oad_cit_sz, oad_cit_grow, oad_cit_grow_to
  public :: oad_clt, oad_clt_ptr, oad_clt_sz, oad_clt_grow, oad_clt_grow_to
  public :: oad_snap_push, oad_snap_pop

  ! Initial number of entries per stack.
  integer, parameter :: oad_default_size = 1048576

  ! target: a popped array snapshot is a pointer into it (oad_snap_pop).
  real(8), allocatable, target, save :: oad_dt(:)
  integer(8), save :: oad_dt_ptr = 1, oad_dt_sz = 0
  integer, allocatable, save :: oad_it(:)
  integer(8), save :: oad_it_ptr = 1, oad_it_sz = 0
  logical, allocatable, save :: oad_lt(:)
  integer(8), save :: oad_lt_ptr = 1, oad_lt_sz = 0
  real(8), allocatable, save :: oad_cdt(:)
  integer(8), save :: oad_cdt_ptr = 1, oad_cdt_sz = 0
  integer, allocatable, save :: oad_cit(:)
  integer(8), save :: oad_cit_ptr = 1, oad_cit_sz = 0
  logical, allocatable, save :: oad_clt(:)
  integer(8), save :: oad_clt_ptr = 1, oad_clt_sz = 0

  ! Highest number of bytes in use since the last initialisation.
  integer(8), save :: oad_high_water = 0

  ! Replace the storage of a stack by a larger array (one specific
  ! procedure per element type: Fortran has no type-generic procedures).
  interface oad_resize
    module procedure oad_resize_real, oad_resize_int, oad_resize_bool
  end interface oad_resize

  ! Array snapshots (booster, adjoint/array_snapshots.rs): an array a loop only
  ! reads, pushed whole once after the loop (values on the real tape, then
  ! its bounds on the integer tape) and popped before the reversed loop
  ! into an allocatable copy with the same bounds, which keeps its storage
  ! from one pop to the next while the bounds stay the same.
  interface oad_snap_push
    module procedure oad_snap_push1, oad_snap_push2, oad_snap_push3
  end interface oad_snap_push
  interface oad_snap_pop
    module procedure oad_snap_pop1, oad_snap_pop2, oad_snap_pop3
  end interface oad_snap_pop

contains

  ! Empty all stacks, with the default initial size.
  subroutine tape_init()
    call oad_tape_init_sized(oad_default_size)
  end subroutine tape_init

  ! Empty all stacks, each with room for at least n entries before
  ! growing. Storage from an earlier run that is already large enough is
  ! kept: re-initialising between runs then costs nothing, and the next
  ! taping sweep does not pay for growing the tape again.
  subroutine oad_tape_init_sized(n)
    integer, intent(in) :: n
    integer(8) :: m
    m = max(int(n, 8), 1_8)
    if (oad_dt_sz < m) call oad_resize(oad_dt, oad_dt_sz, 0_8, m, 'oad_dt')
    if (oad_it_sz < m) call oad_resize(oad_it, oad_it_sz, 0_8, m, 'oad_it')
    if (oad_lt_sz < m) call oad_resize(oad_lt, oad_lt_sz, 0_8, m, 'oad_lt')
    if (oad_cdt_sz < m) call oad_resize(oad_cdt, oad_cdt_sz, 0_8, m, 'oad_cdt')
    if (oad_cit_sz < m) call oad_resize(oad_cit, oad_cit_sz, 0_8, m, 'oad_cit')
    if (oad_clt_sz < m) call oad_resize(oad_clt, oad_clt_sz, 0_8, m, 'oad_clt')
    oad_dt_ptr = 1; oad_it_ptr = 1; oad_lt_ptr = 1
    oad_cdt_ptr = 1; oad_cit_ptr = 1; oad_clt_ptr = 1
    oad_high_water = 0
  end subroutine oad_tape_init_sized

  ! Growing stack S: S_grow() makes room for the one push that found S
  ! full, S_grow_to(m) for entries up to index m (a run of pushes or a
  ! whole loop reserved with one test by the generated code). Entries in
  ! use are kept; the size at least doubles, so growing stays amortised.
  subroutine oad_dt_grow()
    call oad_dt_grow_to(oad_dt_sz + 1)
  end subroutine oad_dt_grow
  subroutine oad_dt_grow_to(m)
    integer(8), intent(in) :: m
    call oad_resize(oad_dt, oad_dt_sz, oad_dt_ptr - 1, oad_grown_size(oad_dt_sz, m), 'oad_dt')
  end subroutine oad_dt_grow_to

  subroutine oad_it_grow()
    call oad_it_grow_to(oad_it_sz + 1)
  end subroutine oad_it_grow
  subroutine oad_it_grow_to(m)
    integer(8), intent(in) :: m
    call oad_resize(oad_it, oad_it_sz, oad_it_ptr - 1, oad_grown_size(oad_it_sz, m), 'oad_it')
  end subroutine oad_it_grow_to

  subroutine oad_lt_grow()
    call oad_lt_grow_to(oad_lt_sz + 1)
  end subroutine oad_lt_grow
  subroutine oad_lt_grow_to(m)
    integer(8), intent(in) :: m
    call oad_resize(oad_lt, oad_lt_sz, oad_lt_ptr - 1, oad_grown_size(oad_lt_sz, m), 'oad_lt')
  end subroutine oad_lt_grow_to

  subroutine oad_cdt_grow()
    call oad_cdt_grow_to(oad_cdt_sz + 1)
  end subroutine oad_cdt_grow
  subroutine oad_cdt_grow_to(m)
    integer(8), intent(in) :: m
    call oad_resize(oad_cdt, oad_cdt_sz, oad_cdt_ptr - 1, oad_grown_size(oad_cdt_sz, m), 'oad_cdt')
  end subroutine oad_cdt_grow_to

  subroutine oad_cit_grow()
    call oad_cit_grow_to(oad_cit_sz + 1)
  end subroutine oad_cit_grow
  subroutine oad_cit_grow_to(m)
    integer(8), intent(in) :: m
    call oad_resize(oad_cit, oad_cit_sz, oad_cit_ptr - 1, oad_grown_size(oad_cit_sz, m), 'oad_cit')
  end subroutine oad_cit_grow_to

  subroutine oad_clt_grow()
    call oad_clt_grow_to(oad_clt_sz + 1)
  end subroutine oad_clt_grow
  subroutine oad_clt_grow_to(m)
    integer(8), intent(in) :: m
    call oad_resize(oad_clt, oad_clt_sz, oad_clt_ptr - 1, oad_grown_size(oad_clt_sz, m), 'oad_clt')
  end subroutine oad_clt_grow_to

  ! New size of a stack of sz entries that must hold m: double, at least
  ! 1024 entries, at least m.
  integer(8) function oad_grown_size(sz, m)
    integer(8), intent(in) :: sz, m
    oad_grown_size = max(2_8 * sz, 1024_8, m)
  end function oad_grown_size

  ! The three specific procedures of oad_resize differ only in the type
  ! of the array: a new array of n entries receives the first `used`
  ! entries and replaces a; sz becomes n. Storage holding nothing to keep
  ! is released first, so re-initialising does not need both at once.
  subroutine oad_resize_real(a, sz, used, n, what)
    real(8), allocatable, intent(inout) :: a(:)
    integer(8), intent(inout) :: sz
    integer(8), intent(in) :: used, n
    character(*), intent(in) :: what
    real(8), allocatable :: t(:)
    integer :: stat
    if (used == 0 .and. allocated(a)) deallocate(a)
    allocate(t(n), stat=stat)
    if (stat /= 0) call oad_out_of_memory(what, n, 8_8)
    if (used > 0) t(1:used) = a(1:used)
    call move_alloc(t, a)
    call oad_resized(sz, n)
  end subroutine oad_resize_real

  subroutine oad_resize_int(a, sz, used, n, what)
    integer, allocatable, intent(inout) :: a(:)
    integer(8), intent(inout) :: sz
    integer(8), intent(in) :: used, n
    character(*), intent(in) :: what
    integer, allocatable :: t(:)
    integer :: stat
    if (used == 0 .and. allocated(a)) deallocate(a)
    allocate(t(n), stat=stat)
    if (stat /= 0) call oad_out_of_memory(what, n, 4_8)
    if (used > 0) t(1:used) = a(1:used)
    call move_alloc(t, a)
    call oad_resized(sz, n)
  end subroutine oad_resize_int

  subroutine oad_resize_bool(a, sz, used, n, what)
    logical, allocatable, intent(inout) :: a(:)
    integer(8), intent(inout) :: sz
    integer(8), intent(in) :: used, n
    character(*), intent(in) :: what
    logical, allocatable :: t(:)
    integer :: stat
    if (used == 0 .and. allocated(a)) deallocate(a)
    allocate(t(n), stat=stat)
    if (stat /= 0) call oad_out_of_memory(what, n, 4_8)
    if (used > 0) t(1:used) = a(1:used)
    call move_alloc(t, a)
    call oad_resized(sz, n)
  end subroutine oad_resize_bool

  ! Bookkeeping after a stack got n entries.
  subroutine oad_resized(sz, n)
    integer(8), intent(inout) :: sz
    integer(8), intent(in) :: n
    sz = n
    call oad_note_use()
  end subroutine oad_resized

  ! The allocation of a stack failed: say which and how large, and stop.
  subroutine oad_out_of_memory(what, n, bytes_per_entry)
    character(*), intent(in) :: what
    integer(8), intent(in) :: n, bytes_per_entry
    call oad_note_use()
    ! the byte count as a real: it may not fit in integer(8)
    write(error_unit, '(a, a, a, i0, a, es10.3, a, i0, a)') 'OAD_tape: out of memory growing stack ', &
         what, ' to ', n, ' entries (', real(n, 8) * real(bytes_per_entry, 8), ' bytes; ', &
         oad_high_water, ' bytes of tape in use at most)'
    error stop 'OAD_tape: out of memory'
  end subroutine oad_out_of_memory

  ! Bytes currently on all stacks (entries pushed and not yet popped).
  integer(8) function oad_tape_bytes()
    oad_tape_bytes = 8_8 * (oad_dt_ptr - 1) + 4_8 * (oad_it_ptr - 1) &
         + 4_8 * (oad_lt_ptr - 1) + 8_8 * (oad_cdt_ptr - 1) &
         + 4_8 * (oad_cit_ptr - 1) + 4_8 * (oad_clt_ptr - 1)
  end function oad_tape_bytes

  ! Bytes allocated for all stacks.
  integer(8) function oad_tape_allocated_bytes()
    oad_tape_allocated_bytes = 8_8 * oad_dt_sz + 4_8 * oad_it_sz &
         + 4_8 * oad_lt_sz + 8_8 * oad_cdt_sz + 4_8 * oad_cit_sz &
         + 4_8 * oad_clt_sz
  end function oad_tape_allocated_bytes

  ! Remember the largest use seen (sampled when a stack grows and when
  ! a report is asked for).
  subroutine oad_note_use()
    oad_high_water = max(oad_high_water, oad_tape_bytes())
  end subroutine oad_note_use

  ! Note the current use in the high-water mark (the generated code of
  ! checkpointed loops samples after each snapshot and at each turn,
  ! where their use peaks; a driver may sample where its own peaks).
  subroutine oad_tape_sample()
    call oad_note_use()
  end subroutine oad_tape_sample

  ! The highest use sampled since the last initialisation, in bytes.
  integer(8) function oad_tape_high_water()
    oad_tape_high_water = oad_high_water
  end function oad_tape_high_water

  ! Print the tape use on standard output.
  subroutine oad_tape_report()
    call oad_note_use()
    write(*, '(a, i0, a, i0, a, i0, a)') 'OAD_tape: ', oad_tape_bytes(), &
         ' bytes in use, ', oad_high_water, ' bytes high water, ', &
         oad_tape_allocated_bytes(), ' bytes allocated'
  end subroutine oad_tape_report

  ! Snapshot values go to the real tape column by column (no temporary
  ! for a strided actual such as x%v), then lo and hi to the integer tape.
  subroutine oad_snap_bounds(lo, hi)
    integer, intent(in) :: lo(:), hi(:)
    integer :: k
    if (oad_it_ptr + 2 * size(lo) - 1 > oad_it_sz) &
         call oad_it_grow_to(oad_it_ptr + 2 * size(lo) - 1)
    do k = 1, size(lo)
      oad_it(oad_it_ptr) = lo(k)
      oad_it(oad_it_ptr + 1) = hi(k)
      oad_it_ptr = oad_it_ptr + 2
    end do
  end subroutine oad_snap_bounds

  ! The bounds pushed last, dimension by dimension.
  subroutine oad_snap_pop_bounds(lo, hi)
    integer, intent(out) :: lo(:), hi(:)
    integer :: k
    do k = size(lo), 1, -1
      oad_it_ptr = oad_it_ptr - 2
      lo(k) = oad_it(oad_it_ptr)
      hi(k) = oad_it(oad_it_ptr + 1)
    end do
  end subroutine oad_snap_pop_bounds

  subroutine oad_snap_push1(x, lo, hi)
    real(8), intent(in) :: x(:)
    integer, intent(in) :: lo(1), hi(1)
    if (oad_dt_ptr + size(x, kind=8) - 1 > oad_dt_sz) &
         call oad_dt_grow_to(oad_dt_ptr + size(x, kind=8) - 1)
    oad_dt(oad_dt_ptr:oad_dt_ptr + size(x, kind=8) - 1) = x
    oad_dt_ptr = oad_dt_ptr + size(x, kind=8)
    call oad_snap_bounds(lo, hi)
  end subroutine oad_snap_push1

  subroutine oad_snap_push2(x, lo, hi)
    real(8), intent(in) :: x(:, :)
    integer, intent(in) :: lo(2), hi(2)
    integer :: j
    do j = 1, size(x, 2)
      call oad_snap_push_column(x(:, j))
    end do
    call oad_snap_bounds(lo, hi)
  end subroutine oad_snap_push2

  subroutine oad_snap_push3(x, lo, hi)
    real(8), intent(in) :: x(:, :, :)
    integer, intent(in) :: lo(3), hi(3)
    integer :: j, k
    do k = 1, size(x, 3)
      do j = 1, size(x, 2)
        call oad_snap_push_column(x(:, j, k))
      end do
    end do
    call oad_snap_bounds(lo, hi)
  end subroutine oad_snap_push3

  subroutine oad_snap_push_column(x)
    real(8), intent(in) :: x(:)
    if (oad_dt_ptr + size(x, kind=8) - 1 > oad_dt_sz) &
         call oad_dt_grow_to(oad_dt_ptr + size(x, kind=8) - 1)
    oad_dt(oad_dt_ptr:oad_dt_ptr + size(x, kind=8) - 1) = x
    oad_dt_ptr = oad_dt_ptr + size(x, kind=8)
  end subroutine oad_snap_push_column

  ! A snapshot is popped without copying it: the pointer c is associated
  ! with its values where they lie on the real tape, with the pushed
  ! bounds. Valid until the next push on the real tape (which may
  ! overwrite or move them): the generated code reads a snapshot only in
  ! the reversed loop right after the pop, and a loop that takes a
  ! snapshot has no call in it (docs/adjoint.md, "Array snapshots"), so
  ! nothing pushes in between.
  subroutine oad_snap_pop1(c)
    real(8), pointer, contiguous, intent(inout) :: c(:)
    integer :: lo(1), hi(1)
    integer(8) :: n
    call oad_snap_pop_bounds(lo, hi)
    n = max(0_8, int(hi(1) - lo(1) + 1, 8))
    oad_dt_ptr = oad_dt_ptr - n
    c(lo(1):hi(1)) => oad_dt(oad_dt_ptr:oad_dt_ptr + n - 1)
  end subroutine oad_snap_pop1

  subroutine oad_snap_pop2(c)
    real(8), pointer, contiguous, intent(inout) :: c(:, :)
    integer :: lo(2), hi(2)
    integer(8) :: n
    call oad_snap_pop_bounds(lo, hi)
    n = max(0_8, int(hi(1) - lo(1) + 1, 8)) * max(0_8, int(hi(2) - lo(2) + 1, 8))
    oad_dt_ptr = oad_dt_ptr - n
    c(lo(1):hi(1), lo(2):hi(2)) => oad_dt(oad_dt_ptr:oad_dt_ptr + n - 1)
  end subroutine oad_snap_pop2

  subroutine oad_snap_pop3(c)
    real(8), pointer, contiguous, intent(inout) :: c(:, :, :)
    integer :: lo(3), hi(3)
    integer(8) :: n
    call oad_snap_pop_bounds(lo, hi)
    n = max(0_8, int(hi(1) - lo(1) + 1, 8)) * max(0_8, int(hi(2) - lo(2) + 1, 8)) &
         * max(0_8, int(hi(3) - lo(3) + 1, 8))
    oad_dt_ptr = oad_dt_ptr - n
    c(lo(1):hi(1), lo(2):hi(2), lo(3):hi(3)) => oad_dt(oad_dt_ptr:oad_dt_ptr + n - 1)
  end subroutine oad_snap_pop3

end module OAD_tape
