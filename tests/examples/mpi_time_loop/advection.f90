! A periodic 1-D advection-reaction model on 8 cells split among the MPI
! processes (1, 2 or 4), the way a small production code runs: the root
! reads (here: computes) the physical parameters and broadcasts them;
! every step exchanges one halo cell with each neighbour on the ring by
! mpi_sendrecv; every second step a diagnostic allreduce of the mass
! (mpi_sum) and of the largest value (mpi_max) drives a mass fixer and a
! limiter inside the loop; at the end the root gathers the whole field
! and reduces it to the outputs, and takes the probes of the odd cells
! from every rank with mpi_recv of up to nglobal / 2 values, asking the
! status how many came (mpi_get_count).
module advect_mod
  use mpi
  implicit none
  integer, parameter :: nglobal = 8
  integer, parameter :: nsteps = 6
  integer, parameter :: diag_every = 2
  real(8), parameter :: dt = 0.1d0
  integer :: rank, nprocs, nloc
contains
  ! Periodic ring: my last cell to the right neighbour's left halo, my
  ! first cell to the left neighbour's right halo.
  subroutine exchange_halo(u)
    real(8), intent(inout) :: u(0:nloc + 1)
    integer :: left, right, ierr, status(mpi_status_size)
    left = mod(rank + nprocs - 1, nprocs)
    right = mod(rank + 1, nprocs)
    call mpi_sendrecv(u(nloc), 1, mpi_double_precision, right, 1, u(0), 1, &
         mpi_double_precision, left, 1, mpi_comm_world, status, ierr)
    call mpi_sendrecv(u(1), 1, mpi_double_precision, left, 2, u(nloc + 1), 1, &
         mpi_double_precision, right, 2, mpi_comm_world, status, ierr)
  end subroutine exchange_halo

  ! Upwind advection with speed c and a logistic reaction of rate k.
  subroutine step(u, params)
    real(8), intent(inout) :: u(0:nloc + 1)
    real(8), intent(in) :: params(2)
    real(8) :: unew(nloc)
    integer :: i
    call exchange_halo(u)
    do i = 1, nloc
      unew(i) = u(i) - dt * params(1) * (u(i) - u(i - 1)) &
           + dt * params(2) * u(i) * (1.0d0 - u(i))
    end do
    u(1:nloc) = unew
  end subroutine step

  ! Mass fixer (back to the initial mass) and a soft limiter of the peak.
  subroutine diagnose(u, mass0)
    real(8), intent(inout) :: u(0:nloc + 1)
    real(8), intent(in) :: mass0
    real(8) :: local(1), total(1), local_peak, peak
    integer :: ierr
    local(1) = sum(u(1:nloc))
    call mpi_allreduce(local, total, 1, mpi_double_precision, mpi_sum, &
         mpi_comm_world, ierr)
    local_peak = maxval(u(1:nloc))
    call mpi_allreduce(local_peak, peak, 1, mpi_double_precision, mpi_max, &
         mpi_comm_world, ierr)
    u(1:nloc) = u(1:nloc) * (mass0 / total(1)) / (1.0d0 + 0.05d0 * peak**2)
  end subroutine diagnose
end module advect_mod

subroutine head(x, y)
  use advect_mod
  implicit none
  real(8), intent(in) :: x(4)
  real(8), intent(out) :: y(4)
  real(8), allocatable :: u(:)
  real(8) :: params(2), field(nglobal), local_mass, mass0
  real(8) :: probe(nglobal / 2), incoming(nglobal / 2)
  integer :: i, t, ierr, nprobe, r, j, got, request, status(mpi_status_size)
  !$openad INDEPENDENT(x)
  call mpi_comm_rank(mpi_comm_world, rank, ierr)
  call mpi_comm_size(mpi_comm_world, nprocs, ierr)
  nloc = nglobal / nprocs
  allocate(u(0:nloc + 1))
  ! Only the root knows the parameters at first.
  params = 0.0d0
  if (rank == 0) then
    params(1) = 0.5d0 + 0.2d0 * x(3)
    params(2) = x(4)**2
  end if
  call mpi_bcast(params, 2, mpi_double_precision, 0, mpi_comm_world, ierr)
  u = 0.0d0
  do i = 1, nloc
    u(i) = 0.4d0 * x(1) * (1.0d0 + sin(0.8d0 * (rank * nloc + i))) &
         + 0.1d0 * x(2) * (rank * nloc + i)
  end do
  local_mass = sum(u(1:nloc))
  call mpi_allreduce(local_mass, mass0, 1, mpi_double_precision, mpi_sum, &
       mpi_comm_world, ierr)
  do t = 1, nsteps
    call step(u, params)
    if (mod(t, diag_every) == 0) call diagnose(u, mass0)
  end do
  field = 0.0d0
  call mpi_gather(u(1), nloc, mpi_double_precision, field, nloc, mpi_double_precision, &
       0, mpi_comm_world, ierr)
  y = 0.0d0
  if (rank == 0) then
    y(1) = sum(field**2)
    y(2) = field(1) * field(nglobal)
    y(3) = sum(field(2:nglobal) * field(1:nglobal - 1))
  end if
  ! Probes: my cells of odd global index, as many as there are.
  nprobe = 0
  do i = 1, nloc
    if (mod(rank * nloc + i, 2) == 1) then
      nprobe = nprobe + 1
      probe(nprobe) = u(i)
    end if
  end do
  call mpi_isend(probe, nprobe, mpi_double_precision, 0, 9, mpi_comm_world, request, ierr)
  if (rank == 0) then
    do r = 0, nprocs - 1
      call mpi_recv(incoming, nglobal / 2, mpi_double_precision, r, 9, mpi_comm_world, &
           status, ierr)
      call mpi_get_count(status, mpi_double_precision, got, ierr)
      ! the j-th odd cell of rank r is cell r * nloc + 2 * j - 1
      do j = 1, got
        y(4) = y(4) + (r * nloc + 2 * j - 1) * incoming(j)**2
      end do
    end do
  end if
  call mpi_wait(request, status, ierr)
  deallocate(u)
  !$openad DEPENDENT(y)
end subroutine head
