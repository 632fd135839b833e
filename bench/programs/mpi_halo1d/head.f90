! Benchmark copy of tests/examples/mpi_halo_diffusion (where the harness
! checks every mode at 1, 2, 4 processes), on 262144 cells for 20 steps:
! blocking halo exchange (mpi_send/mpi_recv, mpi_sendrecv), mpi_bcast,
! mpi_allreduce (sum, max), mpi_reduce. Timed by bench/mpi_bench.py.
module halo_mod
  use mpi
  implicit none
  integer, parameter :: nglobal = 262144
  integer, parameter :: nsteps = 20
  real(8), parameter :: dt = 0.02d0
  integer :: rank, nprocs, nloc
contains
  subroutine exchange_halo(u)
    real(8), intent(inout) :: u(0:nloc + 1)
    integer :: left, right, ierr, status(mpi_status_size)
    left = rank - 1
    right = rank + 1
    if (left < 0) left = mpi_proc_null
    if (right >= nprocs) right = mpi_proc_null
    ! Left halo: my last cell goes right, my left neighbour's to me.
    if (mod(rank, 2) == 0) then
      call mpi_send(u(nloc), 1, mpi_double_precision, right, 11, mpi_comm_world, ierr)
      call mpi_recv(u(0), 1, mpi_double_precision, left, 11, mpi_comm_world, status, ierr)
    else
      call mpi_recv(u(0), 1, mpi_double_precision, left, 11, mpi_comm_world, status, ierr)
      call mpi_send(u(nloc), 1, mpi_double_precision, right, 11, mpi_comm_world, ierr)
    end if
    ! Right halo.
    call mpi_sendrecv(u(1), 1, mpi_double_precision, left, 12, u(nloc + 1), 1, &
         mpi_double_precision, right, 12, mpi_comm_world, status, ierr)
  end subroutine exchange_halo

  subroutine step(u, kappa, source)
    real(8), intent(inout) :: u(0:nloc + 1)
    real(8), intent(in) :: kappa, source
    real(8) :: flux(0:nloc)
    integer :: i
    call exchange_halo(u)
    do i = 0, nloc
      flux(i) = kappa * (1.0d0 + 0.3d0 * (u(i) + u(i + 1))**2) * (u(i + 1) - u(i))
    end do
    do i = 1, nloc
      u(i) = u(i) + dt * (flux(i) - flux(i - 1)) + dt * source * u(i)
    end do
  end subroutine step
end module halo_mod

subroutine head(x, y)
  use halo_mod
  implicit none
  real(8), intent(in) :: x(4)
  real(8), intent(out) :: y(3)
  real(8), allocatable :: u(:)
  real(8) :: source, local_sq, global_sq, local_peak, peak, local_mass, mass
  integer :: i, t, ierr
  !$openad INDEPENDENT(x)
  call mpi_comm_rank(mpi_comm_world, rank, ierr)
  call mpi_comm_size(mpi_comm_world, nprocs, ierr)
  nloc = nglobal / nprocs
  allocate(u(0:nloc + 1))
  u = 0.0d0
  do i = 1, nloc
    u(i) = x(1) * sin(0.7d0 * (rank * nloc + i)) + x(2)
  end do
  source = 0.0d0
  if (rank == 0) source = x(4) * x(4)
  call mpi_bcast(source, 1, mpi_double_precision, 0, mpi_comm_world, ierr)
  do t = 1, nsteps
    call step(u, x(3), source)
  end do
  local_sq = sum(u(1:nloc)**2)
  call mpi_allreduce(local_sq, global_sq, 1, mpi_double_precision, mpi_sum, &
       mpi_comm_world, ierr)
  local_peak = maxval(u(1:nloc))
  call mpi_allreduce(local_peak, peak, 1, mpi_double_precision, mpi_max, &
       mpi_comm_world, ierr)
  local_mass = sum(u(1:nloc))
  mass = 0.0d0
  call mpi_reduce(local_mass, mass, 1, mpi_double_precision, mpi_sum, 0, &
       mpi_comm_world, ierr)
  y = 0.0d0
  if (rank == 0) then
    y(1) = sqrt(global_sq)
    y(2) = peak
    y(3) = mass
  end if
  deallocate(u)
  !$openad DEPENDENT(y)
end subroutine head
