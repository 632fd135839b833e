! Shared by the modules of MPI on active data (OAD_mpi.f90 says what
! they do): the derivative layout of a message (the block between the
! layout markers is swapped for -m fv), packing, the checks of datatypes
! and operations, the stack of the forward sweep's records, and the byte
! counter. Not used by the differentiated program directly.
module OAD_mpi_core
  use mpi
  use OAD_active
  use iso_c_binding, only: c_loc, c_f_pointer
  implicit none
  private
  public :: width, variable_width, in_use, get_dirs, set_dirs, get_d, set_d, zero_d, add_d
  public :: view, check_type, check_op, pack, unpack, agreed_width
  public :: header, message_length, pack_message, unpack_message, received
  public :: sent, push, pop, ignored, winners
  public :: oad_mpi_bytes_sent

  ! Bytes this process passed to MPI send operations through OAD_mpi
  ! (benchmarks: message volume of the derivative code).
  integer(8) :: oad_mpi_bytes_sent = 0

  ! The forward sweep's records, popped in reverse order by the adjoints.
  integer, allocatable :: record(:)
  integer :: record_top = 0

contains

  ! ---- derivative layout (scalar modes; -m fv swaps this block) ----
  ! begin derivative layout
  ! Derivative slots per element a message can carry.
  pure integer function width()
    width = 1
  end function width

  ! Whether the slots in use vary from message to message (-m fv).
  pure logical function variable_width()
    variable_width = .false.
  end function variable_width

  ! Leading elements of a point-to-point message (-m fv: its width).
  pure integer function header()
    header = 0
  end function header

  ! The derivative slots in use among n elements.
  integer function in_use(p, n)
    type(active), intent(in) :: p(:)
    integer, intent(in) :: n
    in_use = 1
  end function in_use

  ! The first w derivative slots of n elements into t, element after
  ! element, and back (set_dirs zeroes the slots past w).
  subroutine get_dirs(p, n, w, t)
    type(active), intent(in) :: p(:)
    integer, intent(in) :: n, w
    real(8), intent(out) :: t(:)
    t(1:n) = p(1:n)%d
  end subroutine get_dirs

  subroutine set_dirs(p, n, w, t)
    type(active), intent(inout) :: p(:)
    integer, intent(in) :: n, w
    real(8), intent(in) :: t(:)
    p(1:n)%d = t(1:n)
  end subroutine set_dirs

  ! Adjoints (scalar modes only).
  subroutine get_d(p, n, t)
    type(active), intent(in) :: p(:)
    integer, intent(in) :: n
    real(8), intent(out) :: t(:)
    t(1:n) = p(1:n)%d
  end subroutine get_d

  subroutine set_d(p, n, t)
    type(active), intent(inout) :: p(:)
    integer, intent(in) :: n
    real(8), intent(in) :: t(:)
    p(1:n)%d = t(1:n)
  end subroutine set_d

  subroutine zero_d(p, n)
    type(active), intent(inout) :: p(:)
    integer, intent(in) :: n
    p(1:n)%d = 0
  end subroutine zero_d

  subroutine add_d(p, n, t)
    type(active), intent(inout) :: p(:)
    integer, intent(in) :: n
    real(8), intent(in) :: t(:)
    p(1:n)%d = p(1:n)%d + t(1:n)
  end subroutine add_d
  ! end derivative layout

  ! ---- helpers ----
  subroutine view(buf, n, p)
    type(active), dimension(..), target, contiguous, intent(in) :: buf
    integer, intent(in) :: n
    type(active), pointer, intent(out) :: p(:)
    call c_f_pointer(c_loc(buf), p, [max(n, 0)])
  end subroutine view

  subroutine check_type(datatype)
    integer, intent(in) :: datatype
    if (datatype /= MPI_DOUBLE_PRECISION .and. datatype /= MPI_REAL8) then
      error stop 'OAD_mpi: an active buffer must be sent as MPI_DOUBLE_PRECISION or MPI_REAL8'
    end if
  end subroutine check_type

  subroutine check_op(op)
    integer, intent(in) :: op
    if (op /= MPI_SUM .and. op /= MPI_MAX .and. op /= MPI_MIN) then
      error stop 'OAD_mpi: reductions of active data support MPI_SUM, MPI_MAX and MPI_MIN only'
    end if
  end subroutine check_op

  ! Values, then w derivative slots per element, of n elements into
  ! t(1:(1 + w) * n).
  subroutine pack(p, n, w, t)
    type(active), intent(in) :: p(:)
    integer, intent(in) :: n, w
    real(8), intent(out) :: t(:)
    t(1:n) = p(1:n)%v
    call get_dirs(p, n, w, t(n + 1:))
  end subroutine pack

  subroutine unpack(p, n, w, t)
    type(active), intent(inout) :: p(:)
    integer, intent(in) :: n, w
    real(8), intent(in) :: t(:)
    p(1:n)%v = t(1:n)
    call set_dirs(p, n, w, t(n + 1:))
  end subroutine unpack

  ! A point-to-point message of n elements: the header (-m fv: the
  ! width w), the values, then w derivative slots per element.
  pure integer function message_length(n, w)
    integer, intent(in) :: n, w
    message_length = header() + (1 + w) * n
  end function message_length

  subroutine pack_message(p, n, w, t)
    type(active), intent(in) :: p(:)
    integer, intent(in) :: n, w
    real(8), intent(out) :: t(:)
    if (header() > 0) t(1) = w
    call pack(p, n, w, t(header() + 1:))
  end subroutine pack_message

  ! Unpacks a received message into p (the receive count is an upper
  ! bound: got, the elements it carried, may be fewer), and makes the
  ! status report got elements of MPI_DOUBLE_PRECISION, as the
  ! original's would.
  subroutine unpack_message(p, st, t, got)
    type(active), intent(inout) :: p(:)
    integer, intent(inout) :: st(MPI_STATUS_SIZE)
    real(8), intent(in) :: t(:)
    integer, intent(out) :: got
    integer :: length, w, ierr
    call MPI_Get_count(st, MPI_DOUBLE_PRECISION, length, ierr)
    w = width()
    if (header() > 0 .and. length > 0) w = nint(t(1))
    got = max(length - header(), 0) / (1 + w)
    call unpack(p, got, w, t(header() + 1:))
    call MPI_Status_set_elements(st, MPI_DOUBLE_PRECISION, got, ierr)
  end subroutine unpack_message

  ! The elements of MPI_DOUBLE_PRECISION a receive got (values only).
  integer function received(st)
    integer, intent(in) :: st(MPI_STATUS_SIZE)
    integer :: ierr
    call MPI_Get_count(st, MPI_DOUBLE_PRECISION, received, ierr)
  end function received

  ! The slots every rank of a collective uses: the most any rank has in
  ! use (ranks that contribute nothing pass 0).
  integer function agreed_width(w, comm)
    integer, intent(in) :: w, comm
    integer :: ierr
    agreed_width = width()
    if (.not. variable_width()) return
    call MPI_Allreduce(w, agreed_width, 1, MPI_INTEGER, MPI_MAX, comm, ierr)
  end function agreed_width

  subroutine sent(n)
    integer, intent(in) :: n
    oad_mpi_bytes_sent = oad_mpi_bytes_sent + 8_8 * n
  end subroutine sent

  subroutine push(i)
    integer, intent(in) :: i
    integer, allocatable :: bigger(:)
    if (.not. allocated(record)) allocate(record(1024))
    if (record_top == size(record)) then
      allocate(bigger(2 * size(record)))
      bigger(1:record_top) = record(1:record_top)
      call move_alloc(bigger, record)
    end if
    record_top = record_top + 1
    record(record_top) = i
  end subroutine push

  integer function pop()
    if (record_top < 1) error stop 'OAD_mpi: reverse sweep found no record of its MPI call'
    pop = record(record_top)
    record_top = record_top - 1
  end function pop

  logical function ignored(status)
    integer, intent(in) :: status(*)
    ignored = loc(status) == loc(MPI_STATUS_IGNORE)
  end function ignored

  ! Per element: the rank whose value won the max/min reduction (ties:
  ! the lowest rank, as MPI_MAXLOC/MPI_MINLOC decide).
  subroutine winners(values, n, op, comm, win)
    real(8), intent(in) :: values(:)
    integer, intent(in) :: n, op, comm
    integer, intent(out) :: win(:)
    real(8) :: pairs(2, n), best(2, n)
    integer :: rank, ierr, locop
    call MPI_Comm_rank(comm, rank, ierr)
    pairs(1, :) = values(1:n)
    pairs(2, :) = rank
    locop = MPI_MAXLOC
    if (op == MPI_MIN) locop = MPI_MINLOC
    call MPI_Allreduce(pairs, best, n, MPI_2DOUBLE_PRECISION, locop, comm, ierr)
    call sent(2 * n)
    win(1:n) = nint(best(2, :))
  end subroutine winners
end module OAD_mpi_core
