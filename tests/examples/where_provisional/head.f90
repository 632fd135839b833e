! Saturation-limited 2-D moisture model: each step computes a provisional
! field with array syntax, then a where / elsewhere / elsewhere block
! writes the state from it (masks and right sides read only the
! provisional field: one loop nest with if / else if / else), a second
! where with two masked arms and no final elsewhere, and a where whose
! arms assign different arrays.
module moisture_model
  implicit none
  integer, parameter :: nx = 5, ny = 4
  double precision, parameter :: wsat = 1.1d0, wdry = 0.15d0
contains
  subroutine step(w, wp, rain, dt)
    double precision, intent(inout) :: w(nx, ny), wp(nx, ny), rain(nx, ny)
    double precision, intent(in) :: dt
    wp(2:nx-1, 2:ny-1) = w(2:nx-1, 2:ny-1) + dt * (w(1:nx-2, 2:ny-1) + w(3:nx, 2:ny-1) &
         + w(2:nx-1, 1:ny-2) + w(2:nx-1, 3:ny) - 4.0d0 * w(2:nx-1, 2:ny-1)) &
         + dt * rain(2:nx-1, 2:ny-1)
    where (wp > wsat)
      w = wsat + 0.3d0 * (wp - wsat)
    elsewhere (wp < wdry)
      w = wdry * exp(wp - wdry)
    elsewhere
      w = wp
    end where
    where (w(:, 1) > 0.9d0)
      wp(:, 1) = 0.5d0 * w(:, 1) ** 2
    elsewhere (w(:, 1) < 0.3d0)
      wp(:, 1) = sqrt(w(:, 1))
    end where
    where (wp(:, 1) > 0.4d0)
      rain(:, 1) = rain(:, 1) * 0.9d0
    elsewhere
      w(:, 2) = w(:, 2) + 0.1d0 * wp(:, 1)
    end where
  end subroutine step
end module moisture_model

subroutine head(x, y)
  use moisture_model
  implicit none
  double precision :: x(4), y(3)
  double precision :: w(nx, ny), wp(nx, ny), rain(nx, ny)
  integer :: i, j, t
  !$openad INDEPENDENT(x)
  do j = 1, ny
    do i = 1, nx
      w(i, j) = x(1) * (0.4d0 + 0.35d0 * i - 0.1d0 * j)
      rain(i, j) = x(2) * (1.0d0 + 0.2d0 * mod(i + j, 3))
    end do
  end do
  wp = x(3)
  wp(:, 1) = x(4) * w(:, 1)
  do t = 1, 5
    call step(w, wp, rain, 0.1d0)
  end do
  y(1) = sum(w)
  y(2) = sum(wp(:, 1) * w(:, 3))
  y(3) = sum(rain(:, 1)) + w(2, 2)
  !$openad DEPENDENT(y)
end subroutine head
