! Communication hidden behind computation, on a periodic 1-D nonlinear
! diffusion of 16 cells split among the MPI processes (1, 2 or 4). Each
! step posts the halo receives and sends, then updates the interior
! while polling the left halo with mpi_test between cells (a blocking
! mpi_wait if it has still not come); the right halo and the send of
! the first cell are taken in whatever order they complete by
! mpi_waitany; the other send is polled with mpi_testall until done.
! Then two sums of each block go to the right neighbour as two messages
! with the same tag, and the receives are completed in the opposite
! order (the reverse sweep must keep the messages of one peer and tag
! paired as they were); the sends are polled with mpi_testsome. At the
! end every rank sends its energy to the root, which takes the
! partial energies as they arrive with mpi_waitsome and adds them up;
! each rank polls its own send with mpi_testany.
! The halo and partial-energy buffers are module variables
! (a receive buffer stays where it is between the sweeps).
module overlap_mod
  use mpi
  implicit none
  integer, parameter :: nglobal = 16
  integer, parameter :: nsteps = 3
  real(8), parameter :: dt = 0.04d0
  integer :: rank, nprocs, nloc
  real(8) :: from_left, from_right
  real(8) :: partial(0:3)
  real(8) :: sums_in(2)
contains
  subroutine step(u, kappa)
    real(8), intent(inout) :: u(nloc)
    real(8), intent(in) :: kappa
    real(8) :: unew(nloc)
    integer :: left, right, ierr, i, k, which
    integer :: recv_left, pair(2), last_send(1), status(mpi_status_size)
    logical :: arrived, sent
    left = mod(rank + nprocs - 1, nprocs)
    right = mod(rank + 1, nprocs)
    call mpi_irecv(from_left, 1, mpi_double_precision, left, 1, mpi_comm_world, &
         recv_left, ierr)
    call mpi_irecv(from_right, 1, mpi_double_precision, right, 2, mpi_comm_world, &
         pair(1), ierr)
    call mpi_isend(u(1), 1, mpi_double_precision, left, 2, mpi_comm_world, pair(2), ierr)
    call mpi_isend(u(nloc), 1, mpi_double_precision, right, 1, mpi_comm_world, &
         last_send(1), ierr)
    ! Interior cells while the halos travel.
    arrived = .false.
    do i = 2, nloc - 1
      unew(i) = u(i) + dt * kappa * (1.0d0 + u(i)**2) * (u(i - 1) - 2.0d0 * u(i) + u(i + 1))
      if (.not. arrived) call mpi_test(recv_left, arrived, status, ierr)
    end do
    if (.not. arrived) call mpi_wait(recv_left, status, ierr)
    do k = 1, 2
      call mpi_waitany(2, pair, which, status, ierr)
    end do
    sent = .false.
    do while (.not. sent)
      call mpi_testall(1, last_send, sent, mpi_statuses_ignore, ierr)
    end do
    ! The two boundary cells.
    unew(1) = u(1) + dt * kappa * (1.0d0 + u(1)**2) * (from_left - 2.0d0 * u(1) + u(2))
    unew(nloc) = u(nloc) + dt * kappa * (1.0d0 + u(nloc)**2) &
         * (u(nloc - 1) - 2.0d0 * u(nloc) + from_right)
    u = unew
  end subroutine step

  ! The sum and the sum of squares of my block to the right neighbour,
  ! same tag; the second receive is waited for first.
  subroutine shift_sums(u)
    real(8), intent(in) :: u(nloc)
    real(8) :: sums_out(2)
    integer :: left, right, ierr, receives(2), sends(2), status(mpi_status_size)
    integer :: finished, outcount, indices(2)
    left = mod(rank + nprocs - 1, nprocs)
    right = mod(rank + 1, nprocs)
    sums_out(1) = sum(u)
    sums_out(2) = sum(u**2)
    call mpi_irecv(sums_in(1), 1, mpi_double_precision, left, 5, mpi_comm_world, &
         receives(1), ierr)
    call mpi_irecv(sums_in(2), 1, mpi_double_precision, left, 5, mpi_comm_world, &
         receives(2), ierr)
    call mpi_isend(sums_out(1), 1, mpi_double_precision, right, 5, mpi_comm_world, &
         sends(1), ierr)
    call mpi_isend(sums_out(2), 1, mpi_double_precision, right, 5, mpi_comm_world, &
         sends(2), ierr)
    call mpi_wait(receives(2), status, ierr)
    call mpi_wait(receives(1), status, ierr)
    finished = 0
    do while (finished < 2)
      call mpi_testsome(2, sends, outcount, indices, mpi_statuses_ignore, ierr)
      finished = finished + outcount
    end do
  end subroutine shift_sums

  ! The root adds up the ranks' energies in arrival order.
  subroutine collect(energy, total)
    real(8), intent(in) :: energy
    real(8), intent(out) :: total
    integer :: requests(0:3), indices(4), statuses(mpi_status_size, 4)
    integer :: send_request(1), r, j, outcount, remaining, ierr, which
    logical :: done
    total = 0.0d0
    if (rank == 0) then
      do r = 0, nprocs - 1
        call mpi_irecv(partial(r), 1, mpi_double_precision, r, 7, mpi_comm_world, &
             requests(r), ierr)
      end do
    end if
    call mpi_isend(energy, 1, mpi_double_precision, 0, 7, mpi_comm_world, send_request(1), &
         ierr)
    if (rank == 0) then
      remaining = nprocs
      do while (remaining > 0)
        call mpi_waitsome(nprocs, requests, outcount, indices, statuses, ierr)
        do j = 1, outcount
          r = indices(j) - 1
          total = total + partial(r)
        end do
        remaining = remaining - outcount
      end do
    end if
    done = .false.
    do while (.not. done)
      call mpi_testany(1, send_request, which, done, mpi_status_ignore, ierr)
    end do
  end subroutine collect
end module overlap_mod

subroutine head(x, y)
  use overlap_mod
  implicit none
  real(8), intent(in) :: x(3)
  real(8), intent(out) :: y(3)
  real(8), allocatable :: u(:)
  real(8) :: energy, total
  integer :: i, t, ierr
  !$openad INDEPENDENT(x)
  call mpi_comm_rank(mpi_comm_world, rank, ierr)
  call mpi_comm_size(mpi_comm_world, nprocs, ierr)
  nloc = nglobal / nprocs
  allocate(u(nloc))
  do i = 1, nloc
    u(i) = x(1) * sin(0.4d0 * (rank * nloc + i)) + x(2) * cos(0.3d0 * (rank * nloc + i))
  end do
  do t = 1, nsteps
    call step(u, x(3))
  end do
  energy = sum(u**2) + 0.5d0 * sum(u**4)
  call collect(energy, total)
  y = 0.0d0
  if (rank == 0) y(1) = total
  ! Each rank's share of a weighted sum over the cells.
  y(2) = 0.0d0
  do i = 1, nloc
    y(2) = y(2) + u(i)**3 / (rank * nloc + i)
  end do
  ! Summed over the ranks: the global sum and sum of squares.
  call shift_sums(u)
  y(3) = sums_in(1) + 3.0d0 * sums_in(2)
  deallocate(u)
  !$openad DEPENDENT(y)
end subroutine head
