! A root that scatters work and gathers the results: rank 0 builds a
! load vector of 8 entries, mpi_scatter hands each process its share,
! each process relaxes its entries for a few sweeps, mpi_gather brings
! them back to the root, and mpi_allgather gives every process the whole
! relaxed vector for a coupling term it adds to its share of the energy.
! Results on rank 0 (the energy summed over the ranks by mpi_reduce).
module split_mod
  use mpi
  implicit none
  integer, parameter :: ntotal = 8
  integer, parameter :: nsweeps = 3
contains
  subroutine relax(v, n, alpha)
    integer, intent(in) :: n
    real(8), intent(inout) :: v(n)
    real(8), intent(in) :: alpha
    integer :: s, i
    do s = 1, nsweeps
      do i = 1, n
        v(i) = v(i) - alpha * (v(i)**3 - 0.5d0 * v(i))
      end do
    end do
  end subroutine relax
end module split_mod

subroutine head(x, y)
  use split_mod
  implicit none
  real(8), intent(in) :: x(3)
  real(8), intent(out) :: y(2)
  real(8) :: load(ntotal), relaxed(ntotal), everything(ntotal)
  real(8), allocatable :: mine(:)
  real(8) :: energy, total_energy
  integer :: rank, nprocs, nloc, i, ierr
  !$openad INDEPENDENT(x)
  call mpi_comm_rank(mpi_comm_world, rank, ierr)
  call mpi_comm_size(mpi_comm_world, nprocs, ierr)
  nloc = ntotal / nprocs
  allocate(mine(nloc))
  load = 0.0d0
  if (rank == 0) then
    do i = 1, ntotal
      load(i) = x(1) * cos(0.4d0 * i) + x(2) * i / ntotal
    end do
  end if
  call mpi_scatter(load, nloc, mpi_double_precision, mine, nloc, mpi_double_precision, &
       0, mpi_comm_world, ierr)
  call relax(mine, nloc, x(3) * 0.2d0)
  relaxed = 0.0d0
  call mpi_gather(mine, nloc, mpi_double_precision, relaxed, nloc, mpi_double_precision, &
       0, mpi_comm_world, ierr)
  call mpi_allgather(mine, nloc, mpi_double_precision, everything, nloc, &
       mpi_double_precision, mpi_comm_world, ierr)
  energy = 0.0d0
  do i = 1, nloc
    energy = energy + mine(i)**2 * everything(ntotal + 1 - (rank * nloc + i))
  end do
  total_energy = 0.0d0
  call mpi_reduce(energy, total_energy, 1, mpi_double_precision, mpi_sum, 0, &
       mpi_comm_world, ierr)
  y = 0.0d0
  if (rank == 0) then
    y(1) = total_energy
    y(2) = sum(relaxed * relaxed) + relaxed(ntotal)
  end if
  deallocate(mine)
  !$openad DEPENDENT(y)
end subroutine head
