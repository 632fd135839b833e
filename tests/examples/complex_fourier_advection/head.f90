! Spectral advection-damping of a few Fourier modes: each mode is advanced
! exactly by the phase factor exp(-(nu k**2 + i c k) dt) in a time loop,
! forced by a real source, then the field is synthesised on a few grid
! points and its energy taken.
module spectral
  implicit none
  integer, parameter :: nk = 4
  complex(8) :: uhat(nk)
contains
  subroutine step_modes(c, nu, dt, forcing)
    real(8), intent(in) :: c, nu, dt, forcing
    integer :: k
    complex(8) :: phase
    do k = 1, nk
      phase = exp(-(nu * k**2 + (0d0, 1d0) * c * k) * dt)
      uhat(k) = phase * uhat(k) + dt * forcing / k
    end do
  end subroutine step_modes

  subroutine synthesise(xg, u)
    real(8), intent(in) :: xg
    real(8), intent(out) :: u
    complex(8) :: acc, e
    integer :: k
    acc = (0d0, 0d0)
    do k = 1, nk
      e = cmplx(cos(k * xg), sin(k * xg), kind=8)
      acc = acc + uhat(k) * e
    end do
    u = 2d0 * real(acc)
  end subroutine synthesise
end module spectral

subroutine head(x, y)
  use spectral
  implicit none
  real(8) :: x(4), y(3)
  real(8) :: u
  integer :: n, k
  !$openad INDEPENDENT(x)
  do k = 1, nk
    uhat(k) = cmplx(x(1) / k, x(2) / k**2, kind=8)
  end do
  do n = 1, 25
    call step_modes(x(3), 0.05d0, 0.02d0, x(4) * sin(0.3d0 * n))
  end do
  call synthesise(0.7d0, u)
  y(1) = u
  y(2) = 0d0
  do k = 1, nk
    y(2) = y(2) + abs(uhat(k))**2
  end do
  y(3) = aimag(conjg(uhat(1)) * uhat(2))
  !$openad DEPENDENT(y)
end subroutine head
