! Nonblocking calls on active data (OAD_mpi.f90 says what the module
! family does): mpi_isend/mpi_irecv and their completions (mpi_wait,
! mpi_waitall, mpi_waitany, mpi_waitsome, mpi_test, mpi_testall,
! mpi_testany, mpi_testsome) in the tangent modes, the forward sweep and
! the reverse sweep of the adjoint modes.
module OAD_mpi_requests
  use mpi
  use OAD_active
  use OAD_mpi_core
  use iso_c_binding, only: c_loc, c_f_pointer, c_ptr, c_null_ptr, c_associated
  implicit none
  private
  public :: oad_mpi_isend, oad_mpi_irecv, oad_mpi_wait, oad_mpi_waitall
  public :: oad_mpi_isend_fwd, oad_mpi_irecv_fwd, oad_mpi_wait_fwd, oad_mpi_waitall_fwd
  public :: oad_mpi_isend_adj, oad_mpi_irecv_adj, oad_mpi_wait_adj, oad_mpi_waitall_adj
  public :: oad_mpi_waitany, oad_mpi_waitsome, oad_mpi_test, oad_mpi_testall, &
       oad_mpi_testany, oad_mpi_testsome
  public :: oad_mpi_waitany_fwd, oad_mpi_waitsome_fwd, oad_mpi_test_fwd, &
       oad_mpi_testall_fwd, oad_mpi_testany_fwd, oad_mpi_testsome_fwd
  public :: oad_mpi_waitany_adj, oad_mpi_waitsome_adj, oad_mpi_test_adj, &
       oad_mpi_testall_adj, oad_mpi_testany_adj, oad_mpi_testsome_adj

  ! Nonblocking calls on active data: one record per request, from the
  ! isend/irecv to its wait; in the adjoint modes (taped) on to the
  ! reverse sweep, where the adjoint of the wait posts the reversed
  ! operation and the adjoint of the isend/irecv completes it.
  ! A completed record is deferred in the reverse sweep until its
  ! channel lets it be posted (nb_flush), then reversed.
  integer, parameter :: nb_free = 0, nb_in_flight = 1, nb_completed = 2, &
       nb_deferred = 3, nb_reversed = 4
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
  ! request of passive data, or MPI_REQUEST_NULL). Request values are
  ! not unique: Open MPI hands the same value to sends that completed
  ! when they were posted, so the earliest posted record with the value
  ! not among `taken` is the one (such records are all complete, so
  ! which one a completion finishes does not matter).
  integer function nb_find(request, taken)
    integer, intent(in) :: request
    integer, intent(in), optional :: taken(:)
    integer :: k
    nb_find = 0
    if (.not. allocated(nb) .or. request == MPI_REQUEST_NULL) return
    do k = 1, size(nb)
      if (nb(k)%state /= nb_in_flight .or. nb(k)%handle /= request) cycle
      if (present(taken)) then
        if (any(taken == k)) cycle
      end if
      if (nb_find /= 0) then
        if (nb(k)%serial > nb(nb_find)%serial) cycle
      end if
      nb_find = k
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
    integer :: k, n, w
    call check_type(datatype)
    call view(buf, count, p)
    k = nb_new(recv, values_only, tape, count, peer, tag, comm, c_loc(buf))
    ! A receive is posted for the widest message.
    n = count
    if (.not. values_only .and. recv) n = message_length(count, width())
    w = 0
    if (.not. values_only .and. .not. recv) w = in_use(p, count)
    if (.not. values_only .and. .not. recv) n = message_length(count, w)
    allocate(nb(k)%t(n))
    if (recv) then
      call MPI_Irecv(nb(k)%t, n, MPI_DOUBLE_PRECISION, peer, tag, comm, nb(k)%handle, ierror)
    else
      if (values_only) then
        nb(k)%t = p(1:count)%v
      else
        call pack_message(p, count, w, nb(k)%t)
      end if
      call MPI_Isend(nb(k)%t, n, MPI_DOUBLE_PRECISION, peer, tag, comm, nb(k)%handle, ierror)
      call sent(n)
    end if
    request = nb(k)%handle
    ! The reverse sweep finds this record again (adjoint of the isend/irecv).
    if (tape) call push(k)
  end subroutine nb_post

  ! Completes one request with MPI_Wait (the user's request is the MPI
  ! request of the message in flight).
  subroutine nb_complete(tape, request, st, ierror)
    logical, intent(in) :: tape
    integer, intent(inout) :: request
    integer, intent(out) :: st(MPI_STATUS_SIZE), ierror
    integer :: k
    k = nb_find(request)
    call MPI_Wait(request, st, ierror)
    call nb_done(tape, k, st)
  end subroutine nb_complete

  ! After MPI completed record k (0: a request of passive data) with
  ! status st: a receive of active data is unpacked into the user's
  ! buffer. Taped, the record waits for the reverse sweep, whose adjoint
  ! of this completion finds it on the stack (0: nothing to reverse).
  ! The receive count is an upper bound: the record keeps the elements
  ! the message carried (the status reports them).
  subroutine nb_done(tape, k, st)
    logical, intent(in) :: tape
    integer, intent(in) :: k
    integer, intent(inout) :: st(MPI_STATUS_SIZE)
    type(active), pointer :: p(:)
    integer :: n, got
    if (k == 0) then
      if (tape) call push(0)
      return
    end if
    nb(k)%handle = MPI_REQUEST_NULL
    n = nb(k)%count
    if (nb(k)%recv) then
      got = 0
      if (st(MPI_SOURCE) /= MPI_PROC_NULL) then
        call c_f_pointer(nb(k)%buf, p, [n])
        if (nb(k)%values_only) then
          got = received(st)
          p(1:got)%v = nb(k)%t(1:got)
        else
          call unpack_message(p, st, nb(k)%t, got)
        end if
      end if
      nb(k)%count = got
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
  end subroutine nb_done

  ! The records of the requests of an array (0 where passive), found
  ! before MPI resets the completed ones to MPI_REQUEST_NULL; a record
  ! for each (equal request values, nb_find).
  subroutine nb_find_all(count, requests, ks)
    integer, intent(in) :: count, requests(*)
    integer, intent(out) :: ks(:)
    integer :: i
    ks = 0
    do i = 1, count
      ks(i) = nb_find(requests(i), ks(1:i - 1))
    end do
  end subroutine nb_find_all

  ! Adjoint of a completion: the reversed nonblocking operation. A
  ! receive sends its adjoint back to the actual sender and zeroes it
  ! (the user may not touch a receive buffer between the irecv and its
  ! completion, so the adjoint is final here); a send posts the receive
  ! of the adjoint, added to the buffer at the adjoint of the isend.
  subroutine nb_reverse(k)
    integer, intent(in) :: k
    type(active), pointer :: p(:)
    integer :: n
    if (k == 0) return
    if (nb(k)%state /= nb_completed) &
         error stop 'OAD_mpi: the reverse sweep found no completed nonblocking call for a wait'
    n = nb(k)%count
    allocate(nb(k)%t(n))
    nb(k)%t = 0
    nb(k)%handle = MPI_REQUEST_NULL
    ! Nothing travels to or from MPI_PROC_NULL.
    if (nb(k)%peer == MPI_PROC_NULL) then
      nb(k)%state = nb_reversed
      return
    end if
    if (nb(k)%recv) then
      call c_f_pointer(nb(k)%buf, p, [n])
      call get_d(p, n, nb(k)%t)
      call zero_d(p, n)
    end if
    nb(k)%state = nb_deferred
    call nb_flush(k)
  end subroutine nb_reverse

  logical function same_channel(j, k)
    integer, intent(in) :: j, k
    same_channel = (nb(j)%recv .eqv. nb(k)%recv) .and. nb(j)%peer == nb(k)%peer .and. &
         nb(j)%tag == nb(k)%tag .and. nb(j)%comm == nb(k)%comm
  end function same_channel

  ! Posts the reversed operations of record k's channel (direction,
  ! peer, tag, communicator) whose turn has come. MPI matches the
  ! messages of a channel in posting order, so the reversed ones are
  ! posted in the reverse of the forward posting order on both sides:
  ! latest posted first, and one only once no later-posted record of its
  ! channel awaits its reversal (completions in another order than the
  ! posts, as mpi_waitany and mpi_test make them, defer it until then).
  subroutine nb_flush(k)
    integer, intent(in) :: k
    integer :: j, best
    do
      best = 0
      do j = 1, size(nb)
        if (nb(j)%state /= nb_deferred) cycle
        if (.not. same_channel(j, k)) cycle
        if (best == 0) then
          best = j
        else if (nb(j)%serial > nb(best)%serial) then
          best = j
        end if
      end do
      if (best == 0) return
      do j = 1, size(nb)
        if (nb(j)%state == nb_completed .and. same_channel(j, k) .and. &
             nb(j)%serial > nb(best)%serial) return
      end do
      call nb_issue(best)
    end do
  end subroutine nb_flush

  subroutine nb_issue(k)
    integer, intent(in) :: k
    integer :: n, ierror
    n = nb(k)%count
    if (nb(k)%recv) then
      call MPI_Isend(nb(k)%t, n, MPI_DOUBLE_PRECISION, nb(k)%peer, nb(k)%tag, nb(k)%comm, &
           nb(k)%handle, ierror)
      call sent(n)
    else
      call MPI_Irecv(nb(k)%t, n, MPI_DOUBLE_PRECISION, nb(k)%peer, nb(k)%tag, nb(k)%comm, &
           nb(k)%handle, ierror)
    end if
    nb(k)%state = nb_reversed
  end subroutine nb_issue

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
    if (nb(k)%state == nb_deferred) &
         error stop 'OAD_mpi: the reversed messages of nonblocking calls with one peer and tag could not be posted in order'
    if (nb(k)%state /= nb_reversed) &
         error stop 'OAD_mpi: a nonblocking call was not completed by a wait or test in the same sweep'
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

  subroutine oad_mpi_waitany(count, requests, index, status, ierror)
    integer, intent(in) :: count
    integer, intent(inout) :: requests(*)
    integer, intent(out) :: index
    integer :: status(*)
    integer, intent(out) :: ierror
    call oad_mpi_waitany_fwd(.false., count, requests, index, status, ierror)
  end subroutine oad_mpi_waitany

  subroutine oad_mpi_waitsome(incount, requests, outcount, indices, statuses, ierror)
    integer, intent(in) :: incount
    integer, intent(inout) :: requests(*)
    integer, intent(out) :: outcount, indices(*)
    integer :: statuses(MPI_STATUS_SIZE, *)
    integer, intent(out) :: ierror
    call some_fwd(.false., .true., incount, requests, outcount, indices, statuses, ierror)
  end subroutine oad_mpi_waitsome

  subroutine oad_mpi_test(request, flag, status, ierror)
    integer, intent(inout) :: request
    logical, intent(out) :: flag
    integer :: status(*)
    integer, intent(out) :: ierror
    call oad_mpi_test_fwd(.false., request, flag, status, ierror)
  end subroutine oad_mpi_test

  subroutine oad_mpi_testall(count, requests, flag, statuses, ierror)
    integer, intent(in) :: count
    integer, intent(inout) :: requests(*)
    logical, intent(out) :: flag
    integer :: statuses(MPI_STATUS_SIZE, *)
    integer, intent(out) :: ierror
    call oad_mpi_testall_fwd(.false., count, requests, flag, statuses, ierror)
  end subroutine oad_mpi_testall

  subroutine oad_mpi_testany(count, requests, index, flag, status, ierror)
    integer, intent(in) :: count
    integer, intent(inout) :: requests(*)
    integer, intent(out) :: index
    logical, intent(out) :: flag
    integer :: status(*)
    integer, intent(out) :: ierror
    call oad_mpi_testany_fwd(.false., count, requests, index, flag, status, ierror)
  end subroutine oad_mpi_testany

  subroutine oad_mpi_testsome(incount, requests, outcount, indices, statuses, ierror)
    integer, intent(in) :: incount
    integer, intent(inout) :: requests(*)
    integer, intent(out) :: outcount, indices(*)
    integer :: statuses(MPI_STATUS_SIZE, *)
    integer, intent(out) :: ierror
    call some_fwd(.false., .false., incount, requests, outcount, indices, statuses, ierror)
  end subroutine oad_mpi_testsome

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
    integer :: st(MPI_STATUS_SIZE), i
    do i = 1, count
      call nb_complete(tape, requests(i), st, ierror)
      if (.not. statuses_ignored(statuses)) statuses(1:MPI_STATUS_SIZE, i) = st
    end do
  end subroutine oad_mpi_waitall_fwd

  logical function statuses_ignored(statuses)
    integer, intent(in) :: statuses(MPI_STATUS_SIZE, *)
    statuses_ignored = loc(statuses) == loc(MPI_STATUSES_IGNORE)
  end function statuses_ignored

  ! MPI picks the request (the user's requests are the MPI requests of
  ! the messages in flight); the record of the one completed follows.
  subroutine oad_mpi_waitany_fwd(tape, count, requests, index, status, ierror)
    logical, intent(in) :: tape
    integer, intent(in) :: count
    integer, intent(inout) :: requests(*)
    integer, intent(out) :: index
    integer :: status(*)
    integer, intent(out) :: ierror
    integer :: st(MPI_STATUS_SIZE), ks(max(count, 1))
    call nb_find_all(count, requests, ks)
    call MPI_Waitany(count, requests, index, st, ierror)
    if (index == MPI_UNDEFINED) then
      call nb_done(tape, 0, st)
    else
      call nb_done(tape, ks(index), st)
    end if
    if (.not. ignored(status)) status(1:MPI_STATUS_SIZE) = st
  end subroutine oad_mpi_waitany_fwd

  ! Tape: the record (or 0) of each request completed, then how many.
  subroutine some_fwd(tape, wait, incount, requests, outcount, indices, statuses, ierror)
    logical, intent(in) :: tape, wait
    integer, intent(in) :: incount
    integer, intent(inout) :: requests(*)
    integer, intent(out) :: outcount, indices(*)
    integer :: statuses(MPI_STATUS_SIZE, *)
    integer, intent(out) :: ierror
    integer :: sts(MPI_STATUS_SIZE, max(incount, 1)), ks(max(incount, 1)), j, done
    call nb_find_all(incount, requests, ks)
    if (wait) then
      call MPI_Waitsome(incount, requests, outcount, indices, sts, ierror)
    else
      call MPI_Testsome(incount, requests, outcount, indices, sts, ierror)
    end if
    done = 0
    if (outcount /= MPI_UNDEFINED) done = outcount
    do j = 1, done
      call nb_done(tape, ks(indices(j)), sts(:, j))
      if (.not. statuses_ignored(statuses)) statuses(1:MPI_STATUS_SIZE, j) = sts(:, j)
    end do
    if (tape) call push(done)
  end subroutine some_fwd

  subroutine oad_mpi_waitsome_fwd(tape, incount, requests, outcount, indices, statuses, ierror)
    logical, intent(in) :: tape
    integer, intent(in) :: incount
    integer, intent(inout) :: requests(*)
    integer, intent(out) :: outcount, indices(*)
    integer :: statuses(MPI_STATUS_SIZE, *)
    integer, intent(out) :: ierror
    call some_fwd(tape, .true., incount, requests, outcount, indices, statuses, ierror)
  end subroutine oad_mpi_waitsome_fwd

  subroutine oad_mpi_testsome_fwd(tape, incount, requests, outcount, indices, statuses, ierror)
    logical, intent(in) :: tape
    integer, intent(in) :: incount
    integer, intent(inout) :: requests(*)
    integer, intent(out) :: outcount, indices(*)
    integer :: statuses(MPI_STATUS_SIZE, *)
    integer, intent(out) :: ierror
    call some_fwd(tape, .false., incount, requests, outcount, indices, statuses, ierror)
  end subroutine oad_mpi_testsome_fwd

  ! Tape: the record (or 0) if it completed, else 0.
  subroutine oad_mpi_test_fwd(tape, request, flag, status, ierror)
    logical, intent(in) :: tape
    integer, intent(inout) :: request
    logical, intent(out) :: flag
    integer :: status(*)
    integer, intent(out) :: ierror
    integer :: st(MPI_STATUS_SIZE), k
    k = nb_find(request)
    call MPI_Test(request, flag, st, ierror)
    if (flag) then
      call nb_done(tape, k, st)
      if (.not. ignored(status)) status(1:MPI_STATUS_SIZE) = st
    else if (tape) then
      call push(0)
    end if
  end subroutine oad_mpi_test_fwd

  ! Tape: if all completed, the record (or 0) of each, then 1; else 0.
  subroutine oad_mpi_testall_fwd(tape, count, requests, flag, statuses, ierror)
    logical, intent(in) :: tape
    integer, intent(in) :: count
    integer, intent(inout) :: requests(*)
    logical, intent(out) :: flag
    integer :: statuses(MPI_STATUS_SIZE, *)
    integer, intent(out) :: ierror
    integer :: sts(MPI_STATUS_SIZE, max(count, 1)), ks(max(count, 1)), i
    call nb_find_all(count, requests, ks)
    call MPI_Testall(count, requests, flag, sts, ierror)
    if (flag) then
      do i = 1, count
        call nb_done(tape, ks(i), sts(:, i))
        if (.not. statuses_ignored(statuses)) statuses(1:MPI_STATUS_SIZE, i) = sts(:, i)
      end do
    end if
    if (tape) call push(merge(1, 0, flag))
  end subroutine oad_mpi_testall_fwd

  ! Tape: the record (or 0) of the request completed, else 0.
  subroutine oad_mpi_testany_fwd(tape, count, requests, index, flag, status, ierror)
    logical, intent(in) :: tape
    integer, intent(in) :: count
    integer, intent(inout) :: requests(*)
    integer, intent(out) :: index
    logical, intent(out) :: flag
    integer :: status(*)
    integer, intent(out) :: ierror
    integer :: st(MPI_STATUS_SIZE), ks(max(count, 1))
    call nb_find_all(count, requests, ks)
    call MPI_Testany(count, requests, index, flag, st, ierror)
    if (flag .and. index /= MPI_UNDEFINED) then
      call nb_done(tape, ks(index), st)
    else if (tape) then
      call push(0)
    end if
    if (flag .and. .not. ignored(status)) status(1:MPI_STATUS_SIZE) = st
  end subroutine oad_mpi_testany_fwd

  ! ---- adjoint modes: reverse sweep ----
  ! The outputs of the user's call (statuses, flags, indices) are the
  ! back end's scratch variables here: the reverse sweep leaves the
  ! user's as they are.

  subroutine oad_mpi_wait_adj(status, ierror)
    integer :: status(*)
    integer, intent(out) :: ierror
    ierror = MPI_SUCCESS
    call nb_reverse(pop())
  end subroutine oad_mpi_wait_adj

  subroutine oad_mpi_waitall_adj(count, statuses, ierror)
    integer, intent(in) :: count
    integer :: statuses(*)
    integer, intent(out) :: ierror
    ierror = MPI_SUCCESS
    call reverse_popped(count)
  end subroutine oad_mpi_waitall_adj

  subroutine oad_mpi_waitany_adj(count, index, status, ierror)
    integer, intent(in) :: count
    integer :: index(*), status(*)
    integer, intent(out) :: ierror
    ierror = MPI_SUCCESS
    call nb_reverse(pop())
  end subroutine oad_mpi_waitany_adj

  subroutine oad_mpi_waitsome_adj(incount, outcount, indices, statuses, ierror)
    integer, intent(in) :: incount
    integer :: outcount(*), indices(*), statuses(*)
    integer, intent(out) :: ierror
    ierror = MPI_SUCCESS
    call reverse_popped(pop())
  end subroutine oad_mpi_waitsome_adj

  subroutine oad_mpi_testsome_adj(incount, outcount, indices, statuses, ierror)
    integer, intent(in) :: incount
    integer :: outcount(*), indices(*), statuses(*)
    integer, intent(out) :: ierror
    ierror = MPI_SUCCESS
    call reverse_popped(pop())
  end subroutine oad_mpi_testsome_adj

  subroutine oad_mpi_test_adj(flag, status, ierror)
    logical :: flag
    integer :: status(*)
    integer, intent(out) :: ierror
    ierror = MPI_SUCCESS
    call nb_reverse(pop())
  end subroutine oad_mpi_test_adj

  subroutine oad_mpi_testall_adj(count, flag, statuses, ierror)
    integer, intent(in) :: count
    logical :: flag
    integer :: statuses(*)
    integer, intent(out) :: ierror
    ierror = MPI_SUCCESS
    if (pop() == 1) call reverse_popped(count)
  end subroutine oad_mpi_testall_adj

  subroutine oad_mpi_testany_adj(count, index, flag, status, ierror)
    integer, intent(in) :: count
    integer :: index(*)
    logical :: flag
    integer :: status(*)
    integer, intent(out) :: ierror
    ierror = MPI_SUCCESS
    call nb_reverse(pop())
  end subroutine oad_mpi_testany_adj

  ! Reverses the last n records on the stack (one completion call's),
  ! latest posted first (nb_flush keeps each channel in order anyway).
  subroutine reverse_popped(n)
    integer, intent(in) :: n
    integer :: ks(max(n, 1)), i, j, k
    do i = n, 1, -1
      ks(i) = pop()
    end do
    ! Insertion sort, latest posted first (n is small).
    do i = 2, n
      k = ks(i)
      j = i - 1
      do while (j >= 1)
        if (serial_of(ks(j)) >= serial_of(k)) exit
        ks(j + 1) = ks(j)
        j = j - 1
      end do
      ks(j + 1) = k
    end do
    do i = 1, n
      call nb_reverse(ks(i))
    end do
  end subroutine reverse_popped

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

end module OAD_mpi_requests
