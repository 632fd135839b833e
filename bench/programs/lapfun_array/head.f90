! Benchmark model (bench/): nonlinear diffusion on a 2-D field stepped by
! `u = u + dt * lap(u, kappa)` with `lap` an array-valued module function
! (explicit-shape result), as models write operators.
! bench/programs/lapfun_loops is the same arithmetic with a subroutine
! filling an array by DO loops; the two should cost the same (issue 10).
! Parameters: x(1) diffusivity, x(2) nonlinearity, x(3) initial amplitude.
! Outputs: mean and a point value at the end.
module lapfun_ops
  implicit none
  integer, parameter :: n = 400 ! bench-size
  integer, parameter :: nsteps = 40
contains
  function lap(u, kappa) result(l)
    double precision, intent(in) :: u(n, n), kappa(n, n)
    double precision :: l(n, n)
    integer :: i, j
    l = 0.0d0
    do j = 2, n - 1
      do i = 2, n - 1
        l(i, j) = kappa(i, j) * (u(i - 1, j) + u(i + 1, j) + u(i, j - 1) + u(i, j + 1) &
             - 4.0d0 * u(i, j))
      end do
    end do
  end function lap
end module lapfun_ops

subroutine head(x, y)
  use lapfun_ops
  implicit none
  double precision :: x(3), y(2)
  double precision :: u(n, n), kappa(n, n)
  double precision :: dt
  integer :: i, j, t
  !$openad INDEPENDENT(x)
  dt = 0.1d0
  do j = 1, n
    do i = 1, n
      u(i, j) = x(3) * exp(-((i - 0.4d0 * n)**2 + (j - 0.5d0 * n)**2) / (0.05d0 * n * n))
    end do
  end do
  do t = 1, nsteps
    kappa = x(1) * (1.0d0 + x(2) * u * u)
    u = u + dt * lap(u, kappa)
  end do
  y(1) = sum(u) / (n * n)
  y(2) = u(n / 2, n / 3)
  !$openad DEPENDENT(y)
end subroutine head
