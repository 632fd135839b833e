! Benchmark model (bench/): bench/programs/lapfun_array with the operator a
! subroutine filling an array and the updates DO loops; same arithmetic,
! same outputs.
! Parameters: x(1) diffusivity, x(2) nonlinearity, x(3) initial amplitude.
! Outputs: mean and a point value at the end.
module lapfun_ops
  implicit none
  integer, parameter :: n = 400 ! bench-size
  integer, parameter :: nsteps = 40
contains
  subroutine lap(u, kappa, l)
    double precision, intent(in) :: u(n, n), kappa(n, n)
    double precision, intent(out) :: l(n, n)
    integer :: i, j
    do j = 1, n
      do i = 1, n
        l(i, j) = 0.0d0
      end do
    end do
    do j = 2, n - 1
      do i = 2, n - 1
        l(i, j) = kappa(i, j) * (u(i - 1, j) + u(i + 1, j) + u(i, j - 1) + u(i, j + 1) &
             - 4.0d0 * u(i, j))
      end do
    end do
  end subroutine lap
end module lapfun_ops

subroutine head(x, y)
  use lapfun_ops
  implicit none
  double precision :: x(3), y(2)
  double precision :: u(n, n), kappa(n, n), l(n, n)
  double precision :: dt, s
  integer :: i, j, t
  !$openad INDEPENDENT(x)
  dt = 0.1d0
  do j = 1, n
    do i = 1, n
      u(i, j) = x(3) * exp(-((i - 0.4d0 * n)**2 + (j - 0.5d0 * n)**2) / (0.05d0 * n * n))
    end do
  end do
  do t = 1, nsteps
    do j = 1, n
      do i = 1, n
        kappa(i, j) = x(1) * (1.0d0 + x(2) * u(i, j) * u(i, j))
      end do
    end do
    call lap(u, kappa, l)
    do j = 1, n
      do i = 1, n
        u(i, j) = u(i, j) + dt * l(i, j)
      end do
    end do
  end do
  s = 0.0d0
  do j = 1, n
    do i = 1, n
      s = s + u(i, j)
    end do
  end do
  y(1) = s / (n * n)
  y(2) = u(n / 2, n / 3)
  !$openad DEPENDENT(y)
end subroutine head
