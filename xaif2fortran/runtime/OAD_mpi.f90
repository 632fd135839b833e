! MPI on active data (docs/user-guide.md, "MPI programs"). The back end
! replaces each MPI call of the user's program that passes real(8) data
! by a call of this module, with the same arguments:
!   oad_mpi_NAME(...)           tangent modes: values and derivatives
!                               travel together in one message per call
!                               (values, then the derivatives)
!   oad_mpi_NAME_fwd(tape, ...) adjoint modes, forward: values only; with
!                               tape, what the reverse sweep needs (the
!                               actual source and tag of a receive, the
!                               winning rank of a max/min reduction) goes
!                               on this module's own stack
!   oad_mpi_NAME_adj(...)       adjoint modes, reverse sweep: the reversed
!                               communication of the adjoints (Utke et
!                               al., adjoinable MPI): a send receives and
!                               increments, a receive sends and zeroes, a
!                               sum reduction sums the adjoints, a
!                               broadcast reduces them to the root
! Buffers are assumed-rank so that a scalar, an element (the start of
! `count` contiguous elements, as MPI reads it), an array or a section
! can be passed; they are viewed as `count` consecutive elements.
module OAD_mpi
  use mpi
  use OAD_active
  use iso_c_binding, only: c_loc, c_f_pointer, c_ptr, c_null_ptr, c_associated
  implicit none
  private
  public :: oad_mpi_send, oad_mpi_recv, oad_mpi_sendrecv, oad_mpi_allreduce, &
       oad_mpi_reduce, oad_mpi_bcast, oad_mpi_gather, oad_mpi_scatter, &
       oad_mpi_allgather
  public :: oad_mpi_send_fwd, oad_mpi_recv_fwd, oad_mpi_sendrecv_fwd, &
       oad_mpi_allreduce_fwd, oad_mpi_reduce_fwd, oad_mpi_bcast_fwd, &
       oad_mpi_gather_fwd, oad_mpi_scatter_fwd, oad_mpi_allgather_fwd
  public :: oad_mpi_send_adj, oad_mpi_recv_adj, oad_mpi_sendrecv_adj, &
       oad_mpi_allreduce_adj, oad_mpi_reduce_adj, oad_mpi_bcast_adj, &
       oad_mpi_gather_adj, oad_mpi_scatter_adj, oad_mpi_allgather_adj
  public :: oad_mpi_isend, oad_mpi_irecv, oad_mpi_wait, oad_mpi_waitall
  public :: oad_mpi_isend_fwd, oad_mpi_irecv_fwd, oad_mpi_wait_fwd, oad_mpi_waitall_fwd
  public :: oad_mpi_isend_adj, oad_mpi_irecv_adj, oad_mpi_wait_adj, oad_mpi_waitall_adj
  public :: oad_mpi_bytes_sent

  ! Bytes this process passed to MPI send operations through this module
  ! (benchmarks: message volume of the derivative code).
  integer(8) :: oad_mpi_bytes_sent = 0

  ! The forward sweep's records, popped in reverse order by the adjoints.
  integer, allocatable :: record(:)
  integer :: record_top = 0

  ! Nonblocking calls on active data: one record per request, from the
  ! isend/irecv to its wait; in the adjoint modes (taped) on to the
  ! reverse sweep, where the adjoint of the wait posts the reversed
  ! operation and the adjoint of the isend/irecv completes it.
  integer, parameter :: nb_free = 0, nb_in_flight = 1, nb_completed = 2, &
       nb_reversed = 3
  type nb_record
    integer :: state = nb_free
    logical :: recv = .false.
    ! Values only (adjoint modes' forward sweep) or values and derivatives.
    logical :: values_only = .false.
    logical :: taped = .false.
    ! MPI request of the operation in flight (forward, then reverse).
    integer :: handle = 0
    ! Peer and tag: for a receive, the actual ones once completed.
    integer :: count = 0, peer = 0, tag = 0, comm = 0
    ! Posting order: the reverse posts in the opposite order.
    integer(8) :: serial = 0
    ! The user's buffer (a receive is unpacked there at its wait, and
    ! its adjoint read there at the adjoint of the wait).
    type(c_ptr) :: buf = c_null_ptr
    ! The packed message in flight.
    real(8), allocatable :: t(:)
  end type nb_record
  type(nb_record), allocatable, target :: nb(:)
  integer(8) :: nb_posted = 0

contains

  ! ---- derivative layout (scalar modes; -m fv swaps this block) ----
  ! begin derivative layout
  pure integer function width()
    width = 1
  end function width

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

  ! Values then derivatives of n elements into t(1:(1+width())*n).
  subroutine pack(p, n, t)
    type(active), intent(in) :: p(:)
    integer, intent(in) :: n
    real(8), intent(out) :: t(:)
    t(1:n) = p(1:n)%v
    call get_d(p, n, t(n + 1:))
  end subroutine pack

  subroutine unpack(p, n, t)
    type(active), intent(inout) :: p(:)
    integer, intent(in) :: n
    real(8), intent(in) :: t(:)
    p(1:n)%v = t(1:n)
    call set_d(p, n, t(n + 1:))
  end subroutine unpack

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

  ! ================= tangent modes =================

  subroutine oad_mpi_send(buf, count, datatype, dest, tag, comm, ierror)
    type(active), dimension(..), target, contiguous, intent(in) :: buf
    integer, intent(in) :: count, datatype, dest, tag, comm
    integer, intent(out) :: ierror
    type(active), pointer :: p(:)
    real(8) :: t((1 + width()) * count)
    call check_type(datatype)
    call view(buf, count, p)
    call pack(p, count, t)
    call MPI_Send(t, size(t), MPI_DOUBLE_PRECISION, dest, tag, comm, ierror)
    call sent(size(t))
  end subroutine oad_mpi_send

  subroutine oad_mpi_recv(buf, count, datatype, source, tag, comm, status, ierror)
    type(active), dimension(..), target, contiguous, intent(inout) :: buf
    integer, intent(in) :: count, datatype, source, tag, comm
    integer :: status(*)
    integer, intent(out) :: ierror
    type(active), pointer :: p(:)
    real(8) :: t((1 + width()) * count)
    integer :: st(MPI_STATUS_SIZE)
    call check_type(datatype)
    call view(buf, count, p)
    call MPI_Recv(t, size(t), MPI_DOUBLE_PRECISION, source, tag, comm, st, ierror)
    if (st(MPI_SOURCE) /= MPI_PROC_NULL) call unpack(p, count, t)
    if (.not. ignored(status)) status(1:MPI_STATUS_SIZE) = st
  end subroutine oad_mpi_recv

  subroutine oad_mpi_sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, &
       recvcount, recvtype, source, recvtag, comm, status, ierror)
    type(active), dimension(..), target, contiguous, intent(in) :: sendbuf
    type(active), dimension(..), target, contiguous, intent(inout) :: recvbuf
    integer, intent(in) :: sendcount, sendtype, dest, sendtag, recvcount, recvtype, &
         source, recvtag, comm
    integer :: status(*)
    integer, intent(out) :: ierror
    type(active), pointer :: p(:), q(:)
    real(8) :: s((1 + width()) * sendcount), r((1 + width()) * recvcount)
    integer :: st(MPI_STATUS_SIZE)
    call check_type(sendtype)
    call check_type(recvtype)
    call view(sendbuf, sendcount, p)
    call view(recvbuf, recvcount, q)
    call pack(p, sendcount, s)
    call MPI_Sendrecv(s, size(s), MPI_DOUBLE_PRECISION, dest, sendtag, r, size(r), &
         MPI_DOUBLE_PRECISION, source, recvtag, comm, st, ierror)
    call sent(size(s))
    if (st(MPI_SOURCE) /= MPI_PROC_NULL) call unpack(q, recvcount, r)
    if (.not. ignored(status)) status(1:MPI_STATUS_SIZE) = st
  end subroutine oad_mpi_sendrecv

  ! Sum: values and derivatives summed together. Max/min: the values
  ! reduced, then each element's derivative taken from the winning rank.
  subroutine tangent_reduce(p, q, count, op, root, comm, ierror)
    type(active), pointer, intent(in) :: p(:), q(:)
    integer, intent(in) :: count, op, root, comm
    integer, intent(out) :: ierror
    real(8) :: t((1 + width()) * count), r((1 + width()) * count)
    integer :: win(count), rank, i, w
    call MPI_Comm_rank(comm, rank, ierror)
    call pack(p, count, t)
    w = width()
    if (op /= MPI_SUM) then
      call winners(t, count, op, comm, win)
      do i = 1, count
        if (win(i) /= rank) t(count + (i - 1) * w + 1:count + i * w) = 0
      end do
      do i = 1, count
        if (win(i) == rank) then
          t(i) = p(i)%v
        else
          t(i) = 0
        end if
      end do
    end if
    if (root < 0) then
      call MPI_Allreduce(t, r, size(t), MPI_DOUBLE_PRECISION, MPI_SUM, comm, ierror)
      call unpack(q, count, r)
    else
      call MPI_Reduce(t, r, size(t), MPI_DOUBLE_PRECISION, MPI_SUM, root, comm, ierror)
      if (rank == root) call unpack(q, count, r)
    end if
    call sent(size(t))
  end subroutine tangent_reduce

  subroutine oad_mpi_allreduce(sendbuf, recvbuf, count, datatype, op, comm, ierror)
    type(active), dimension(..), target, contiguous, intent(in) :: sendbuf
    type(active), dimension(..), target, contiguous, intent(inout) :: recvbuf
    integer, intent(in) :: count, datatype, op, comm
    integer, intent(out) :: ierror
    type(active), pointer :: p(:), q(:)
    call check_type(datatype)
    call check_op(op)
    call view(sendbuf, count, p)
    call view(recvbuf, count, q)
    call tangent_reduce(p, q, count, op, -1, comm, ierror)
  end subroutine oad_mpi_allreduce

  subroutine oad_mpi_reduce(sendbuf, recvbuf, count, datatype, op, root, comm, ierror)
    type(active), dimension(..), target, contiguous, intent(in) :: sendbuf
    type(active), dimension(..), target, contiguous, intent(inout) :: recvbuf
    integer, intent(in) :: count, datatype, op, root, comm
    integer, intent(out) :: ierror
    type(active), pointer :: p(:), q(:)
    integer :: rank
    call check_type(datatype)
    call check_op(op)
    call MPI_Comm_rank(comm, rank, ierror)
    call view(sendbuf, count, p)
    ! The receive buffer means something on the root only.
    call view(recvbuf, merge(count, 0, rank == root), q)
    call tangent_reduce(p, q, count, op, root, comm, ierror)
  end subroutine oad_mpi_reduce

  subroutine oad_mpi_bcast(buffer, count, datatype, root, comm, ierror)
    type(active), dimension(..), target, contiguous, intent(inout) :: buffer
    integer, intent(in) :: count, datatype, root, comm
    integer, intent(out) :: ierror
    type(active), pointer :: p(:)
    real(8) :: t((1 + width()) * count)
    integer :: rank
    call check_type(datatype)
    call MPI_Comm_rank(comm, rank, ierror)
    call view(buffer, count, p)
    if (rank == root) call pack(p, count, t)
    call MPI_Bcast(t, size(t), MPI_DOUBLE_PRECISION, root, comm, ierror)
    if (rank == root) call sent(size(t))
    if (rank /= root) call unpack(p, count, t)
  end subroutine oad_mpi_bcast

  subroutine oad_mpi_gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, &
       root, comm, ierror)
    type(active), dimension(..), target, contiguous, intent(in) :: sendbuf
    type(active), dimension(..), target, contiguous, intent(inout) :: recvbuf
    integer, intent(in) :: sendcount, sendtype, recvcount, recvtype, root, comm
    integer, intent(out) :: ierror
    call gather_tangent(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, &
         root, comm, ierror)
  end subroutine oad_mpi_gather

  subroutine oad_mpi_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, &
       comm, ierror)
    type(active), dimension(..), target, contiguous, intent(in) :: sendbuf
    type(active), dimension(..), target, contiguous, intent(inout) :: recvbuf
    integer, intent(in) :: sendcount, sendtype, recvcount, recvtype, comm
    integer, intent(out) :: ierror
    call gather_tangent(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, &
         -1, comm, ierror)
  end subroutine oad_mpi_allgather

  ! Each rank's block is packed (values, then derivatives); root < 0:
  ! every rank receives (allgather).
  subroutine gather_tangent(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, &
       root, comm, ierror)
    type(active), dimension(..), target, contiguous, intent(in) :: sendbuf
    type(active), dimension(..), target, contiguous, intent(inout) :: recvbuf
    integer, intent(in) :: sendcount, sendtype, recvcount, recvtype, root, comm
    integer, intent(out) :: ierror
    type(active), pointer :: p(:), q(:)
    real(8), allocatable :: t(:), r(:)
    integer :: rank, nprocs, k, b
    call check_type(sendtype)
    call check_type(recvtype)
    call MPI_Comm_rank(comm, rank, ierror)
    call MPI_Comm_size(comm, nprocs, ierror)
    b = (1 + width()) * recvcount
    allocate(t((1 + width()) * sendcount), r(b * nprocs))
    call view(sendbuf, sendcount, p)
    call pack(p, sendcount, t)
    if (root < 0) then
      call MPI_Allgather(t, size(t), MPI_DOUBLE_PRECISION, r, b, MPI_DOUBLE_PRECISION, &
           comm, ierror)
    else
      call MPI_Gather(t, size(t), MPI_DOUBLE_PRECISION, r, b, MPI_DOUBLE_PRECISION, &
           root, comm, ierror)
    end if
    call sent(size(t))
    if (root < 0 .or. rank == root) then
      call view(recvbuf, recvcount * nprocs, q)
      do k = 0, nprocs - 1
        call unpack(q(k * recvcount + 1:), recvcount, r(k * b + 1:))
      end do
    end if
  end subroutine gather_tangent

  subroutine oad_mpi_scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, &
       root, comm, ierror)
    type(active), dimension(..), target, contiguous, intent(in) :: sendbuf
    type(active), dimension(..), target, contiguous, intent(inout) :: recvbuf
    integer, intent(in) :: sendcount, sendtype, recvcount, recvtype, root, comm
    integer, intent(out) :: ierror
    type(active), pointer :: p(:), q(:)
    real(8), allocatable :: t(:), r(:)
    integer :: rank, nprocs, k, b
    call check_type(sendtype)
    call check_type(recvtype)
    call MPI_Comm_rank(comm, rank, ierror)
    call MPI_Comm_size(comm, nprocs, ierror)
    b = (1 + width()) * sendcount
    allocate(t(b * nprocs), r((1 + width()) * recvcount))
    if (rank == root) then
      call view(sendbuf, sendcount * nprocs, p)
      do k = 0, nprocs - 1
        call pack(p(k * sendcount + 1:), sendcount, t(k * b + 1:))
      end do
      call sent(size(t))
    end if
    call MPI_Scatter(t, b, MPI_DOUBLE_PRECISION, r, size(r), MPI_DOUBLE_PRECISION, &
         root, comm, ierror)
    call view(recvbuf, recvcount, q)
    call unpack(q, recvcount, r)
  end subroutine oad_mpi_scatter

  ! ================= adjoint modes: forward =================

  subroutine values_of(p, n, t)
    type(active), intent(in) :: p(:)
    integer, intent(in) :: n
    real(8), intent(out) :: t(:)
    t(1:n) = p(1:n)%v
  end subroutine values_of

  subroutine oad_mpi_send_fwd(tape, buf, count, datatype, dest, tag, comm, ierror)
    logical, intent(in) :: tape
    type(active), dimension(..), target, contiguous, intent(in) :: buf
    integer, intent(in) :: count, datatype, dest, tag, comm
    integer, intent(out) :: ierror
    type(active), pointer :: p(:)
    real(8) :: t(count)
    call check_type(datatype)
    call view(buf, count, p)
    t = p(1:count)%v
    call MPI_Send(t, count, MPI_DOUBLE_PRECISION, dest, tag, comm, ierror)
    call sent(count)
  end subroutine oad_mpi_send_fwd

  subroutine oad_mpi_recv_fwd(tape, buf, count, datatype, source, tag, comm, status, ierror)
    logical, intent(in) :: tape
    type(active), dimension(..), target, contiguous, intent(inout) :: buf
    integer, intent(in) :: count, datatype, source, tag, comm
    integer :: status(*)
    integer, intent(out) :: ierror
    type(active), pointer :: p(:)
    real(8) :: t(count)
    integer :: st(MPI_STATUS_SIZE)
    call check_type(datatype)
    call view(buf, count, p)
    call MPI_Recv(t, count, MPI_DOUBLE_PRECISION, source, tag, comm, st, ierror)
    if (st(MPI_SOURCE) /= MPI_PROC_NULL) p(1:count)%v = t
    if (tape) then
      ! The reverse sweep sends the adjoint back to the actual sender.
      call push(st(MPI_SOURCE))
      call push(st(MPI_TAG))
    end if
    if (.not. ignored(status)) status(1:MPI_STATUS_SIZE) = st
  end subroutine oad_mpi_recv_fwd

  subroutine oad_mpi_sendrecv_fwd(tape, sendbuf, sendcount, sendtype, dest, sendtag, &
       recvbuf, recvcount, recvtype, source, recvtag, comm, status, ierror)
    logical, intent(in) :: tape
    type(active), dimension(..), target, contiguous, intent(in) :: sendbuf
    type(active), dimension(..), target, contiguous, intent(inout) :: recvbuf
    integer, intent(in) :: sendcount, sendtype, dest, sendtag, recvcount, recvtype, &
         source, recvtag, comm
    integer :: status(*)
    integer, intent(out) :: ierror
    type(active), pointer :: p(:), q(:)
    real(8) :: s(sendcount), r(recvcount)
    integer :: st(MPI_STATUS_SIZE)
    call check_type(sendtype)
    call check_type(recvtype)
    call view(sendbuf, sendcount, p)
    call view(recvbuf, recvcount, q)
    s = p(1:sendcount)%v
    call MPI_Sendrecv(s, sendcount, MPI_DOUBLE_PRECISION, dest, sendtag, r, recvcount, &
         MPI_DOUBLE_PRECISION, source, recvtag, comm, st, ierror)
    call sent(sendcount)
    if (st(MPI_SOURCE) /= MPI_PROC_NULL) q(1:recvcount)%v = r
    if (tape) then
      call push(st(MPI_SOURCE))
      call push(st(MPI_TAG))
    end if
    if (.not. ignored(status)) status(1:MPI_STATUS_SIZE) = st
  end subroutine oad_mpi_sendrecv_fwd

  subroutine oad_mpi_allreduce_fwd(tape, sendbuf, recvbuf, count, datatype, op, comm, ierror)
    logical, intent(in) :: tape
    type(active), dimension(..), target, contiguous, intent(in) :: sendbuf
    type(active), dimension(..), target, contiguous, intent(inout) :: recvbuf
    integer, intent(in) :: count, datatype, op, comm
    integer, intent(out) :: ierror
    call reduce_fwd(tape, sendbuf, recvbuf, count, datatype, op, -1, comm, ierror)
  end subroutine oad_mpi_allreduce_fwd

  subroutine oad_mpi_reduce_fwd(tape, sendbuf, recvbuf, count, datatype, op, root, comm, &
       ierror)
    logical, intent(in) :: tape
    type(active), dimension(..), target, contiguous, intent(in) :: sendbuf
    type(active), dimension(..), target, contiguous, intent(inout) :: recvbuf
    integer, intent(in) :: count, datatype, op, root, comm
    integer, intent(out) :: ierror
    call reduce_fwd(tape, sendbuf, recvbuf, count, datatype, op, root, comm, ierror)
  end subroutine oad_mpi_reduce_fwd

  ! root < 0: allreduce.
  subroutine reduce_fwd(tape, sendbuf, recvbuf, count, datatype, op, root, comm, ierror)
    logical, intent(in) :: tape
    type(active), dimension(..), target, contiguous, intent(in) :: sendbuf
    type(active), dimension(..), target, contiguous, intent(inout) :: recvbuf
    integer, intent(in) :: count, datatype, op, root, comm
    integer, intent(out) :: ierror
    type(active), pointer :: p(:), q(:)
    real(8) :: t(count), r(count)
    integer :: rank, win(count), i
    call check_type(datatype)
    call check_op(op)
    call MPI_Comm_rank(comm, rank, ierror)
    call view(sendbuf, count, p)
    t = p(1:count)%v
    if (root < 0) then
      call MPI_Allreduce(t, r, count, MPI_DOUBLE_PRECISION, op, comm, ierror)
    else
      call MPI_Reduce(t, r, count, MPI_DOUBLE_PRECISION, op, root, comm, ierror)
    end if
    call sent(count)
    if (root < 0 .or. rank == root) then
      call view(recvbuf, count, q)
      q(1:count)%v = r
    end if
    if (tape .and. op /= MPI_SUM) then
      call winners(t, count, op, comm, win)
      do i = 1, count
        call push(win(i))
      end do
    end if
  end subroutine reduce_fwd

  subroutine oad_mpi_bcast_fwd(tape, buffer, count, datatype, root, comm, ierror)
    logical, intent(in) :: tape
    type(active), dimension(..), target, contiguous, intent(inout) :: buffer
    integer, intent(in) :: count, datatype, root, comm
    integer, intent(out) :: ierror
    type(active), pointer :: p(:)
    real(8) :: t(count)
    integer :: rank
    call check_type(datatype)
    call MPI_Comm_rank(comm, rank, ierror)
    call view(buffer, count, p)
    t = p(1:count)%v
    call MPI_Bcast(t, count, MPI_DOUBLE_PRECISION, root, comm, ierror)
    if (rank == root) call sent(count)
    p(1:count)%v = t
  end subroutine oad_mpi_bcast_fwd

  subroutine oad_mpi_gather_fwd(tape, sendbuf, sendcount, sendtype, recvbuf, recvcount, &
       recvtype, root, comm, ierror)
    logical, intent(in) :: tape
    type(active), dimension(..), target, contiguous, intent(in) :: sendbuf
    type(active), dimension(..), target, contiguous, intent(inout) :: recvbuf
    integer, intent(in) :: sendcount, sendtype, recvcount, recvtype, root, comm
    integer, intent(out) :: ierror
    call gather_fwd(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, &
         comm, ierror)
  end subroutine oad_mpi_gather_fwd

  subroutine oad_mpi_allgather_fwd(tape, sendbuf, sendcount, sendtype, recvbuf, recvcount, &
       recvtype, comm, ierror)
    logical, intent(in) :: tape
    type(active), dimension(..), target, contiguous, intent(in) :: sendbuf
    type(active), dimension(..), target, contiguous, intent(inout) :: recvbuf
    integer, intent(in) :: sendcount, sendtype, recvcount, recvtype, comm
    integer, intent(out) :: ierror
    call gather_fwd(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, -1, &
         comm, ierror)
  end subroutine oad_mpi_allgather_fwd

  subroutine gather_fwd(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, &
       comm, ierror)
    type(active), dimension(..), target, contiguous, intent(in) :: sendbuf
    type(active), dimension(..), target, contiguous, intent(inout) :: recvbuf
    integer, intent(in) :: sendcount, sendtype, recvcount, recvtype, root, comm
    integer, intent(out) :: ierror
    type(active), pointer :: p(:), q(:)
    real(8), allocatable :: r(:)
    real(8) :: t(sendcount)
    integer :: rank, nprocs
    call check_type(sendtype)
    call check_type(recvtype)
    call MPI_Comm_rank(comm, rank, ierror)
    call MPI_Comm_size(comm, nprocs, ierror)
    allocate(r(recvcount * nprocs))
    call view(sendbuf, sendcount, p)
    t = p(1:sendcount)%v
    if (root < 0) then
      call MPI_Allgather(t, sendcount, MPI_DOUBLE_PRECISION, r, recvcount, &
           MPI_DOUBLE_PRECISION, comm, ierror)
    else
      call MPI_Gather(t, sendcount, MPI_DOUBLE_PRECISION, r, recvcount, &
           MPI_DOUBLE_PRECISION, root, comm, ierror)
    end if
    call sent(sendcount)
    if (root < 0 .or. rank == root) then
      call view(recvbuf, recvcount * nprocs, q)
      q%v = r
    end if
  end subroutine gather_fwd

  subroutine oad_mpi_scatter_fwd(tape, sendbuf, sendcount, sendtype, recvbuf, recvcount, &
       recvtype, root, comm, ierror)
    logical, intent(in) :: tape
    type(active), dimension(..), target, contiguous, intent(in) :: sendbuf
    type(active), dimension(..), target, contiguous, intent(inout) :: recvbuf
    integer, intent(in) :: sendcount, sendtype, recvcount, recvtype, root, comm
    integer, intent(out) :: ierror
    type(active), pointer :: p(:), q(:)
    real(8), allocatable :: t(:)
    real(8) :: r(recvcount)
    integer :: rank, nprocs
    call check_type(sendtype)
    call check_type(recvtype)
    call MPI_Comm_rank(comm, rank, ierror)
    call MPI_Comm_size(comm, nprocs, ierror)
    allocate(t(sendcount * nprocs))
    if (rank == root) then
      call view(sendbuf, sendcount * nprocs, p)
      t = p%v
      call sent(size(t))
    end if
    call MPI_Scatter(t, sendcount, MPI_DOUBLE_PRECISION, r, recvcount, &
         MPI_DOUBLE_PRECISION, root, comm, ierror)
    call view(recvbuf, recvcount, q)
    q%v = r
  end subroutine oad_mpi_scatter_fwd

  ! ================= adjoint modes: reverse sweep =================

  ! Send: the receiver's adjoint comes back and is added.
  subroutine oad_mpi_send_adj(buf, count, datatype, dest, tag, comm, ierror)
    type(active), dimension(..), target, contiguous, intent(inout) :: buf
    integer, intent(in) :: count, datatype, dest, tag, comm
    integer, intent(out) :: ierror
    type(active), pointer :: p(:)
    real(8) :: t(count)
    call check_type(datatype)
    call view(buf, count, p)
    t = 0
    call MPI_Recv(t, count, MPI_DOUBLE_PRECISION, dest, tag, comm, MPI_STATUS_IGNORE, ierror)
    call add_d(p, count, t)
  end subroutine oad_mpi_send_adj

  ! Receive: the adjoint goes back to the sender and is zeroed here.
  subroutine oad_mpi_recv_adj(buf, count, datatype, source, tag, comm, status, ierror)
    type(active), dimension(..), target, contiguous, intent(inout) :: buf
    integer, intent(in) :: count, datatype, source, tag, comm
    integer :: status(*)
    integer, intent(out) :: ierror
    type(active), pointer :: p(:)
    real(8) :: t(count)
    integer :: actual_source, actual_tag
    call check_type(datatype)
    actual_tag = pop()
    actual_source = pop()
    ! A receive from MPI_PROC_NULL left the buffer as it was.
    if (actual_source == MPI_PROC_NULL) return
    call view(buf, count, p)
    call get_d(p, count, t)
    call zero_d(p, count)
    call MPI_Send(t, count, MPI_DOUBLE_PRECISION, actual_source, actual_tag, comm, ierror)
    call sent(count)
  end subroutine oad_mpi_recv_adj

  subroutine oad_mpi_sendrecv_adj(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, &
       recvcount, recvtype, source, recvtag, comm, status, ierror)
    type(active), dimension(..), target, contiguous, intent(inout) :: sendbuf
    type(active), dimension(..), target, contiguous, intent(inout) :: recvbuf
    integer, intent(in) :: sendcount, sendtype, dest, sendtag, recvcount, recvtype, &
         source, recvtag, comm
    integer :: status(*)
    integer, intent(out) :: ierror
    type(active), pointer :: p(:), q(:)
    real(8) :: s(sendcount), r(recvcount)
    integer :: actual_source, actual_tag
    call check_type(sendtype)
    call check_type(recvtype)
    actual_tag = pop()
    actual_source = pop()
    call view(sendbuf, sendcount, p)
    call view(recvbuf, recvcount, q)
    ! MPI_PROC_NULL receives report MPI_ANY_TAG, invalid for a send.
    if (actual_source == MPI_PROC_NULL) actual_tag = recvtag
    r = 0
    if (actual_source /= MPI_PROC_NULL) then
      call get_d(q, recvcount, r)
      call zero_d(q, recvcount)
    end if
    s = 0
    call MPI_Sendrecv(r, recvcount, MPI_DOUBLE_PRECISION, actual_source, actual_tag, &
         s, sendcount, MPI_DOUBLE_PRECISION, dest, sendtag, comm, MPI_STATUS_IGNORE, ierror)
    call sent(recvcount)
    call add_d(p, sendcount, s)
  end subroutine oad_mpi_sendrecv_adj

  subroutine oad_mpi_allreduce_adj(sendbuf, recvbuf, count, datatype, op, comm, ierror)
    type(active), dimension(..), target, contiguous, intent(inout) :: sendbuf
    type(active), dimension(..), target, contiguous, intent(inout) :: recvbuf
    integer, intent(in) :: count, datatype, op, comm
    integer, intent(out) :: ierror
    call reduce_adj(sendbuf, recvbuf, count, datatype, op, -1, comm, ierror)
  end subroutine oad_mpi_allreduce_adj

  subroutine oad_mpi_reduce_adj(sendbuf, recvbuf, count, datatype, op, root, comm, ierror)
    type(active), dimension(..), target, contiguous, intent(inout) :: sendbuf
    type(active), dimension(..), target, contiguous, intent(inout) :: recvbuf
    integer, intent(in) :: count, datatype, op, root, comm
    integer, intent(out) :: ierror
    call reduce_adj(sendbuf, recvbuf, count, datatype, op, root, comm, ierror)
  end subroutine oad_mpi_reduce_adj

  ! Allreduce: every rank's output adjoint reaches every input (sum of
  ! the adjoints); reduce: the root's output adjoint is broadcast. With
  ! max/min only the winning rank's input gets it.
  subroutine reduce_adj(sendbuf, recvbuf, count, datatype, op, root, comm, ierror)
    type(active), dimension(..), target, contiguous, intent(inout) :: sendbuf
    type(active), dimension(..), target, contiguous, intent(inout) :: recvbuf
    integer, intent(in) :: count, datatype, op, root, comm
    integer, intent(out) :: ierror
    type(active), pointer :: p(:), q(:)
    real(8) :: t(count), r(count)
    integer :: rank, win(count), i
    call check_type(datatype)
    call MPI_Comm_rank(comm, rank, ierror)
    if (op /= MPI_SUM) then
      do i = count, 1, -1
        win(i) = pop()
      end do
    end if
    call view(sendbuf, count, p)
    t = 0
    if (root < 0 .or. rank == root) then
      call view(recvbuf, count, q)
      call get_d(q, count, t)
      call zero_d(q, count)
    end if
    if (root < 0) then
      call MPI_Allreduce(t, r, count, MPI_DOUBLE_PRECISION, MPI_SUM, comm, ierror)
      call sent(count)
    else
      r = t
      call MPI_Bcast(r, count, MPI_DOUBLE_PRECISION, root, comm, ierror)
      if (rank == root) call sent(count)
    end if
    if (op /= MPI_SUM) then
      where (win /= rank) r = 0
    end if
    call add_d(p, count, r)
  end subroutine reduce_adj

  ! Broadcast: the adjoints of every copy are summed on the root; the
  ! other ranks' buffers were overwritten (their adjoints zeroed).
  subroutine oad_mpi_bcast_adj(buffer, count, datatype, root, comm, ierror)
    type(active), dimension(..), target, contiguous, intent(inout) :: buffer
    integer, intent(in) :: count, datatype, root, comm
    integer, intent(out) :: ierror
    type(active), pointer :: p(:)
    real(8) :: t(count), r(count)
    integer :: rank
    call check_type(datatype)
    call MPI_Comm_rank(comm, rank, ierror)
    call view(buffer, count, p)
    call get_d(p, count, t)
    call MPI_Reduce(t, r, count, MPI_DOUBLE_PRECISION, MPI_SUM, root, comm, ierror)
    if (rank /= root) call sent(count)
    if (rank == root) then
      call set_d(p, count, r)
    else
      call zero_d(p, count)
    end if
  end subroutine oad_mpi_bcast_adj

  ! Gather: the root's receive adjoints are scattered back and added.
  subroutine oad_mpi_gather_adj(sendbuf, sendcount, sendtype, recvbuf, recvcount, &
       recvtype, root, comm, ierror)
    type(active), dimension(..), target, contiguous, intent(inout) :: sendbuf
    type(active), dimension(..), target, contiguous, intent(inout) :: recvbuf
    integer, intent(in) :: sendcount, sendtype, recvcount, recvtype, root, comm
    integer, intent(out) :: ierror
    call gather_adj(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, &
         comm, ierror)
  end subroutine oad_mpi_gather_adj

  ! Allgather: each block's adjoints are summed over the ranks and added
  ! to the owner's send buffer.
  subroutine oad_mpi_allgather_adj(sendbuf, sendcount, sendtype, recvbuf, recvcount, &
       recvtype, comm, ierror)
    type(active), dimension(..), target, contiguous, intent(inout) :: sendbuf
    type(active), dimension(..), target, contiguous, intent(inout) :: recvbuf
    integer, intent(in) :: sendcount, sendtype, recvcount, recvtype, comm
    integer, intent(out) :: ierror
    call gather_adj(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, -1, &
         comm, ierror)
  end subroutine oad_mpi_allgather_adj

  subroutine gather_adj(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, &
       comm, ierror)
    type(active), dimension(..), target, contiguous, intent(inout) :: sendbuf
    type(active), dimension(..), target, contiguous, intent(inout) :: recvbuf
    integer, intent(in) :: sendcount, sendtype, recvcount, recvtype, root, comm
    integer, intent(out) :: ierror
    type(active), pointer :: p(:), q(:)
    real(8), allocatable :: r(:), total(:)
    real(8) :: t(sendcount)
    integer :: rank, nprocs
    call check_type(sendtype)
    call check_type(recvtype)
    call MPI_Comm_rank(comm, rank, ierror)
    call MPI_Comm_size(comm, nprocs, ierror)
    allocate(r(recvcount * nprocs), total(recvcount * nprocs))
    r = 0
    if (root < 0 .or. rank == root) then
      call view(recvbuf, recvcount * nprocs, q)
      call get_d(q, recvcount * nprocs, r)
      call zero_d(q, size(q))
    end if
    if (root < 0) then
      call MPI_Allreduce(r, total, size(r), MPI_DOUBLE_PRECISION, MPI_SUM, comm, ierror)
      call sent(size(r))
      t = total(rank * recvcount + 1:rank * recvcount + sendcount)
    else
      call MPI_Scatter(r, recvcount, MPI_DOUBLE_PRECISION, t, sendcount, &
           MPI_DOUBLE_PRECISION, root, comm, ierror)
      if (rank == root) call sent(size(r))
    end if
    call view(sendbuf, sendcount, p)
    call add_d(p, sendcount, t)
  end subroutine gather_adj

  ! Scatter: every rank's receive adjoints are gathered on the root and
  ! added to its send buffer.
  subroutine oad_mpi_scatter_adj(sendbuf, sendcount, sendtype, recvbuf, recvcount, &
       recvtype, root, comm, ierror)
    type(active), dimension(..), target, contiguous, intent(inout) :: sendbuf
    type(active), dimension(..), target, contiguous, intent(inout) :: recvbuf
    integer, intent(in) :: sendcount, sendtype, recvcount, recvtype, root, comm
    integer, intent(out) :: ierror
    type(active), pointer :: p(:), q(:)
    real(8), allocatable :: t(:)
    real(8) :: r(recvcount)
    integer :: rank, nprocs
    call check_type(sendtype)
    call check_type(recvtype)
    call MPI_Comm_rank(comm, rank, ierror)
    call MPI_Comm_size(comm, nprocs, ierror)
    allocate(t(sendcount * nprocs))
    call view(recvbuf, recvcount, q)
    call get_d(q, recvcount, r)
    call zero_d(q, recvcount)
    call MPI_Gather(r, recvcount, MPI_DOUBLE_PRECISION, t, sendcount, &
         MPI_DOUBLE_PRECISION, root, comm, ierror)
    call sent(recvcount)
    if (rank == root) then
      call view(sendbuf, sendcount * nprocs, p)
      call add_d(p, sendcount * nprocs, t)
    end if
  end subroutine oad_mpi_scatter_adj

  ! ================= nonblocking calls =================

  ! A free record (the table grows; move_alloc keeps the messages in
  ! flight where MPI was told they are).
  integer function nb_new(recv, values_only, taped, count, peer, tag, comm, buf)
    logical, intent(in) :: recv, values_only, taped
    integer, intent(in) :: count, peer, tag, comm
    type(c_ptr), intent(in) :: buf
    type(nb_record), allocatable :: bigger(:)
    integer :: k
    if (.not. allocated(nb)) allocate(nb(16))
    nb_new = 0
    do k = 1, size(nb)
      if (nb(k)%state == nb_free) then
        nb_new = k
        exit
      end if
    end do
    if (nb_new == 0) then
      allocate(bigger(2 * size(nb)))
      do k = 1, size(nb)
        bigger(k)%state = nb(k)%state
        bigger(k)%recv = nb(k)%recv
        bigger(k)%values_only = nb(k)%values_only
        bigger(k)%taped = nb(k)%taped
        bigger(k)%handle = nb(k)%handle
        bigger(k)%count = nb(k)%count
        bigger(k)%peer = nb(k)%peer
        bigger(k)%tag = nb(k)%tag
        bigger(k)%comm = nb(k)%comm
        bigger(k)%serial = nb(k)%serial
        bigger(k)%buf = nb(k)%buf
        if (allocated(nb(k)%t)) call move_alloc(nb(k)%t, bigger(k)%t)
      end do
      nb_new = size(nb) + 1
      call move_alloc(bigger, nb)
    end if
    nb_posted = nb_posted + 1
    nb(nb_new)%state = nb_in_flight
    nb(nb_new)%recv = recv
    nb(nb_new)%values_only = values_only
    nb(nb_new)%taped = taped
    nb(nb_new)%count = count
    nb(nb_new)%peer = peer
    nb(nb_new)%tag = tag
    nb(nb_new)%comm = comm
    nb(nb_new)%serial = nb_posted
    nb(nb_new)%buf = buf
    nb(nb_new)%handle = MPI_REQUEST_NULL
  end function nb_new

  ! The record of a request in flight, 0 if it is none of ours (a
  ! request of passive data, or MPI_REQUEST_NULL).
  integer function nb_find(request)
    integer, intent(in) :: request
    integer :: k
    nb_find = 0
    if (.not. allocated(nb) .or. request == MPI_REQUEST_NULL) return
    do k = 1, size(nb)
      if (nb(k)%state == nb_in_flight .and. nb(k)%handle == request) then
        nb_find = k
        return
      end if
    end do
  end function nb_find

  subroutine nb_release(k)
    integer, intent(in) :: k
    if (allocated(nb(k)%t)) deallocate(nb(k)%t)
    nb(k)%state = nb_free
    nb(k)%buf = c_null_ptr
  end subroutine nb_release

  ! Posts an isend (recv false) or irecv of `count` elements of `buf`.
  subroutine nb_post(recv, values_only, tape, buf, count, datatype, peer, tag, comm, &
       request, ierror)
    logical, intent(in) :: recv, values_only, tape
    type(active), dimension(..), target, contiguous, intent(in) :: buf
    integer, intent(in) :: count, datatype, peer, tag, comm
    integer, intent(out) :: request, ierror
    type(active), pointer :: p(:)
    integer :: k, n
    call check_type(datatype)
    call view(buf, count, p)
    k = nb_new(recv, values_only, tape, count, peer, tag, comm, c_loc(buf))
    n = count
    if (.not. values_only) n = (1 + width()) * count
    allocate(nb(k)%t(n))
    if (recv) then
      call MPI_Irecv(nb(k)%t, n, MPI_DOUBLE_PRECISION, peer, tag, comm, nb(k)%handle, ierror)
    else
      if (values_only) then
        nb(k)%t = p(1:count)%v
      else
        call pack(p, count, nb(k)%t)
      end if
      call MPI_Isend(nb(k)%t, n, MPI_DOUBLE_PRECISION, peer, tag, comm, nb(k)%handle, ierror)
      call sent(n)
    end if
    request = nb(k)%handle
    ! The reverse sweep finds this record again (adjoint of the isend/irecv).
    if (tape) call push(k)
  end subroutine nb_post

  ! Completes one request: a receive of active data is unpacked into the
  ! user's buffer. Taped: the record waits for the reverse sweep, whose
  ! adjoint of this wait finds it on the stack (0: nothing to reverse).
  subroutine nb_complete(tape, request, st, ierror)
    logical, intent(in) :: tape
    integer, intent(inout) :: request
    integer, intent(out) :: st(MPI_STATUS_SIZE), ierror
    type(active), pointer :: p(:)
    integer :: k, n
    k = nb_find(request)
    if (k == 0) then
      call MPI_Wait(request, st, ierror)
      if (tape) call push(0)
      return
    end if
    call MPI_Wait(nb(k)%handle, st, ierror)
    request = MPI_REQUEST_NULL
    n = nb(k)%count
    if (nb(k)%recv) then
      if (st(MPI_SOURCE) /= MPI_PROC_NULL) then
        call c_f_pointer(nb(k)%buf, p, [n])
        if (nb(k)%values_only) then
          p(1:n)%v = nb(k)%t(1:n)
        else
          call unpack(p, n, nb(k)%t)
        end if
      end if
      nb(k)%peer = st(MPI_SOURCE)
      nb(k)%tag = st(MPI_TAG)
    end if
    if (tape .and. nb(k)%taped) then
      deallocate(nb(k)%t)
      nb(k)%state = nb_completed
      call push(k)
    else
      if (tape) call push(0)
      call nb_release(k)
    end if
  end subroutine nb_complete

  ! Adjoint of a wait: the reversed nonblocking operation. A receive
  ! sends its adjoint back to the actual sender and zeroes it (the user
  ! may not touch a receive buffer between the irecv and its wait, so
  ! the adjoint is final here); a send posts the receive of the adjoint,
  ! added to the buffer at the adjoint of the isend.
  subroutine nb_reverse(k)
    integer, intent(in) :: k
    type(active), pointer :: p(:)
    integer :: n, ierror
    if (k == 0) return
    if (nb(k)%state /= nb_completed) &
         error stop 'OAD_mpi: the reverse sweep found no completed nonblocking call for a wait'
    n = nb(k)%count
    allocate(nb(k)%t(n))
    nb(k)%t = 0
    nb(k)%handle = MPI_REQUEST_NULL
    if (nb(k)%recv) then
      if (nb(k)%peer /= MPI_PROC_NULL) then
        call c_f_pointer(nb(k)%buf, p, [n])
        call get_d(p, n, nb(k)%t)
        call zero_d(p, n)
        call MPI_Isend(nb(k)%t, n, MPI_DOUBLE_PRECISION, nb(k)%peer, nb(k)%tag, nb(k)%comm, &
             nb(k)%handle, ierror)
        call sent(n)
      end if
    else
      call MPI_Irecv(nb(k)%t, n, MPI_DOUBLE_PRECISION, nb(k)%peer, nb(k)%tag, nb(k)%comm, &
           nb(k)%handle, ierror)
    end if
    nb(k)%state = nb_reversed
  end subroutine nb_reverse

  ! Adjoint of an isend/irecv: completes the reversed operation; a send
  ! adds the adjoint received.
  subroutine nb_finish(buf, count, ierror)
    type(active), dimension(..), target, contiguous, intent(inout) :: buf
    integer, intent(in) :: count
    integer, intent(out) :: ierror
    type(active), pointer :: p(:)
    integer :: k
    k = pop()
    if (k < 1) error stop 'OAD_mpi: the reverse sweep found no record of a nonblocking call'
    if (nb(k)%state /= nb_reversed) &
         error stop 'OAD_mpi: a nonblocking call was not completed by a wait in the same sweep'
    if (nb(k)%recv .and. nb(k)%peer /= MPI_PROC_NULL .and. &
         .not. c_associated(nb(k)%buf, c_loc(buf))) then
      ! A local array of a routine whose reverse sweep runs in another
      ! invocation: pass the buffer from a caller or a module.
      error stop 'OAD_mpi: the buffer of an mpi_irecv moved between the sweeps'
    end if
    call MPI_Wait(nb(k)%handle, MPI_STATUS_IGNORE, ierror)
    if (.not. nb(k)%recv) then
      call view(buf, count, p)
      call add_d(p, count, nb(k)%t)
    end if
    call nb_release(k)
  end subroutine nb_finish

  ! ---- tangent modes ----

  subroutine oad_mpi_isend(buf, count, datatype, dest, tag, comm, request, ierror)
    type(active), dimension(..), target, contiguous, intent(in) :: buf
    integer, intent(in) :: count, datatype, dest, tag, comm
    integer, intent(out) :: request, ierror
    call nb_post(.false., .false., .false., buf, count, datatype, dest, tag, comm, request, ierror)
  end subroutine oad_mpi_isend

  subroutine oad_mpi_irecv(buf, count, datatype, source, tag, comm, request, ierror)
    type(active), dimension(..), target, contiguous, intent(inout) :: buf
    integer, intent(in) :: count, datatype, source, tag, comm
    integer, intent(out) :: request, ierror
    call nb_post(.true., .false., .false., buf, count, datatype, source, tag, comm, request, ierror)
  end subroutine oad_mpi_irecv

  subroutine oad_mpi_wait(request, status, ierror)
    integer, intent(inout) :: request
    integer :: status(*)
    integer, intent(out) :: ierror
    call oad_mpi_wait_fwd(.false., request, status, ierror)
  end subroutine oad_mpi_wait

  subroutine oad_mpi_waitall(count, requests, statuses, ierror)
    integer, intent(in) :: count
    integer, intent(inout) :: requests(*)
    integer :: statuses(MPI_STATUS_SIZE, *)
    integer, intent(out) :: ierror
    call oad_mpi_waitall_fwd(.false., count, requests, statuses, ierror)
  end subroutine oad_mpi_waitall

  ! ---- adjoint modes: forward ----

  subroutine oad_mpi_isend_fwd(tape, buf, count, datatype, dest, tag, comm, request, ierror)
    logical, intent(in) :: tape
    type(active), dimension(..), target, contiguous, intent(in) :: buf
    integer, intent(in) :: count, datatype, dest, tag, comm
    integer, intent(out) :: request, ierror
    call nb_post(.false., .true., tape, buf, count, datatype, dest, tag, comm, request, ierror)
  end subroutine oad_mpi_isend_fwd

  subroutine oad_mpi_irecv_fwd(tape, buf, count, datatype, source, tag, comm, request, ierror)
    logical, intent(in) :: tape
    type(active), dimension(..), target, contiguous, intent(inout) :: buf
    integer, intent(in) :: count, datatype, source, tag, comm
    integer, intent(out) :: request, ierror
    call nb_post(.true., .true., tape, buf, count, datatype, source, tag, comm, request, ierror)
  end subroutine oad_mpi_irecv_fwd

  subroutine oad_mpi_wait_fwd(tape, request, status, ierror)
    logical, intent(in) :: tape
    integer, intent(inout) :: request
    integer :: status(*)
    integer, intent(out) :: ierror
    integer :: st(MPI_STATUS_SIZE)
    call nb_complete(tape, request, st, ierror)
    if (.not. ignored(status)) status(1:MPI_STATUS_SIZE) = st
  end subroutine oad_mpi_wait_fwd

  ! One wait after the other: every request is posted already, so this
  ! completes what MPI_Waitall completes.
  subroutine oad_mpi_waitall_fwd(tape, count, requests, statuses, ierror)
    logical, intent(in) :: tape
    integer, intent(in) :: count
    integer, intent(inout) :: requests(*)
    integer :: statuses(MPI_STATUS_SIZE, *)
    integer, intent(out) :: ierror
    integer :: st(MPI_STATUS_SIZE), i, skip
    skip = 0
    if (loc(statuses) == loc(MPI_STATUSES_IGNORE)) skip = 1
    do i = 1, count
      call nb_complete(tape, requests(i), st, ierror)
      if (skip == 0) statuses(1:MPI_STATUS_SIZE, i) = st
    end do
  end subroutine oad_mpi_waitall_fwd

  ! ---- adjoint modes: reverse sweep ----

  subroutine oad_mpi_wait_adj(status, ierror)
    integer :: status(*)
    integer, intent(out) :: ierror
    ierror = MPI_SUCCESS
    call nb_reverse(pop())
  end subroutine oad_mpi_wait_adj

  ! The reversed operations are posted in the reverse of the order in
  ! which the forward ones were (MPI matches messages of one peer and
  ! tag in posting order), whatever the order of the requests.
  subroutine oad_mpi_waitall_adj(count, statuses, ierror)
    integer, intent(in) :: count
    integer :: statuses(*)
    integer, intent(out) :: ierror
    integer :: ks(count), i, j, k
    ierror = MPI_SUCCESS
    do i = count, 1, -1
      ks(i) = pop()
    end do
    ! Insertion sort, latest posted first (count is small).
    do i = 2, count
      k = ks(i)
      j = i - 1
      do while (j >= 1)
        if (serial_of(ks(j)) >= serial_of(k)) exit
        ks(j + 1) = ks(j)
        j = j - 1
      end do
      ks(j + 1) = k
    end do
    do i = 1, count
      call nb_reverse(ks(i))
    end do
  end subroutine oad_mpi_waitall_adj

  integer(8) function serial_of(k)
    integer, intent(in) :: k
    serial_of = -1
    if (k > 0) serial_of = nb(k)%serial
  end function serial_of

  subroutine oad_mpi_isend_adj(buf, count, datatype, dest, tag, comm, ierror)
    type(active), dimension(..), target, contiguous, intent(inout) :: buf
    integer, intent(in) :: count, datatype, dest, tag, comm
    integer, intent(out) :: ierror
    call check_type(datatype)
    call nb_finish(buf, count, ierror)
  end subroutine oad_mpi_isend_adj

  subroutine oad_mpi_irecv_adj(buf, count, datatype, source, tag, comm, ierror)
    type(active), dimension(..), target, contiguous, intent(inout) :: buf
    integer, intent(in) :: count, datatype, source, tag, comm
    integer, intent(out) :: ierror
    call check_type(datatype)
    call nb_finish(buf, count, ierror)
  end subroutine oad_mpi_irecv_adj

end module OAD_mpi
