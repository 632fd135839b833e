! Vertical column model: diffusion between layers, then drag on every
! layer. Sizes and constants come from a C header; the drag law is chosen
! at build time (-DQUADRATIC_DRAG or the linear default), as real models
! choose physics packages.
#include "column_config.h"
module column
  implicit none
  integer, parameter :: nz = NZ
  double precision :: u(nz)
contains
  subroutine fluxes(f)
    double precision, intent(out) :: f(nz + 1)
    integer :: k
    f(1) = 0.0d0
    f(nz + 1) = 0.0d0
    do k = 2, nz
      f(k) = DOWNGRADIENT_FLUX(u(k - 1), u(k), KDIFF)
    end do
  end subroutine fluxes

  subroutine drag(c)
    double precision, intent(in) :: c
    integer :: k
    do k = 1, nz
#ifdef QUADRATIC_DRAG
      u(k) = u(k) - DT * c * u(k) * abs(u(k))
#else
      u(k) = u(k) - DT * c * u(k)
#endif
    end do
  end subroutine drag

  subroutine step(c)
    double precision, intent(in) :: c
    double precision :: f(nz + 1)
    call fluxes(f)
    u = u + DT * (f(1:nz) - f(2:nz + 1))
    call drag(c)
  end subroutine step
end module column

subroutine head(x, y)
  use column
  implicit none
  double precision, intent(in) :: x(NZ + 1)
  double precision, intent(out) :: y(2)
  integer :: n
!$openad INDEPENDENT(x)
  u = x(1:nz)
  do n = 1, NSTEPS
    call step(x(nz + 1))
  end do
  y(1) = sum(u * u)
  y(2) = u(1) - u(nz)
!$openad DEPENDENT(y)
end subroutine head
