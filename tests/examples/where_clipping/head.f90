! 2-D array-syntax diffusion with clipping by where / elsewhere: the masks
! read the array the construct assigns (evaluated once, before the arm's
! assignments), an elsewhere mask reads neighbours the first arm changed.
module clip_model
  implicit none
  integer, parameter :: nx = 6, ny = 4
  double precision, parameter :: qmax = 1.2d0, qmin = 0.1d0
contains
  subroutine diffuse(q, dt)
    double precision, intent(inout) :: q(nx, ny)
    double precision, intent(in) :: dt
    double precision :: lap(nx, ny)
    lap = 0
    lap(2:nx-1, :) = q(1:nx-2, :) - 2*q(2:nx-1, :) + q(3:nx, :)
    lap(:, 2:ny-1) = lap(:, 2:ny-1) + q(:, 1:ny-2) - 2*q(:, 2:ny-1) + q(:, 3:ny)
    q = q + dt * lap
  end subroutine diffuse

  subroutine clip(q)
    double precision, intent(inout) :: q(nx, ny)
    ! The mask reads q, which every arm assigns.
    where (q > qmax)
      q = qmax + 0.1d0*(q - qmax)
    elsewhere (q < qmin)
      q = qmin + 0.5d0*q
    elsewhere
      q = q * (1 + 0.05d0*q)
    end where
    ! The first arm lowers q(i, :) to the mean with q(i+1, :); the
    ! elsewhere mask reads q(i+1, :) after that.
    where (q(1:nx-1, :) > q(2:nx, :) + 0.15d0)
      q(1:nx-1, :) = 0.5d0*(q(1:nx-1, :) + q(2:nx, :))
    elsewhere (q(2:nx, :) > 0.8d0)
      q(1:nx-1, :) = q(1:nx-1, :) + 0.2d0*q(2:nx, :)
    end where
  end subroutine clip
end module clip_model

subroutine head(x, y)
  use clip_model
  implicit none
  double precision :: x(12), y(4)
  double precision :: q(nx, ny)
  integer :: t, j
  !$openad INDEPENDENT(x)
  q(:, 1:2) = reshape(x, (/ nx, 2 /))
  q(:, 3:4) = reshape(0.4d0*x - 0.25d0, (/ nx, 2 /))
  do t = 1, 4
    call diffuse(q, 0.1d0)
    call clip(q)
  end do
  do j = 1, ny
    y(j) = sum(q(:, j)**2)
  end do
  !$openad DEPENDENT(y)
end subroutine head
