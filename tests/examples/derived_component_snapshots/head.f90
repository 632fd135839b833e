! 2-D advection-relaxation with state and parameters in derived types, the
! step routine naming the components through `associate` (h => s%h, an
! expression c => p%speed * p%dt / p%dx): the cell loop only reads s%h,
! so the adjoint tapes that component array once per loop execution (an
! array snapshot of a component path) instead of three values per cell.
! A small copy of bench/programs/assoc_derived.
module assoc_model
  implicit none
  integer, parameter :: n = 6
  integer, parameter :: nsteps = 4
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
