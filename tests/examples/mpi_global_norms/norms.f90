! Global norms of a distributed field: 12 values of a temperature-like
! field are split among the MPI processes (1, 2 or 4). A module of norm
! routines, each one local sum or maximum followed by an mpi_allreduce,
! as a solver computes its residual norms: the L2 norm (mpi_sum of the
! squares), the max-norm (mpi_max of the largest magnitude, in place
! with mpi_in_place), the first three moments in one allreduce of a
! 3-element array (in place too), an energy functional of the field
! normalised by its L2 norm, and a quartic sum reduced in place on the
! root only (mpi_reduce with mpi_in_place there). Rank 0 returns the
! global values.
module field_norms
  use mpi
  implicit none
  integer, parameter :: nglobal = 12
  integer :: rank, nprocs, nloc
contains
  ! sqrt of the global sum of squares
  subroutine global_l2(u, norm)
    real(8), intent(in) :: u(:)
    real(8), intent(out) :: norm
    real(8) :: local_sq, global_sq
    integer :: ierr
    local_sq = sum(u**2)
    call mpi_allreduce(local_sq, global_sq, 1, mpi_double_precision, mpi_sum, &
         mpi_comm_world, ierr)
    norm = sqrt(global_sq)
  end subroutine global_l2

  ! the largest magnitude over all ranks, reduced in place (its
  ! derivative is that of the winning element)
  subroutine global_maxnorm(u, norm)
    real(8), intent(in) :: u(:)
    real(8), intent(out) :: norm
    integer :: ierr
    norm = maxval(abs(u))
    call mpi_allreduce(mpi_in_place, norm, 1, mpi_double_precision, mpi_max, &
         mpi_comm_world, ierr)
  end subroutine global_maxnorm

  ! mean, variance and third central moment from one reduction of the
  ! raw power sums, in place
  subroutine global_moments(u, moments)
    real(8), intent(in) :: u(:)
    real(8), intent(out) :: moments(3)
    real(8) :: totals(3), mean
    integer :: ierr
    totals(1) = sum(u)
    totals(2) = sum(u**2)
    totals(3) = sum(u**3)
    call mpi_allreduce(mpi_in_place, totals, 3, mpi_double_precision, mpi_sum, &
         mpi_comm_world, ierr)
    totals = totals / nglobal
    mean = totals(1)
    moments(1) = mean
    moments(2) = totals(2) - mean**2
    moments(3) = totals(3) - 3.0d0 * mean * totals(2) + 2.0d0 * mean**3
  end subroutine global_moments

  ! quartic self-interaction plus a potential that grows along the
  ! domain, of the normalised field, summed over the ranks
  subroutine normalised_energy(u, energy)
    real(8), intent(in) :: u(:)
    real(8), intent(out) :: energy
    real(8) :: v(size(u)), norm, local_energy
    integer :: i, ierr
    call global_l2(u, norm)
    v = u / norm
    local_energy = 0.5d0 * sum(v**4)
    do i = 1, size(v)
      local_energy = local_energy + 0.2d0 * (rank * nloc + i) * v(i)**2
    end do
    call mpi_allreduce(local_energy, energy, 1, mpi_double_precision, mpi_sum, &
         mpi_comm_world, ierr)
  end subroutine normalised_energy

  ! sum of u**4 over all ranks, on the root only (in place there)
  subroutine root_quartic_sum(u, total)
    real(8), intent(in) :: u(:)
    real(8), intent(out) :: total
    real(8) :: unused
    integer :: ierr
    total = sum(u**4)
    if (rank == 0) then
      call mpi_reduce(mpi_in_place, total, 1, mpi_double_precision, mpi_sum, 0, &
           mpi_comm_world, ierr)
    else
      call mpi_reduce(total, unused, 1, mpi_double_precision, mpi_sum, 0, &
           mpi_comm_world, ierr)
    end if
  end subroutine root_quartic_sum
end module field_norms

subroutine head(x, y)
  use field_norms
  implicit none
  real(8), intent(in) :: x(3)
  real(8), intent(out) :: y(7)
  real(8), allocatable :: u(:)
  real(8) :: l2, maxnorm, moments(3), energy, quartic
  integer :: i, ierr
  !$openad INDEPENDENT(x)
  call mpi_comm_rank(mpi_comm_world, rank, ierr)
  call mpi_comm_size(mpi_comm_world, nprocs, ierr)
  nloc = nglobal / nprocs
  allocate(u(nloc))
  do i = 1, nloc
    u(i) = x(1) * exp(-0.1d0 * x(2) * (rank * nloc + i - 7.3d0)**2) &
         + x(3) * cos(0.9d0 * (rank * nloc + i))
  end do
  call global_l2(u, l2)
  call global_maxnorm(u, maxnorm)
  call global_moments(u, moments)
  call normalised_energy(u, energy)
  call root_quartic_sum(u, quartic)
  y = 0.0d0
  if (rank == 0) then
    y(1) = l2
    y(2) = maxnorm
    y(3:5) = moments
    y(6) = energy
    y(7) = quartic
  end if
  deallocate(u)
  !$openad DEPENDENT(y)
end subroutine head
