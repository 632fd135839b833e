! A work farm written the older way, with include 'mpif.h': 8 items of
! a reaction model are split among the MPI processes (1, 2 or 4); every
! rank but the root sends its partial yield to the root, which takes
! them in whatever order they arrive (mpi_any_source) and files each
! under its sender (the status). The fastest decay time over all items
! comes from an mpi_min reduction; its derivative is that of the
! winning item on the winning rank.
subroutine item_yield(x, item, yield, decay)
  implicit none
  real(8), intent(in) :: x(3)
  integer, intent(in) :: item
  real(8), intent(out) :: yield, decay
  real(8) :: rate
  rate = x(1) * (1.0d0 + 0.25d0 * item) + x(2)**2 / item
  yield = x(3) * (1.0d0 - exp(-rate)) * item
  decay = 1.0d0 / (rate + 0.1d0 * x(3) * (item - 4.5d0)**2)
end subroutine item_yield

subroutine head(x, y)
  implicit none
  include 'mpif.h'
  integer, parameter :: nitems = 8
  real(8), intent(in) :: x(3)
  real(8), intent(out) :: y(3)
  real(8) :: partial, yield, decay, fastest, local_fastest, incoming
  real(8) :: by_rank(0:7)
  integer :: rank, nprocs, nloc, k, item, ierr, sender
  integer :: status(mpi_status_size)
  !$openad INDEPENDENT(x)
  call mpi_comm_rank(mpi_comm_world, rank, ierr)
  call mpi_comm_size(mpi_comm_world, nprocs, ierr)
  nloc = nitems / nprocs
  partial = 0.0d0
  local_fastest = 1.0d30
  do k = 1, nloc
    item = rank * nloc + k
    call item_yield(x, item, yield, decay)
    partial = partial + yield
    local_fastest = min(local_fastest, decay)
  end do
  y = 0.0d0
  if (rank == 0) then
    by_rank = 0.0d0
    by_rank(0) = partial
    do k = 1, nprocs - 1
      call mpi_recv(incoming, 1, mpi_double_precision, mpi_any_source, 41, &
           mpi_comm_world, status, ierr)
      sender = status(mpi_source)
      by_rank(sender) = incoming
    end do
    y(1) = sum(by_rank(0:nprocs - 1))
    y(2) = log(1.0d0 + y(1)**2)
  else
    call mpi_send(partial, 1, mpi_double_precision, 0, 41, mpi_comm_world, ierr)
  end if
  call mpi_allreduce(local_fastest, fastest, 1, mpi_double_precision, mpi_min, &
       mpi_comm_world, ierr)
  if (rank == 0) y(3) = fastest * x(1)
  !$openad DEPENDENT(y)
end subroutine head
