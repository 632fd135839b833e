! Time-stepping model: 1-D advection with an upwind scheme whose stencil
! depends on the sign of the (active) local velocity, periodic boundaries.
subroutine head(x, y)
  implicit none
  integer, parameter :: n = 16
  double precision :: x(3), y(2)
  double precision :: q(n), qn(n), vel(n), dt, dx
  integer :: i, step, left, right
  !$openad INDEPENDENT(x)
  dx = 1.0d0 / n
  dt = 0.3d0 * dx
  do i = 1, n
    q(i) = exp(-((i - n / 2) * dx / x(1))**2)
    vel(i) = x(2) + x(3) * cos(6.2831853d0 * i * dx)
  end do
  do step = 1, 12
    do i = 1, n
      left = i - 1
      if (left < 1) left = n
      right = i + 1
      if (right > n) right = 1
      if (vel(i) >= 0.0d0) then
        qn(i) = q(i) - dt / dx * vel(i) * (q(i) - q(left))
      else
        qn(i) = q(i) - dt / dx * vel(i) * (q(right) - q(i))
      end if
    end do
    q = qn
  end do
  y(1) = sum(q * q) * dx
  y(2) = q(3) + q(n - 2)
  !$openad DEPENDENT(y)
end subroutine head
