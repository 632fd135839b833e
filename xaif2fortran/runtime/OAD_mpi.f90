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
!                               on the runtime's own stack
!   oad_mpi_NAME_adj(...)       adjoint modes, reverse sweep: the reversed
!                               communication of the adjoints (Utke et
!                               al., adjoinable MPI): a send receives and
!                               increments, a receive sends and zeroes, a
!                               sum reduction sums the adjoints, a
!                               broadcast reduces them to the root
! Buffers are assumed-rank so that a scalar, an element (the start of
! `count` contiguous elements, as MPI reads it), an array or a section
! can be passed; they are viewed as `count` consecutive elements.
! Three files, in compile order: OAD_mpi_core.f90 (message layout,
! packing, the record stack), OAD_mpi_requests.f90 (nonblocking calls
! and their completions), this one (blocking calls and collectives; the
! module the differentiated program uses).
module OAD_mpi
  use mpi
  use OAD_active
  use OAD_mpi_core
  use OAD_mpi_requests
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
  ! Nonblocking calls and their completions (OAD_mpi_requests.f90).
  public :: oad_mpi_isend, oad_mpi_irecv, oad_mpi_wait, oad_mpi_waitall
  public :: oad_mpi_isend_fwd, oad_mpi_irecv_fwd, oad_mpi_wait_fwd, oad_mpi_waitall_fwd
  public :: oad_mpi_isend_adj, oad_mpi_irecv_adj, oad_mpi_wait_adj, oad_mpi_waitall_adj
  public :: oad_mpi_waitany, oad_mpi_waitsome, oad_mpi_test, oad_mpi_testall, &
       oad_mpi_testany, oad_mpi_testsome
  public :: oad_mpi_waitany_fwd, oad_mpi_waitsome_fwd, oad_mpi_test_fwd, &
       oad_mpi_testall_fwd, oad_mpi_testany_fwd, oad_mpi_testsome_fwd
  public :: oad_mpi_waitany_adj, oad_mpi_waitsome_adj, oad_mpi_test_adj, &
       oad_mpi_testall_adj, oad_mpi_testany_adj, oad_mpi_testsome_adj
  ! mpi_in_place as the send buffer of a reduction.
  public :: oad_mpi_allreduce_in_place, oad_mpi_reduce_in_place
  public :: oad_mpi_allreduce_in_place_fwd, oad_mpi_reduce_in_place_fwd
  public :: oad_mpi_allreduce_in_place_adj, oad_mpi_reduce_in_place_adj
  public :: oad_mpi_bytes_sent

contains

  ! ================= tangent modes =================
  ! A message carries the values, then the derivative slots in use (-m
  ! fv: up to the last direction with a nonzero derivative among the
  ! elements sent; the receiver reads the width from the message length
  ! and zeroes the slots past it). Collectives agree on the widest.

  subroutine oad_mpi_send(buf, count, datatype, dest, tag, comm, ierror)
    type(active), dimension(..), target, contiguous, intent(in) :: buf
    integer, intent(in) :: count, datatype, dest, tag, comm
    integer, intent(out) :: ierror
    type(active), pointer :: p(:)
    real(8) :: t(message_length(count, width()))
    integer :: n, w
    call check_type(datatype)
    call view(buf, count, p)
    w = in_use(p, count)
    n = message_length(count, w)
    call pack_message(p, count, w, t)
    call MPI_Send(t, n, MPI_DOUBLE_PRECISION, dest, tag, comm, ierror)
    call sent(n)
  end subroutine oad_mpi_send

  subroutine oad_mpi_recv(buf, count, datatype, source, tag, comm, status, ierror)
    type(active), dimension(..), target, contiguous, intent(inout) :: buf
    integer, intent(in) :: count, datatype, source, tag, comm
    integer :: status(*)
    integer, intent(out) :: ierror
    type(active), pointer :: p(:)
    real(8) :: t(message_length(count, width()))
    integer :: st(MPI_STATUS_SIZE), got
    call check_type(datatype)
    call view(buf, count, p)
    call MPI_Recv(t, size(t), MPI_DOUBLE_PRECISION, source, tag, comm, st, ierror)
    if (st(MPI_SOURCE) /= MPI_PROC_NULL) call unpack_message(p, st, t, got)
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
    real(8) :: s(message_length(sendcount, width())), r(message_length(recvcount, width()))
    integer :: st(MPI_STATUS_SIZE), w, got
    call check_type(sendtype)
    call check_type(recvtype)
    call view(sendbuf, sendcount, p)
    call view(recvbuf, recvcount, q)
    w = in_use(p, sendcount)
    call pack_message(p, sendcount, w, s)
    call MPI_Sendrecv(s, message_length(sendcount, w), MPI_DOUBLE_PRECISION, dest, sendtag, &
         r, size(r), MPI_DOUBLE_PRECISION, source, recvtag, comm, st, ierror)
    call sent(message_length(sendcount, w))
    if (st(MPI_SOURCE) /= MPI_PROC_NULL) call unpack_message(q, st, r, got)
    if (.not. ignored(status)) status(1:MPI_STATUS_SIZE) = st
  end subroutine oad_mpi_sendrecv

  ! Sum: values and derivatives summed together. Max/min: the values
  ! reduced, then each element's derivative taken from the winning rank.
  subroutine tangent_reduce(p, q, count, op, root, comm, ierror)
    type(active), pointer, intent(in) :: p(:), q(:)
    integer, intent(in) :: count, op, root, comm
    integer, intent(out) :: ierror
    real(8) :: t((1 + width()) * count), r((1 + width()) * count)
    integer :: win(count), rank, i, w, n
    call MPI_Comm_rank(comm, rank, ierror)
    w = agreed_width(in_use(p, count), comm)
    n = (1 + w) * count
    call pack(p, count, w, t)
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
      call MPI_Allreduce(t, r, n, MPI_DOUBLE_PRECISION, MPI_SUM, comm, ierror)
      call unpack(q, count, w, r)
    else
      call MPI_Reduce(t, r, n, MPI_DOUBLE_PRECISION, MPI_SUM, root, comm, ierror)
      if (rank == root) call unpack(q, count, w, r)
    end if
    call sent(n)
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

  ! mpi_in_place: the buffer is the contribution and the result (every
  ! rank of an allreduce, the root of a reduce). The reductions read all
  ! of their input before they write their output.
  subroutine oad_mpi_allreduce_in_place(inplace, buf, count, datatype, op, comm, ierror)
    integer, intent(in) :: inplace
    type(active), dimension(..), target, contiguous, intent(inout) :: buf
    integer, intent(in) :: count, datatype, op, comm
    integer, intent(out) :: ierror
    type(active), pointer :: p(:)
    call check_type(datatype)
    call check_op(op)
    call view(buf, count, p)
    call tangent_reduce(p, p, count, op, -1, comm, ierror)
  end subroutine oad_mpi_allreduce_in_place

  subroutine oad_mpi_reduce_in_place(inplace, buf, count, datatype, op, root, comm, ierror)
    integer, intent(in) :: inplace
    type(active), dimension(..), target, contiguous, intent(inout) :: buf
    integer, intent(in) :: count, datatype, op, root, comm
    integer, intent(out) :: ierror
    type(active), pointer :: p(:)
    call check_type(datatype)
    call check_op(op)
    call view(buf, count, p)
    call tangent_reduce(p, p, count, op, root, comm, ierror)
  end subroutine oad_mpi_reduce_in_place

  subroutine oad_mpi_bcast(buffer, count, datatype, root, comm, ierror)
    type(active), dimension(..), target, contiguous, intent(inout) :: buffer
    integer, intent(in) :: count, datatype, root, comm
    integer, intent(out) :: ierror
    type(active), pointer :: p(:)
    real(8) :: t((1 + width()) * count)
    integer :: rank, w, n
    call check_type(datatype)
    call MPI_Comm_rank(comm, rank, ierror)
    call view(buffer, count, p)
    w = 0
    if (rank == root) w = in_use(p, count)
    w = agreed_width(w, comm)
    n = (1 + w) * count
    if (rank == root) call pack(p, count, w, t)
    call MPI_Bcast(t, n, MPI_DOUBLE_PRECISION, root, comm, ierror)
    if (rank == root) call sent(n)
    if (rank /= root) call unpack(p, count, w, t)
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
    integer :: rank, nprocs, k, b, w
    call check_type(sendtype)
    call check_type(recvtype)
    call MPI_Comm_rank(comm, rank, ierror)
    call MPI_Comm_size(comm, nprocs, ierror)
    call view(sendbuf, sendcount, p)
    w = agreed_width(in_use(p, sendcount), comm)
    b = (1 + w) * recvcount
    allocate(t((1 + w) * sendcount), r(b * nprocs))
    call pack(p, sendcount, w, t)
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
        call unpack(q(k * recvcount + 1:), recvcount, w, r(k * b + 1:))
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
    integer :: rank, nprocs, k, b, w
    call check_type(sendtype)
    call check_type(recvtype)
    call MPI_Comm_rank(comm, rank, ierror)
    call MPI_Comm_size(comm, nprocs, ierror)
    w = 0
    if (rank == root) then
      call view(sendbuf, sendcount * nprocs, p)
      w = in_use(p, sendcount * nprocs)
    end if
    w = agreed_width(w, comm)
    b = (1 + w) * sendcount
    allocate(t(b * nprocs), r((1 + w) * recvcount))
    if (rank == root) then
      do k = 0, nprocs - 1
        call pack(p(k * sendcount + 1:), sendcount, w, t(k * b + 1:))
      end do
      call sent(size(t))
    end if
    call MPI_Scatter(t, b, MPI_DOUBLE_PRECISION, r, size(r), MPI_DOUBLE_PRECISION, &
         root, comm, ierror)
    call view(recvbuf, recvcount, q)
    call unpack(q, recvcount, w, r)
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
    integer :: st(MPI_STATUS_SIZE), got
    call check_type(datatype)
    call view(buf, count, p)
    call MPI_Recv(t, count, MPI_DOUBLE_PRECISION, source, tag, comm, st, ierror)
    got = 0
    if (st(MPI_SOURCE) /= MPI_PROC_NULL) got = received(st)
    p(1:got)%v = t(1:got)
    if (tape) then
      ! The reverse sweep sends the adjoint back to the actual sender.
      call push(st(MPI_SOURCE))
      call push(st(MPI_TAG))
      call push(got)
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
    integer :: st(MPI_STATUS_SIZE), got
    call check_type(sendtype)
    call check_type(recvtype)
    call view(sendbuf, sendcount, p)
    call view(recvbuf, recvcount, q)
    s = p(1:sendcount)%v
    call MPI_Sendrecv(s, sendcount, MPI_DOUBLE_PRECISION, dest, sendtag, r, recvcount, &
         MPI_DOUBLE_PRECISION, source, recvtag, comm, st, ierror)
    call sent(sendcount)
    got = 0
    if (st(MPI_SOURCE) /= MPI_PROC_NULL) got = received(st)
    q(1:got)%v = r(1:got)
    if (tape) then
      call push(st(MPI_SOURCE))
      call push(st(MPI_TAG))
      call push(got)
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

  subroutine oad_mpi_allreduce_in_place_fwd(tape, inplace, buf, count, datatype, op, comm, &
       ierror)
    logical, intent(in) :: tape
    integer, intent(in) :: inplace
    type(active), dimension(..), target, contiguous, intent(inout) :: buf
    integer, intent(in) :: count, datatype, op, comm
    integer, intent(out) :: ierror
    call reduce_fwd(tape, buf, buf, count, datatype, op, -1, comm, ierror)
  end subroutine oad_mpi_allreduce_in_place_fwd

  subroutine oad_mpi_reduce_in_place_fwd(tape, inplace, buf, count, datatype, op, root, &
       comm, ierror)
    logical, intent(in) :: tape
    integer, intent(in) :: inplace
    type(active), dimension(..), target, contiguous, intent(inout) :: buf
    integer, intent(in) :: count, datatype, op, root, comm
    integer, intent(out) :: ierror
    call reduce_fwd(tape, buf, buf, count, datatype, op, root, comm, ierror)
  end subroutine oad_mpi_reduce_in_place_fwd

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
    integer :: actual_source, actual_tag, got
    call check_type(datatype)
    got = pop()
    actual_tag = pop()
    actual_source = pop()
    ! A receive from MPI_PROC_NULL left the buffer as it was.
    if (actual_source == MPI_PROC_NULL) return
    ! The elements the message carried (at most count).
    call view(buf, got, p)
    call get_d(p, got, t)
    call zero_d(p, got)
    call MPI_Send(t, got, MPI_DOUBLE_PRECISION, actual_source, actual_tag, comm, ierror)
    call sent(got)
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
    integer :: actual_source, actual_tag, got
    call check_type(sendtype)
    call check_type(recvtype)
    got = pop()
    actual_tag = pop()
    actual_source = pop()
    call view(sendbuf, sendcount, p)
    call view(recvbuf, got, q)
    ! MPI_PROC_NULL receives report MPI_ANY_TAG, invalid for a send.
    if (actual_source == MPI_PROC_NULL) actual_tag = recvtag
    r = 0
    if (actual_source /= MPI_PROC_NULL) then
      call get_d(q, got, r)
      call zero_d(q, got)
    end if
    s = 0
    call MPI_Sendrecv(r, got, MPI_DOUBLE_PRECISION, actual_source, actual_tag, &
         s, sendcount, MPI_DOUBLE_PRECISION, dest, sendtag, comm, MPI_STATUS_IGNORE, ierror)
    call sent(got)
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

  ! In place: the output adjoint is taken (and zeroed) before the
  ! input's is added, so the buffer ends with the input's adjoint.
  subroutine oad_mpi_allreduce_in_place_adj(inplace, buf, count, datatype, op, comm, ierror)
    integer, intent(in) :: inplace
    type(active), dimension(..), target, contiguous, intent(inout) :: buf
    integer, intent(in) :: count, datatype, op, comm
    integer, intent(out) :: ierror
    call reduce_adj(buf, buf, count, datatype, op, -1, comm, ierror)
  end subroutine oad_mpi_allreduce_in_place_adj

  subroutine oad_mpi_reduce_in_place_adj(inplace, buf, count, datatype, op, root, comm, &
       ierror)
    integer, intent(in) :: inplace
    type(active), dimension(..), target, contiguous, intent(inout) :: buf
    integer, intent(in) :: count, datatype, op, root, comm
    integer, intent(out) :: ierror
    call reduce_adj(buf, buf, count, datatype, op, root, comm, ierror)
  end subroutine oad_mpi_reduce_in_place_adj

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

end module OAD_mpi
