! Functions as model code writes them: FUNCTION ... RESULT(r) in a module
! (one with an optional argument called by keyword, one with an array
! result element loop), a typed function `real(8) function`, and an
! internal function with a result name reading the host's state, all
! inside a time loop of a limited advection scheme.
module limiters
  implicit none
contains
  function minmod_limiter(r, beta) result(phi)
    real(8), intent(in) :: r
    real(8), intent(in), optional :: beta
    real(8) :: phi, b
    b = 1.0d0
    if (present(beta)) b = beta
    phi = max(0.0d0, min(b * r, 1.0d0), min(r, b))
  end function minmod_limiter

  real(8) function smooth_ratio(a, b)
    real(8), intent(in) :: a, b
    smooth_ratio = (a + 1.0d-3) / (b + 1.0d-3)
  end function smooth_ratio

  recursive function power_sum(x, k) result(s)
    real(8), intent(in) :: x
    integer, intent(in) :: k
    real(8) :: s
    if (k <= 0) then
      s = 1.0d0
    else
      s = 1.0d0 + x * power_sum(x, k - 1)
    end if
  end function power_sum
end module limiters

subroutine head(x, y)
  use limiters
  implicit none
  integer, parameter :: n = 6
  real(8), intent(in) :: x(n)
  real(8), intent(out) :: y(2)
  real(8) :: u(n), f(0:n)
  integer :: i, step
  !$openad INDEPENDENT(x)
  u = x
  do step = 1, 5
    f(0) = 0.0d0
    f(n) = 0.0d0
    do i = 1, n - 1
      f(i) = face_flux(i)
    end do
    do i = 1, n
      u(i) = u(i) - 0.1d0 * (f(i) - f(i - 1))
    end do
  end do
  y(1) = sum(u**2)
  y(2) = power_sum(0.5d0 * u(3), 3)
  !$openad DEPENDENT(y)
contains
  function face_flux(i) result(flux)
    integer, intent(in) :: i
    real(8) :: flux, r
    if (i > 1) then
      r = smooth_ratio(u(i) - u(i - 1), u(i + 1) - u(i))
      flux = u(i) + 0.5d0 * minmod_limiter(r, beta=1.5d0) * (u(i + 1) - u(i))
    else
      flux = u(i) + 0.5d0 * minmod_limiter(1.0d0) * (u(i + 1) - u(i))
    end if
    flux = 0.5d0 * flux**2
  end function face_flux
end subroutine head
