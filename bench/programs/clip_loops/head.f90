! Benchmark model (bench/): bench/programs/clip_where written with DO loops
! and an if / else if / else instead of array syntax and where/elsewhere;
! same arithmetic, same outputs.
! Parameters: x(1) source rate, x(2) diffusivity, x(3) initial amplitude.
! Outputs: total and a point value at the end.
module clip_size
  implicit none
  integer, parameter :: n = 400 ! bench-size
  integer, parameter :: nsteps = 40
end module clip_size

subroutine head(x, y)
  use clip_size
  implicit none
  double precision :: x(3), y(2)
  double precision :: u(n, n), un(n, n)
  double precision :: k, dt, s
  integer :: i, j, t
  !$openad INDEPENDENT(x)
  dt = 0.1d0
  k = 0.2d0 * x(2)
  do j = 1, n
    do i = 1, n
      u(i, j) = x(3) * exp(-((i - 0.4d0 * n)**2 + (j - 0.5d0 * n)**2) / (0.05d0 * n * n))
      un(i, j) = u(i, j)
    end do
  end do
  do t = 1, nsteps
    do j = 2, n - 1
      do i = 2, n - 1
        un(i, j) = u(i, j) + k * (u(i - 1, j) + u(i + 1, j) + u(i, j - 1) + u(i, j + 1) &
             - 4.0d0 * u(i, j)) + dt * x(1) * (0.9d0 - u(i, j))
      end do
    end do
    do j = 1, n
      do i = 1, n
        if (un(i, j) > 1.0d0) then
          u(i, j) = 1.0d0 + 0.5d0 * (un(i, j) - 1.0d0)
        else if (un(i, j) < 0.05d0) then
          u(i, j) = 0.05d0 + 0.1d0 * (un(i, j) - 0.05d0)
        else
          u(i, j) = un(i, j)
        end if
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
