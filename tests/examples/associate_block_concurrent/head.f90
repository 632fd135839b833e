! A 1-D shallow-water channel carrying two tracers, written with the
! Fortran 2008 constructs models use to keep long component names short:
! `associate` on components, on a column section of a component array,
! on an element and on an expression (`c => g * dt / dx`), a `block`
! with its own flux array and constants, and `do concurrent` loops with
! and without a mask, called every step of a time loop.
module channel
  implicit none
  integer, parameter :: nx = 10, ntr = 2
  type flow_state
    real(8) :: h(nx), u(nx)
    real(8) :: q(nx, ntr)
  end type flow_state
  real(8), parameter :: g = 9.81d0
contains
  subroutine step(s, dt, dx, itr)
    type(flow_state), intent(inout) :: s
    real(8), intent(in) :: dt, dx
    integer, intent(in) :: itr
    integer :: i
    associate (h => s%h, u => s%u, c => g * dt / dx, tr => s%q(:, itr), &
               inflow => s%u(1))
      block
        real(8) :: flux(nx + 1), hmean
        real(8), parameter :: friction = 0.02d0
        flux(1) = h(1) * inflow
        flux(nx + 1) = h(nx) * u(nx)
        do concurrent (i = 2:nx)
          flux(i) = 0.5d0 * (h(i - 1) * u(i - 1) + h(i) * u(i))
        end do
        hmean = sum(h) / nx
        do concurrent (i = 1:nx)
          h(i) = h(i) - dt / dx * (flux(i + 1) - flux(i))
        end do
        do concurrent (i = 2:nx - 1)
          u(i) = u(i) - c * (h(i + 1) - h(i - 1)) * 0.5d0 - friction * dt * u(i) / hmean
        end do
        ! Tracer: upwind where the flow goes downstream, decay elsewhere.
        do concurrent (i = 2:nx, u(i) > 0.0d0)
          tr(i) = tr(i) - dt / dx * u(i) * (tr(i) - tr(i - 1))
        end do
        tr(2:nx) = 0.999d0 * tr(2:nx)
        if (h(1) < -1.0d10) print *, 'negative depth', h(1), tr(1)
      end block
    end associate
  end subroutine step
end module channel

subroutine head(x, y)
  use channel
  implicit none
  real(8) :: x(3), y(3)
  type(flow_state) :: s
  integer :: k, n
  !$openad INDEPENDENT(x)
  do k = 1, nx
    s%h(k) = x(1) + 0.01d0 * k
    s%u(k) = x(2) * (1.0d0 - 0.02d0 * k)
    s%q(k, 1) = x(3) * exp(-0.3d0 * k)
    s%q(k, 2) = 0.5d0 * x(3)
  end do
  do n = 1, 12
    call step(s, 0.01d0, 1.0d0, 1 + mod(n, 2))
  end do
  associate (tail => s%q(nx - 2:nx, :))
    y(1) = sum(tail(:, 1)) + tail(3, 2)
  end associate
  y(2) = s%h(nx)
  y(3) = sum(s%u * s%h)
  !$openad DEPENDENT(y)
end subroutine head
