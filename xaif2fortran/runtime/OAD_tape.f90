! Tapes for the reverse mode: typed stacks (real(8), integer, logical) for
! the tape proper (partials, addresses, branch ids, loop counts) and for
! checkpoints (argument / result store and restore). Each stack is a
! public module array, a public next-free index and a public size, so the
! back end can inline push and pop:
!   if (oad_dt_ptr > oad_dt_sz) call oad_dt_grow()
!   oad_dt(oad_dt_ptr) = x; oad_dt_ptr = oad_dt_ptr + 1      (push)
!   oad_dt_ptr = oad_dt_ptr - 1; x = oad_dt(oad_dt_ptr)      (pop)
! Indices are 64-bit, so a tape may pass 2**31 entries. A stack that is full doubles (and starts allocated lazily, so a push
! before tape_init() is not an error).
module OAD_tape
  implicit none
  private
  public :: tape_init, oad_tape_init_sized, oad_tape_bytes, &
       oad_tape_allocated_bytes, oad_tape_report
  public :: oad_dt, oad_dt_ptr, oad_dt_sz, oad_dt_grow
  public :: oad_it, oad_it_ptr, oad_it_sz, oad_it_grow
  public :: oad_lt, oad_lt_ptr, oad_lt_sz, oad_lt_grow
  public :: oad_cdt, oad_cdt_ptr, oad_cdt_sz, oad_cdt_grow
  public :: oad_cit, oad_cit_ptr, oad_cit_sz, oad_cit_grow
  public :: oad_clt, oad_clt_ptr, oad_clt_sz, oad_clt_grow

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
    if (oad_dt_sz < m) then
      if (allocated(oad_dt)) deallocate(oad_dt)
      allocate(oad_dt(m)); oad_dt_sz = m
    end if
    if (oad_it_sz < m) then
      if (allocated(oad_it)) deallocate(oad_it)
      allocate(oad_it(m)); oad_it_sz = m
    end if
    if (oad_lt_sz < m) then
      if (allocated(oad_lt)) deallocate(oad_lt)
      allocate(oad_lt(m)); oad_lt_sz = m
    end if
    if (oad_cdt_sz < m) then
      if (allocated(oad_cdt)) deallocate(oad_cdt)
      allocate(oad_cdt(m)); oad_cdt_sz = m
    end if
    if (oad_cit_sz < m) then
      if (allocated(oad_cit)) deallocate(oad_cit)
      allocate(oad_cit(m)); oad_cit_sz = m
    end if
    if (oad_clt_sz < m) then
      if (allocated(oad_clt)) deallocate(oad_clt)
      allocate(oad_clt(m)); oad_clt_sz = m
    end if
    oad_dt_ptr = 1; oad_it_ptr = 1; oad_lt_ptr = 1
    oad_cdt_ptr = 1; oad_cit_ptr = 1; oad_clt_ptr = 1
    oad_high_water = 0
  end subroutine oad_tape_init_sized

  ! New size of a full stack: double, at least 1024 entries.
  integer(8) function oad_grown_size(sz)
    integer(8), intent(in) :: sz
    oad_grown_size = max(2_8 * sz, 1024_8)
  end function oad_grown_size

  subroutine oad_dt_grow()
    real(8), allocatable :: t(:)
    integer(8) :: n
    n = oad_grown_size(oad_dt_sz)
    allocate(t(n))
    if (oad_dt_sz > 0) t(1:oad_dt_sz) = oad_dt(1:oad_dt_sz)
    call move_alloc(t, oad_dt)
    oad_dt_sz = n
    call oad_note_use()
  end subroutine oad_dt_grow

  subroutine oad_it_grow()
    integer, allocatable :: t(:)
    integer(8) :: n
    n = oad_grown_size(oad_it_sz)
    allocate(t(n))
    if (oad_it_sz > 0) t(1:oad_it_sz) = oad_it(1:oad_it_sz)
    call move_alloc(t, oad_it)
    oad_it_sz = n
    call oad_note_use()
  end subroutine oad_it_grow

  subroutine oad_lt_grow()
    logical, allocatable :: t(:)
    integer(8) :: n
    n = oad_grown_size(oad_lt_sz)
    allocate(t(n))
    if (oad_lt_sz > 0) t(1:oad_lt_sz) = oad_lt(1:oad_lt_sz)
    call move_alloc(t, oad_lt)
    oad_lt_sz = n
    call oad_note_use()
  end subroutine oad_lt_grow

  subroutine oad_cdt_grow()
    real(8), allocatable :: t(:)
    integer(8) :: n
    n = oad_grown_size(oad_cdt_sz)
    allocate(t(n))
    if (oad_cdt_sz > 0) t(1:oad_cdt_sz) = oad_cdt(1:oad_cdt_sz)
    call move_alloc(t, oad_cdt)
    oad_cdt_sz = n
    call oad_note_use()
  end subroutine oad_cdt_grow

  subroutine oad_cit_grow()
    integer, allocatable :: t(:)
    integer(8) :: n
    n = oad_grown_size(oad_cit_sz)
    allocate(t(n))
    if (oad_cit_sz > 0) t(1:oad_cit_sz) = oad_cit(1:oad_cit_sz)
    call move_alloc(t, oad_cit)
    oad_cit_sz = n
    call oad_note_use()
  end subroutine oad_cit_grow

  subroutine oad_clt_grow()
    logical, allocatable :: t(:)
    integer(8) :: n
    n = oad_grown_size(oad_clt_sz)
    allocate(t(n))
    if (oad_clt_sz > 0) t(1:oad_clt_sz) = oad_clt(1:oad_clt_sz)
    call move_alloc(t, oad_clt)
    oad_clt_sz = n
    call oad_note_use()
  end subroutine oad_clt_grow

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

  ! Print the tape use on standard output.
  subroutine oad_tape_report()
    call oad_note_use()
    write(*, '(a, i0, a, i0, a, i0, a)') 'OAD_tape: ', oad_tape_bytes(), &
         ' bytes in use, ', oad_high_water, ' bytes high water, ', &
         oad_tape_allocated_bytes(), ' bytes allocated'
  end subroutine oad_tape_report

end module OAD_tape
