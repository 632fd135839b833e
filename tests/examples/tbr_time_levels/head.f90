! Ice-sheet column model that keeps every time level: thickness h(cell,
! level) stepped forward by nonlinear diffusion, level t+1 from level t,
! then a tracer g(cell, level) integrated backwards in time (level t-1
! from level t) against the final thickness. Both arrays are written in
! the loops that read them, but never at an element a read took before the
! loop ends (later levels forward, earlier levels backwards): the adjoint
! reads those values from one
! copy of the array taped after the loop (to-be-recorded analysis on array
! sections, docs/adjoint.md) instead of taping them per cell and step.
module ice_levels
  implicit none
  integer, parameter :: n = 9, nt = 12
  double precision, parameter :: dt = 0.2d0
end module ice_levels

subroutine head(x, y)
  use ice_levels
  implicit none
  double precision :: x(4), y(3)
  double precision :: h(n, nt + 1), g(n, nt + 1), q(n - 1)
  integer :: i, t
  !$openad INDEPENDENT(x)
  do i = 1, n
    h(i, 1) = x(3) * (1.0d0 + 0.3d0 * sin(0.9d0 * i))
  end do
  ! Forward in time: reads level t, writes level t+1.
  do t = 1, nt
    do i = 1, n - 1
      q(i) = x(2) * (0.5d0 * (h(i + 1, t) + h(i, t)))**3 * (h(i + 1, t) - h(i, t))
    end do
    do i = 2, n - 1
      h(i, t + 1) = h(i, t) + dt * (q(i) - q(i - 1)) + dt * x(1) * (0.8d0 - h(i, t))
    end do
    h(1, t + 1) = 0.5d0 * h(2, t + 1)
    h(n, t + 1) = h(n - 1, t)**2 / (1.0d0 + h(n, t))
  end do
  ! Backwards in time: reads level t, writes level t-1.
  do i = 1, n
    g(i, nt + 1) = h(i, nt + 1)
  end do
  do t = nt + 1, 2, -1
    do i = 2, n - 1
      g(i, t - 1) = g(i, t) + 0.1d0 * x(4) * g(i - 1, t) * g(i + 1, t) / (1.0d0 + g(i, t)**2)
    end do
    g(1, t - 1) = g(2, t)
    g(n, t - 1) = g(n - 1, t)
  end do
  y(1) = sum(h(:, nt + 1))
  y(2) = sum(g(:, 1) * h(:, 1))
  y(3) = maxval(h(:, nt / 2)) * g(n / 2, 1)
  !$openad DEPENDENT(y)
end subroutine head
