! Tracers drifting on a periodic 2-D domain around a vortex: positions
! wrap with `modulo` (and `mod` for the signed offset), distances to the
! vortex centre with `hypot`, the speed with `norm2`, an upwind choice
! with `merge` (scalar and on whole arrays, masks on the state), melt
! above a threshold with `dim`, and a drag against the motion with `sign`;
! stepped in a time loop.
module drift
  implicit none
  integer, parameter :: np = 4
  real(8), parameter :: box = 10.0d0
contains
  subroutine advance(px, py, heat, strength, dt)
    real(8), intent(inout) :: px(np), py(np), heat(np)
    real(8), intent(in) :: strength, dt
    real(8) :: r(np), vx(np), vy(np), speed, melt, dx
    integer :: i
    r = hypot(px - 0.5d0 * box, py - 0.5d0 * box) + 0.5d0
    vx = -strength * (py - 0.5d0 * box) / r**2
    vy = strength * (px - 0.5d0 * box) / r**2
    ! Faster drift where the tracer is warm (a mask on the state).
    vx = merge(1.2d0 * vx, vx, heat > 1.0d0)
    do i = 1, np
      speed = norm2([vx(i), vy(i)])
      melt = dim(heat(i), 0.4d0 * strength)
      heat(i) = heat(i) - dt * (0.3d0 * melt - 0.01d0 * speed)
      dx = merge(vx(i), 0.5d0 * vx(i), vx(i) > 0.0d0) * dt
      px(i) = modulo(px(i) + dx - 0.02d0 * sign(speed, vx(i)) * dt, box)
      py(i) = modulo(py(i) + vy(i) * dt, box)
    end do
  end subroutine advance
end module drift

subroutine head(x, y)
  use drift
  implicit none
  real(8) :: x(3), y(4)
  real(8) :: px(np), py(np), heat(np)
  integer :: i, step
  !$openad INDEPENDENT(x)
  do i = 1, np
    px(i) = 2.0d0 + x(1) * i
    py(i) = 3.0d0 + 0.7d0 * i
    heat(i) = x(3) * (0.5d0 + 0.3d0 * i)
  end do
  do step = 1, 15
    call advance(px, py, heat, x(2), 0.1d0)
  end do
  y(1) = sum(px)
  y(2) = mod(py(1) - 7.5d0, 0.3d0 * x(2)) + modulo(px(3), 0.9d0 * x(2))
  y(3) = sum(heat)
  y(4) = norm2(px - py)
  !$openad DEPENDENT(y)
end subroutine head
