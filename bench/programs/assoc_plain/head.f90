! Benchmark model (bench/): bench/programs/assoc_derived with its state and
! parameters as plain arrays and scalars passed as arguments, without
! `associate`; same arithmetic, same outputs.
! Parameters: x(1) amplitude, x(2) flow speed, x(3) relaxation rate.
! Outputs: mean and a point value at the end.
module assoc_model
  implicit none
  integer, parameter :: n = 400 ! bench-size
  integer, parameter :: nsteps = 40
contains
  subroutine step(h, hn, speed, rate, dt, dx)
    double precision, intent(inout) :: h(n, n), hn(n, n)
    double precision, intent(in) :: speed, rate, dt, dx
    double precision :: c, r
    integer :: i, j
    c = speed * dt / dx
    r = rate * dt
    do j = 2, n
      do i = 2, n
        hn(i, j) = h(i, j) - c * (2.0d0 * h(i, j) - h(i - 1, j) - h(i, j - 1)) &
             - r * h(i, j) * h(i, j)
      end do
    end do
    do j = 2, n
      do i = 2, n
        h(i, j) = hn(i, j)
      end do
    end do
  end subroutine step
end module assoc_model

subroutine head(x, y)
  use assoc_model
  implicit none
  double precision :: x(3), y(2)
  double precision, save :: h(n, n), hn(n, n)
  double precision :: speed, rate, dt, dx
  integer :: i, j, t
  !$openad INDEPENDENT(x)
  speed = x(2)
  rate = x(3)
  dt = 0.2d0
  dx = 1.0d0
  do j = 1, n
    do i = 1, n
      h(i, j) = 0.1d0 + x(1) * exp(-((i - 0.3d0 * n)**2 + (j - 0.3d0 * n)**2) / (0.02d0 * n * n))
      hn(i, j) = h(i, j)
    end do
  end do
  do t = 1, nsteps
    call step(h, hn, speed, rate, dt, dx)
  end do
  y(1) = sum(h) / (n * n)
  y(2) = h(n / 2, n / 2)
  !$openad DEPENDENT(y)
end subroutine head
