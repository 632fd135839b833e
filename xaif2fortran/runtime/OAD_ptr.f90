! Association stacks of active pointers for the adjoint modes
! (docs/adjoint.md, "Pointer associations"). A push keeps a copy of the
! pointer's descriptor (target, bounds, strides, lower bounds: whatever
! the pointer was associated with, an anonymous allocation included), a
! pop makes the pointer that association again. One stack per rank; the
! tape pair (oad_ptr_push/oad_ptr_pop) serves pointer assignments, nullify
! and (de)allocation through a pointer in the forward and reverse sweeps,
! the checkpoint pair (oad_ptr_cp_store/oad_ptr_cp_restore) the argument
! checkpoints of the joint mode. Both are LIFO like the other stacks. The
! checkpoint pair also keeps the associations of passive real(8) pointers
! passed to a routine the joint reverse sweep re-runs (the call site
! restores the association the call had, then the values).
module OAD_ptr
  use OAD_active
  implicit none
  private
  public :: oad_ptr_push, oad_ptr_pop, oad_ptr_cp_store, oad_ptr_cp_restore


  type ptr_r0
    type(active), pointer :: p => null()
  end type ptr_r0
  type stack_r0
    type(ptr_r0), allocatable :: item(:)
    integer :: top = 0
  end type stack_r0
  type(stack_r0), save :: tape_r0, ckp_r0

  type ptr_r1
    type(active), pointer :: p(:) => null()
  end type ptr_r1
  type stack_r1
    type(ptr_r1), allocatable :: item(:)
    integer :: top = 0
  end type stack_r1
  type(stack_r1), save :: tape_r1, ckp_r1

  type ptr_r2
    type(active), pointer :: p(:,:) => null()
  end type ptr_r2
  type stack_r2
    type(ptr_r2), allocatable :: item(:)
    integer :: top = 0
  end type stack_r2
  type(stack_r2), save :: tape_r2, ckp_r2

  type ptr_r3
    type(active), pointer :: p(:,:,:) => null()
  end type ptr_r3
  type stack_r3
    type(ptr_r3), allocatable :: item(:)
    integer :: top = 0
  end type stack_r3
  type(stack_r3), save :: tape_r3, ckp_r3

  type ptr_r4
    type(active), pointer :: p(:,:,:,:) => null()
  end type ptr_r4
  type stack_r4
    type(ptr_r4), allocatable :: item(:)
    integer :: top = 0
  end type stack_r4
  type(stack_r4), save :: tape_r4, ckp_r4

  type ptr_d0
    real(8), pointer :: p => null()
  end type ptr_d0
  type stack_d0
    type(ptr_d0), allocatable :: item(:)
    integer :: top = 0
  end type stack_d0
  type(stack_d0), save :: ckp_d0

  type ptr_d1
    real(8), pointer :: p(:) => null()
  end type ptr_d1
  type stack_d1
    type(ptr_d1), allocatable :: item(:)
    integer :: top = 0
  end type stack_d1
  type(stack_d1), save :: ckp_d1

  type ptr_d2
    real(8), pointer :: p(:,:) => null()
  end type ptr_d2
  type stack_d2
    type(ptr_d2), allocatable :: item(:)
    integer :: top = 0
  end type stack_d2
  type(stack_d2), save :: ckp_d2

  type ptr_d3
    real(8), pointer :: p(:,:,:) => null()
  end type ptr_d3
  type stack_d3
    type(ptr_d3), allocatable :: item(:)
    integer :: top = 0
  end type stack_d3
  type(stack_d3), save :: ckp_d3

  type ptr_d4
    real(8), pointer :: p(:,:,:,:) => null()
  end type ptr_d4
  type stack_d4
    type(ptr_d4), allocatable :: item(:)
    integer :: top = 0
  end type stack_d4
  type(stack_d4), save :: ckp_d4

  interface oad_ptr_push
    module procedure oad_ptr_push_r0, &
         oad_ptr_push_r1, &
         oad_ptr_push_r2, &
         oad_ptr_push_r3, &
         oad_ptr_push_r4
  end interface oad_ptr_push

  interface oad_ptr_pop
    module procedure oad_ptr_pop_r0, &
         oad_ptr_pop_r1, &
         oad_ptr_pop_r2, &
         oad_ptr_pop_r3, &
         oad_ptr_pop_r4
  end interface oad_ptr_pop

  interface oad_ptr_cp_store
    module procedure oad_ptr_cp_store_r0, &
         oad_ptr_cp_store_r1, &
         oad_ptr_cp_store_r2, &
         oad_ptr_cp_store_r3, &
         oad_ptr_cp_store_r4, &
         oad_ptr_cp_store_d0, &
         oad_ptr_cp_store_d1, &
         oad_ptr_cp_store_d2, &
         oad_ptr_cp_store_d3, &
         oad_ptr_cp_store_d4
  end interface oad_ptr_cp_store

  interface oad_ptr_cp_restore
    module procedure oad_ptr_cp_restore_r0, &
         oad_ptr_cp_restore_r1, &
         oad_ptr_cp_restore_r2, &
         oad_ptr_cp_restore_r3, &
         oad_ptr_cp_restore_r4, &
         oad_ptr_cp_restore_d0, &
         oad_ptr_cp_restore_d1, &
         oad_ptr_cp_restore_d2, &
         oad_ptr_cp_restore_d3, &
         oad_ptr_cp_restore_d4
  end interface oad_ptr_cp_restore

contains

  subroutine push_r0(s, p)
    type(stack_r0), intent(inout) :: s
    type(active), pointer, intent(in) :: p
    type(ptr_r0), allocatable :: grown(:)
    if (.not. allocated(s%item)) allocate(s%item(64))
    if (s%top == size(s%item)) then
      allocate(grown(2 * size(s%item)))
      grown(1:s%top) = s%item(1:s%top)
      call move_alloc(grown, s%item)
    end if
    s%top = s%top + 1
    s%item(s%top)%p => p
  end subroutine push_r0

  subroutine pop_r0(s, p)
    type(stack_r0), intent(inout) :: s
    type(active), pointer, intent(inout) :: p
    if (s%top < 1) stop 'OAD: pointer association stack (rank 0) popped empty'
    p => s%item(s%top)%p
    nullify(s%item(s%top)%p)
    s%top = s%top - 1
  end subroutine pop_r0

  subroutine oad_ptr_push_r0(p)
    type(active), pointer, intent(in) :: p
    call push_r0(tape_r0, p)
  end subroutine oad_ptr_push_r0

  subroutine oad_ptr_pop_r0(p)
    type(active), pointer, intent(inout) :: p
    call pop_r0(tape_r0, p)
  end subroutine oad_ptr_pop_r0

  subroutine oad_ptr_cp_store_r0(p)
    type(active), pointer, intent(in) :: p
    call push_r0(ckp_r0, p)
  end subroutine oad_ptr_cp_store_r0

  subroutine oad_ptr_cp_restore_r0(p)
    type(active), pointer, intent(inout) :: p
    call pop_r0(ckp_r0, p)
  end subroutine oad_ptr_cp_restore_r0

  subroutine push_r1(s, p)
    type(stack_r1), intent(inout) :: s
    type(active), pointer, intent(in) :: p(:)
    type(ptr_r1), allocatable :: grown(:)
    if (.not. allocated(s%item)) allocate(s%item(64))
    if (s%top == size(s%item)) then
      allocate(grown(2 * size(s%item)))
      grown(1:s%top) = s%item(1:s%top)
      call move_alloc(grown, s%item)
    end if
    s%top = s%top + 1
    s%item(s%top)%p => p
  end subroutine push_r1

  subroutine pop_r1(s, p)
    type(stack_r1), intent(inout) :: s
    type(active), pointer, intent(inout) :: p(:)
    if (s%top < 1) stop 'OAD: pointer association stack (rank 1) popped empty'
    p => s%item(s%top)%p
    nullify(s%item(s%top)%p)
    s%top = s%top - 1
  end subroutine pop_r1

  subroutine oad_ptr_push_r1(p)
    type(active), pointer, intent(in) :: p(:)
    call push_r1(tape_r1, p)
  end subroutine oad_ptr_push_r1

  subroutine oad_ptr_pop_r1(p)
    type(active), pointer, intent(inout) :: p(:)
    call pop_r1(tape_r1, p)
  end subroutine oad_ptr_pop_r1

  subroutine oad_ptr_cp_store_r1(p)
    type(active), pointer, intent(in) :: p(:)
    call push_r1(ckp_r1, p)
  end subroutine oad_ptr_cp_store_r1

  subroutine oad_ptr_cp_restore_r1(p)
    type(active), pointer, intent(inout) :: p(:)
    call pop_r1(ckp_r1, p)
  end subroutine oad_ptr_cp_restore_r1

  subroutine push_r2(s, p)
    type(stack_r2), intent(inout) :: s
    type(active), pointer, intent(in) :: p(:,:)
    type(ptr_r2), allocatable :: grown(:)
    if (.not. allocated(s%item)) allocate(s%item(64))
    if (s%top == size(s%item)) then
      allocate(grown(2 * size(s%item)))
      grown(1:s%top) = s%item(1:s%top)
      call move_alloc(grown, s%item)
    end if
    s%top = s%top + 1
    s%item(s%top)%p => p
  end subroutine push_r2

  subroutine pop_r2(s, p)
    type(stack_r2), intent(inout) :: s
    type(active), pointer, intent(inout) :: p(:,:)
    if (s%top < 1) stop 'OAD: pointer association stack (rank 2) popped empty'
    p => s%item(s%top)%p
    nullify(s%item(s%top)%p)
    s%top = s%top - 1
  end subroutine pop_r2

  subroutine oad_ptr_push_r2(p)
    type(active), pointer, intent(in) :: p(:,:)
    call push_r2(tape_r2, p)
  end subroutine oad_ptr_push_r2

  subroutine oad_ptr_pop_r2(p)
    type(active), pointer, intent(inout) :: p(:,:)
    call pop_r2(tape_r2, p)
  end subroutine oad_ptr_pop_r2

  subroutine oad_ptr_cp_store_r2(p)
    type(active), pointer, intent(in) :: p(:,:)
    call push_r2(ckp_r2, p)
  end subroutine oad_ptr_cp_store_r2

  subroutine oad_ptr_cp_restore_r2(p)
    type(active), pointer, intent(inout) :: p(:,:)
    call pop_r2(ckp_r2, p)
  end subroutine oad_ptr_cp_restore_r2

  subroutine push_r3(s, p)
    type(stack_r3), intent(inout) :: s
    type(active), pointer, intent(in) :: p(:,:,:)
    type(ptr_r3), allocatable :: grown(:)
    if (.not. allocated(s%item)) allocate(s%item(64))
    if (s%top == size(s%item)) then
      allocate(grown(2 * size(s%item)))
      grown(1:s%top) = s%item(1:s%top)
      call move_alloc(grown, s%item)
    end if
    s%top = s%top + 1
    s%item(s%top)%p => p
  end subroutine push_r3

  subroutine pop_r3(s, p)
    type(stack_r3), intent(inout) :: s
    type(active), pointer, intent(inout) :: p(:,:,:)
    if (s%top < 1) stop 'OAD: pointer association stack (rank 3) popped empty'
    p => s%item(s%top)%p
    nullify(s%item(s%top)%p)
    s%top = s%top - 1
  end subroutine pop_r3

  subroutine oad_ptr_push_r3(p)
    type(active), pointer, intent(in) :: p(:,:,:)
    call push_r3(tape_r3, p)
  end subroutine oad_ptr_push_r3

  subroutine oad_ptr_pop_r3(p)
    type(active), pointer, intent(inout) :: p(:,:,:)
    call pop_r3(tape_r3, p)
  end subroutine oad_ptr_pop_r3

  subroutine oad_ptr_cp_store_r3(p)
    type(active), pointer, intent(in) :: p(:,:,:)
    call push_r3(ckp_r3, p)
  end subroutine oad_ptr_cp_store_r3

  subroutine oad_ptr_cp_restore_r3(p)
    type(active), pointer, intent(inout) :: p(:,:,:)
    call pop_r3(ckp_r3, p)
  end subroutine oad_ptr_cp_restore_r3

  subroutine push_r4(s, p)
    type(stack_r4), intent(inout) :: s
    type(active), pointer, intent(in) :: p(:,:,:,:)
    type(ptr_r4), allocatable :: grown(:)
    if (.not. allocated(s%item)) allocate(s%item(64))
    if (s%top == size(s%item)) then
      allocate(grown(2 * size(s%item)))
      grown(1:s%top) = s%item(1:s%top)
      call move_alloc(grown, s%item)
    end if
    s%top = s%top + 1
    s%item(s%top)%p => p
  end subroutine push_r4

  subroutine pop_r4(s, p)
    type(stack_r4), intent(inout) :: s
    type(active), pointer, intent(inout) :: p(:,:,:,:)
    if (s%top < 1) stop 'OAD: pointer association stack (rank 4) popped empty'
    p => s%item(s%top)%p
    nullify(s%item(s%top)%p)
    s%top = s%top - 1
  end subroutine pop_r4

  subroutine oad_ptr_push_r4(p)
    type(active), pointer, intent(in) :: p(:,:,:,:)
    call push_r4(tape_r4, p)
  end subroutine oad_ptr_push_r4

  subroutine oad_ptr_pop_r4(p)
    type(active), pointer, intent(inout) :: p(:,:,:,:)
    call pop_r4(tape_r4, p)
  end subroutine oad_ptr_pop_r4

  subroutine oad_ptr_cp_store_r4(p)
    type(active), pointer, intent(in) :: p(:,:,:,:)
    call push_r4(ckp_r4, p)
  end subroutine oad_ptr_cp_store_r4

  subroutine oad_ptr_cp_restore_r4(p)
    type(active), pointer, intent(inout) :: p(:,:,:,:)
    call pop_r4(ckp_r4, p)
  end subroutine oad_ptr_cp_restore_r4

  ! Passive real(8) pointers (rank 0): association checkpoints only.
  subroutine oad_ptr_cp_store_d0(p)
    real(8), pointer, intent(in) :: p
    type(ptr_d0), allocatable :: grown(:)
    if (.not. allocated(ckp_d0%item)) allocate(ckp_d0%item(64))
    if (ckp_d0%top == size(ckp_d0%item)) then
      allocate(grown(2 * size(ckp_d0%item)))
      grown(1:ckp_d0%top) = ckp_d0%item(1:ckp_d0%top)
      call move_alloc(grown, ckp_d0%item)
    end if
    ckp_d0%top = ckp_d0%top + 1
    ckp_d0%item(ckp_d0%top)%p => p
  end subroutine oad_ptr_cp_store_d0

  subroutine oad_ptr_cp_restore_d0(p)
    real(8), pointer, intent(inout) :: p
    if (ckp_d0%top < 1) stop 'OAD: passive pointer checkpoint (rank 0) popped empty'
    p => ckp_d0%item(ckp_d0%top)%p
    nullify(ckp_d0%item(ckp_d0%top)%p)
    ckp_d0%top = ckp_d0%top - 1
  end subroutine oad_ptr_cp_restore_d0

  ! Passive real(8) pointers (rank 1): association checkpoints only.
  subroutine oad_ptr_cp_store_d1(p)
    real(8), pointer, intent(in) :: p(:)
    type(ptr_d1), allocatable :: grown(:)
    if (.not. allocated(ckp_d1%item)) allocate(ckp_d1%item(64))
    if (ckp_d1%top == size(ckp_d1%item)) then
      allocate(grown(2 * size(ckp_d1%item)))
      grown(1:ckp_d1%top) = ckp_d1%item(1:ckp_d1%top)
      call move_alloc(grown, ckp_d1%item)
    end if
    ckp_d1%top = ckp_d1%top + 1
    ckp_d1%item(ckp_d1%top)%p => p
  end subroutine oad_ptr_cp_store_d1

  subroutine oad_ptr_cp_restore_d1(p)
    real(8), pointer, intent(inout) :: p(:)
    if (ckp_d1%top < 1) stop 'OAD: passive pointer checkpoint (rank 1) popped empty'
    p => ckp_d1%item(ckp_d1%top)%p
    nullify(ckp_d1%item(ckp_d1%top)%p)
    ckp_d1%top = ckp_d1%top - 1
  end subroutine oad_ptr_cp_restore_d1

  ! Passive real(8) pointers (rank 2): association checkpoints only.
  subroutine oad_ptr_cp_store_d2(p)
    real(8), pointer, intent(in) :: p(:,:)
    type(ptr_d2), allocatable :: grown(:)
    if (.not. allocated(ckp_d2%item)) allocate(ckp_d2%item(64))
    if (ckp_d2%top == size(ckp_d2%item)) then
      allocate(grown(2 * size(ckp_d2%item)))
      grown(1:ckp_d2%top) = ckp_d2%item(1:ckp_d2%top)
      call move_alloc(grown, ckp_d2%item)
    end if
    ckp_d2%top = ckp_d2%top + 1
    ckp_d2%item(ckp_d2%top)%p => p
  end subroutine oad_ptr_cp_store_d2

  subroutine oad_ptr_cp_restore_d2(p)
    real(8), pointer, intent(inout) :: p(:,:)
    if (ckp_d2%top < 1) stop 'OAD: passive pointer checkpoint (rank 2) popped empty'
    p => ckp_d2%item(ckp_d2%top)%p
    nullify(ckp_d2%item(ckp_d2%top)%p)
    ckp_d2%top = ckp_d2%top - 1
  end subroutine oad_ptr_cp_restore_d2

  ! Passive real(8) pointers (rank 3): association checkpoints only.
  subroutine oad_ptr_cp_store_d3(p)
    real(8), pointer, intent(in) :: p(:,:,:)
    type(ptr_d3), allocatable :: grown(:)
    if (.not. allocated(ckp_d3%item)) allocate(ckp_d3%item(64))
    if (ckp_d3%top == size(ckp_d3%item)) then
      allocate(grown(2 * size(ckp_d3%item)))
      grown(1:ckp_d3%top) = ckp_d3%item(1:ckp_d3%top)
      call move_alloc(grown, ckp_d3%item)
    end if
    ckp_d3%top = ckp_d3%top + 1
    ckp_d3%item(ckp_d3%top)%p => p
  end subroutine oad_ptr_cp_store_d3

  subroutine oad_ptr_cp_restore_d3(p)
    real(8), pointer, intent(inout) :: p(:,:,:)
    if (ckp_d3%top < 1) stop 'OAD: passive pointer checkpoint (rank 3) popped empty'
    p => ckp_d3%item(ckp_d3%top)%p
    nullify(ckp_d3%item(ckp_d3%top)%p)
    ckp_d3%top = ckp_d3%top - 1
  end subroutine oad_ptr_cp_restore_d3

  ! Passive real(8) pointers (rank 4): association checkpoints only.
  subroutine oad_ptr_cp_store_d4(p)
    real(8), pointer, intent(in) :: p(:,:,:,:)
    type(ptr_d4), allocatable :: grown(:)
    if (.not. allocated(ckp_d4%item)) allocate(ckp_d4%item(64))
    if (ckp_d4%top == size(ckp_d4%item)) then
      allocate(grown(2 * size(ckp_d4%item)))
      grown(1:ckp_d4%top) = ckp_d4%item(1:ckp_d4%top)
      call move_alloc(grown, ckp_d4%item)
    end if
    ckp_d4%top = ckp_d4%top + 1
    ckp_d4%item(ckp_d4%top)%p => p
  end subroutine oad_ptr_cp_store_d4

  subroutine oad_ptr_cp_restore_d4(p)
    real(8), pointer, intent(inout) :: p(:,:,:,:)
    if (ckp_d4%top < 1) stop 'OAD: passive pointer checkpoint (rank 4) popped empty'
    p => ckp_d4%item(ckp_d4%top)%p
    nullify(ckp_d4%item(ckp_d4%top)%p)
    ckp_d4%top = ckp_d4%top - 1
  end subroutine oad_ptr_cp_restore_d4

end module OAD_ptr
