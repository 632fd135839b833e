! Benchmark copy of tests/examples/mpi_nonblocking_diffusion2d (where
! the harness checks every mode at 1, 2, 4 processes), on a 512 x 256
! grid for 20 steps: nonblocking halo exchange with mpi_waitall, an
! mpi_allreduce and a ring of mpi_isend/mpi_irecv/mpi_wait. Timed by
! bench/mpi_bench.py. The initial ramp is scaled by 1/nx (the corpus's
! x(2) * x(4) * i reaches ~100 on 512 rows, where the explicit step is
! unstable and every value became NaN within the 20 steps).
module grid2d_mod
  use mpi
  implicit none
  integer, parameter :: nx = 512
  integer, parameter :: nyglobal = 256
  integer, parameter :: nsteps = 20
  real(8), parameter :: dt = 0.02d0
  integer :: rank, nprocs, nyl
contains
  subroutine exchange_halo(u)
    real(8), intent(inout) :: u(nx, 0:nyl + 1)
    integer :: below, above, ierr
    integer :: requests(4)
    below = rank - 1
    above = rank + 1
    if (below < 0) below = mpi_proc_null
    if (above >= nprocs) above = mpi_proc_null
    call mpi_irecv(u(1, 0), nx, mpi_double_precision, below, 21, mpi_comm_world, &
         requests(1), ierr)
    call mpi_irecv(u(:, nyl + 1), nx, mpi_double_precision, above, 22, mpi_comm_world, &
         requests(2), ierr)
    call mpi_isend(u(:, 1), nx, mpi_double_precision, below, 22, mpi_comm_world, &
         requests(3), ierr)
    call mpi_isend(u(1, nyl), nx, mpi_double_precision, above, 21, mpi_comm_world, &
         requests(4), ierr)
    call mpi_waitall(4, requests, mpi_statuses_ignore, ierr)
  end subroutine exchange_halo

  subroutine step(u, kappa)
    real(8), intent(inout) :: u(nx, 0:nyl + 1)
    real(8), intent(in) :: kappa
    real(8) :: lap(nx, nyl)
    integer :: j
    call exchange_halo(u)
    do j = 1, nyl
      lap(:, j) = u(:, j - 1) + u(:, j + 1) - 4.0d0 * u(:, j)
      lap(2:nx, j) = lap(2:nx, j) + u(1:nx - 1, j)
      lap(1:nx - 1, j) = lap(1:nx - 1, j) + u(2:nx, j)
    end do
    u(:, 1:nyl) = u(:, 1:nyl) + dt * kappa * (1.0d0 + 0.2d0 * u(:, 1:nyl)**2) * lap
  end subroutine step

  ! Each block's moment goes to the next rank (a ring; one process
  ! sends to itself).
  subroutine ring_moment(u, received)
    real(8), intent(in) :: u(nx, 0:nyl + 1)
    real(8), intent(out) :: received
    real(8) :: moment
    integer :: send_request, recv_request, ierr, status(mpi_status_size)
    moment = sum(u(:, 1:nyl)**3)
    call mpi_irecv(received, 1, mpi_double_precision, mod(rank + nprocs - 1, nprocs), 31, &
         mpi_comm_world, recv_request, ierr)
    call mpi_isend(moment, 1, mpi_double_precision, mod(rank + 1, nprocs), 31, &
         mpi_comm_world, send_request, ierr)
    call mpi_wait(recv_request, status, ierr)
    call mpi_wait(send_request, mpi_status_ignore, ierr)
  end subroutine ring_moment
end module grid2d_mod

subroutine head(x, y)
  use grid2d_mod
  implicit none
  real(8), intent(in) :: x(4)
  real(8), intent(out) :: y(3)
  real(8), allocatable :: u(:, :)
  real(8) :: local_sq, global_sq, received
  integer :: i, j, t, ierr
  !$openad INDEPENDENT(x)
  call mpi_comm_rank(mpi_comm_world, rank, ierr)
  call mpi_comm_size(mpi_comm_world, nprocs, ierr)
  nyl = nyglobal / nprocs
  allocate(u(nx, 0:nyl + 1))
  u = 0.0d0
  do j = 1, nyl
    do i = 1, nx
      u(i, j) = x(1) * sin(0.5d0 * i + 0.8d0 * (rank * nyl + j)) + x(2) * x(4) * i / nx
    end do
  end do
  do t = 1, nsteps
    call step(u, x(3))
  end do
  local_sq = sum(u(:, 1:nyl)**2)
  call mpi_allreduce(local_sq, global_sq, 1, mpi_double_precision, mpi_sum, &
       mpi_comm_world, ierr)
  call ring_moment(u, received)
  y = 0.0d0
  if (rank == 0) then
    y(1) = sqrt(global_sq)
    y(3) = u(2, 1) * x(4)
  end if
  y(2) = received
  deallocate(u)
  !$openad DEPENDENT(y)
end subroutine head
