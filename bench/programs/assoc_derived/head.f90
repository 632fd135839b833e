! Benchmark model (bench/): a 2-D advection-relaxation model whose state
! and parameters are derived types; the step routine names the components
! through `associate` (h => s%h, hn => s%hn, u => p%speed, ...) and
! updates them in DO loops, called every time step.
! bench/programs/assoc_plain is the same arithmetic on plain arrays passed
! as arguments; the two should cost the same (issue 10).
! Parameters: x(1) amplitude, x(2) flow speed, x(3) relaxation rate.
! Outputs: mean and a point value at the end.
module assoc_model
  implicit none
  integer, parameter :: n = 400 ! bench-size
  integer, parameter :: nsteps = 40
  type model_state
    double precision :: h(n, n), hn(n, n)
  end type model_state
  type model_params
    double precision :: speed, rate, dt, dx
  end type model_params
contains
  subroutine step(s, p)
    type(model_state), intent(inout) :: s
    type(model_params), intent(in) :: p
    integer :: i, j
    associate (h => s%h, hn => s%hn, c => p%speed * p%dt / p%dx, r => p%rate * p%dt)
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
    end associate
  end subroutine step
end module assoc_model

subroutine head(x, y)
  use assoc_model
  implicit none
  double precision :: x(3), y(2)
  type(model_state), save :: s
  type(model_params) :: p
  integer :: i, j, t
  !$openad INDEPENDENT(x)
  p%speed = x(2)
  p%rate = x(3)
  p%dt = 0.2d0
  p%dx = 1.0d0
  do j = 1, n
    do i = 1, n
      s%h(i, j) = 0.1d0 + x(1) * exp(-((i - 0.3d0 * n)**2 + (j - 0.3d0 * n)**2) / (0.02d0 * n * n))
      s%hn(i, j) = s%h(i, j)
    end do
  end do
  do t = 1, nsteps
    call step(s, p)
  end do
  y(1) = sum(s%h) / (n * n)
  y(2) = s%h(n / 2, n / 2)
  !$openad DEPENDENT(y)
end subroutine head
