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

  ! Initial number of entries per stack.
  integer, parameter :: oad_default_size = 1048576

  real(8), allocatable, save :: oad_dt(:)
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

end module OAD_tape
