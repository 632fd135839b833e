! Shallow water over a sloping bed with two tracers carried by the flow,
! written the way a small model code is: state in a module, a time loop
! calling a boundary routine, a Lax-Friedrichs cell loop and an upwind
! tracer transport. Each cell loop only reads the arrays it differences
! (h and q in the cell loop, q, h and the tracers c in the transport):
! the adjoint recomputes the cells' partials in the reverse sweep from
! copies of those arrays taped once per loop execution (array snapshots,
! docs/adjoint.md), of rank 1 (h, q, the passive bed height) and rank 2
! (c); q(i)/h(i), read once per cell in the transport, is taped per
! cell. A drag diagnostic reads h and q through assumed-size dummies,
! which are never snapshot (their extent is unknown).
module swe_state
  implicit none
  integer, parameter :: n = 10, m = 2
  double precision :: h(0:n + 1), q(0:n + 1)
  double precision :: bed(0:n + 1)
  double precision :: c(0:n + 1, m)
end module swe_state

module swe_model
  use swe_state
  implicit none
  double precision, parameter :: grav = 9.81d0
contains
  ! Reflective walls: ghost cells mirror the first and last cell.
  subroutine walls()
    h(0) = h(1)
    q(0) = -q(1)
    h(n + 1) = h(n)
    q(n + 1) = -q(n)
    c(0, :) = c(1, :)
    c(n + 1, :) = c(n, :)
  end subroutine walls

  subroutine lax_friedrichs(dt, dx, fric)
    double precision, intent(in) :: dt, dx, fric
    double precision :: hn(n), qn(n), gl, gr
    integer :: i
    do i = 1, n
      gl = q(i - 1)**2 / h(i - 1) + 0.5d0 * grav * h(i - 1)**2
      gr = q(i + 1)**2 / h(i + 1) + 0.5d0 * grav * h(i + 1)**2
      hn(i) = 0.5d0 * (h(i - 1) + h(i + 1)) - 0.5d0 * dt / dx * (q(i + 1) - q(i - 1))
      qn(i) = 0.5d0 * (q(i - 1) + q(i + 1)) - 0.5d0 * dt / dx * (gr - gl) &
           - dt * grav * h(i) * 0.5d0 * (bed(i + 1) - bed(i - 1)) / dx &
           - dt * fric * q(i) * abs(q(i)) / (h(i) * h(i))
    end do
    h(1:n) = hn
    q(1:n) = qn
  end subroutine lax_friedrichs

  ! First-order upwind transport of every tracer with the velocity q/h.
  subroutine transport(dt, dx)
    double precision, intent(in) :: dt, dx
    double precision :: cn(n, m), u
    integer :: i, k
    do k = 1, m
      do i = 1, n
        u = q(i) / h(i)
        cn(i, k) = c(i, k) - dt / dx * (max(u, 0.0d0) * (c(i, k) - c(i - 1, k)) &
             + min(u, 0.0d0) * (c(i + 1, k) - c(i, k)))
      end do
    end do
    c(1:n, :) = cn
  end subroutine transport
end module swe_model

! Quadratic drag of the column, an old-style routine with assumed-size
! dummies.
subroutine drag(hh, qq, nn, d)
  integer :: nn
  double precision :: hh(*), qq(*), d
  integer :: i
  d = 0.0d0
  do i = 1, nn
    d = d + qq(i)**2 / hh(i)
  end do
end subroutine drag

subroutine head(x, y)
  use swe_model
  implicit none
  double precision :: x(4), y(2)
  double precision :: dx, dt, xc, d
  integer :: i, step
  !$openad INDEPENDENT(x)
  dx = 1.0d0 / n
  dt = 0.2d0 * dx / sqrt(grav * 2.0d0)
  do i = 0, n + 1
    xc = (i - 0.5d0) * dx - 0.5d0
    h(i) = 1.0d0 + x(1) * exp(-(xc / 0.2d0)**2)
    q(i) = x(4) * xc
    c(i, 1) = x(3) * exp(-((xc + 0.2d0) / 0.1d0)**2)
    c(i, 2) = 1.0d0 + x(3) * xc
  end do
  do i = 0, n + 1
    bed(i) = 0.05d0 * sin(3.0d0 * i * dx)
  end do
  do step = 1, 6
    call walls()
    call lax_friedrichs(dt, dx, x(2))
    call transport(dt, dx)
  end do
  call drag(h(1), q(1), n, d)
  y(1) = d
  y(2) = 0.0d0
  do i = 1, n
    y(2) = y(2) + (0.5d0 * q(i)**2 / h(i) + 0.5d0 * grav * h(i)**2) * dx + c(i, 1) * c(i, 2)
  end do
  !$openad DEPENDENT(y)
end subroutine head
