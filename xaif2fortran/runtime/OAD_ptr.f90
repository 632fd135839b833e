! Association stacks of active pointers for the adjoint modes
! (docs/adjoint.md, "Pointer associations"). A push keeps a copy of the
! pointer's descriptor (target, bounds, strides, lower bounds: whatever
! the pointer was associated with, an anonymous allocation included), a
! pop makes the pointer that association again. One stack per rank; the
! tape pair (oad_ptr_push/oad_ptr_pop) serves pointer assignments, nullify
! and (de)allocation through a pointer in the forward and reverse sweeps,
! the checkpoint pair (oad_ptr_cp_store/oad_ptr_cp_restore) the argument
! checkpoints of the joint mode. Both are LIFO like the other stacks.
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
         oad_ptr_cp_store_r4
  end interface oad_ptr_cp_store

  interface oad_ptr_cp_restore
    module procedure oad_ptr_cp_restore_r0, &
         oad_ptr_cp_restore_r1, &
         oad_ptr_cp_restore_r2, &
         oad_ptr_cp_restore_r3, &
         oad_ptr_cp_restore_r4
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

end module OAD_ptr
