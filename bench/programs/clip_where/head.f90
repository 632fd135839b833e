! Benchmark model (bench/): a 2-D reaction-diffusion field whose update is
! clipped by a where/elsewhere block on the whole field (the masks read
! the provisional field, the branches write the state), as models bound
! concentrations or saturations. bench/programs/clip_loops is the same
! arithmetic with DO loops and an if / else if / else; the two should
! cost the same (issue 10).
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
  double precision :: k, dt
  integer :: i, j, t
  !$openad INDEPENDENT(x)
  dt = 0.1d0
  k = 0.2d0 * x(2)
  do j = 1, n
    do i = 1, n
      u(i, j) = x(3) * exp(-((i - 0.4d0 * n)**2 + (j - 0.5d0 * n)**2) / (0.05d0 * n * n))
    end do
  end do
  un = u
  do t = 1, nsteps
    un(2:n-1, 2:n-1) = u(2:n-1, 2:n-1) + k * (u(1:n-2, 2:n-1) + u(3:n, 2:n-1) &
         + u(2:n-1, 1:n-2) + u(2:n-1, 3:n) - 4.0d0 * u(2:n-1, 2:n-1)) &
         + dt * x(1) * (0.9d0 - u(2:n-1, 2:n-1))
    where (un > 1.0d0)
      u = 1.0d0 + 0.5d0 * (un - 1.0d0)
    elsewhere (un < 0.05d0)
      u = 0.05d0 + 0.1d0 * (un - 0.05d0)
    elsewhere
      u = un
    end where
  end do
  y(1) = sum(u) / (n * n)
  y(2) = u(n / 2, n / 3)
  !$openad DEPENDENT(y)
end subroutine head
