! Spreading of a diffusion front in a 1-D column: the analytic profile
! c = c0/2 * erfc((z - z0) / (2 sqrt(D t))) blended with a relaxation
! step each time step, a pulse by erf differences, on arrays (elemental
! erf/erfc on a whole column) and on scalars, in a module routine called
! in a time loop.
module front_model
  implicit none
  integer, parameter :: nz = 10
contains
  subroutine advance(c, c0, d, t, dz)
    double precision, intent(inout) :: c(nz)
    double precision, intent(in) :: c0, d, t, dz
    double precision :: z(nz), width, pulse
    integer :: k
    width = 2.0d0 * sqrt(d * t)
    do k = 1, nz
      z(k) = (k - 0.5d0) * dz
    end do
    c = 0.7d0 * c + 0.3d0 * 0.5d0 * c0 * erfc((z - 0.3d0) / width)
    do k = 2, nz - 1
      pulse = 0.5d0 * (erf((z(k) + 0.1d0 - 0.5d0) / width) - derf((z(k) - 0.1d0 - 0.5d0) / width))
      c(k) = c(k) + 0.05d0 * c0 * pulse * c(k - 1)
    end do
  end subroutine advance
end module front_model

subroutine head(x, y)
  use front_model
  implicit none
  double precision :: x(3), y(3)
  double precision :: c(nz), t
  integer :: step
  !$openad INDEPENDENT(x)
  c = x(1) * 0.2d0
  t = 0.0d0
  do step = 1, 5
    t = t + 0.1d0 * x(3)
    call advance(c, x(1), x(2), t, 0.1d0)
  end do
  y(1) = sum(c)
  y(2) = c(nz / 2) * erf(c(2))
  y(3) = erfc(x(2) * c(nz))
  !$openad DEPENDENT(y)
end subroutine head
