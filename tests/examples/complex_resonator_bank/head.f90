! Modal filter bank: each mode is a complex linear recurrence
! z(n+1) = lam * z(n) + b * u(n) with pole lam = r exp(i w), driven by a
! real input signal over a time loop (whole-array complex updates, a
! complex-valued function, complex dummies), read out through real parts
! and the squared magnitude of a transfer function.
module filterbank
  implicit none
  integer, parameter :: nm = 3
contains
  function pole(r, w) result(lam)
    real(8), intent(in) :: r, w
    complex(8) :: lam
    lam = r * exp(cmplx(0d0, w, kind=8))
  end function pole

  subroutine advance(z, lam, b, u)
    complex(8), intent(inout) :: z(nm)
    complex(8), intent(in) :: lam(nm), b(nm)
    real(8), intent(in) :: u
    z = lam * z + b * u
  end subroutine advance

  subroutine gain(lam, w0, g)
    complex(8), intent(in) :: lam(nm)
    real(8), intent(in) :: w0
    real(8), intent(out) :: g
    complex(8) :: e, h
    integer :: k
    e = exp(cmplx(0d0, w0, kind=8))
    g = 0d0
    do k = 1, nm
      h = 1d0 / (e - lam(k))
      g = g + abs(h)**2
    end do
  end subroutine gain
end module filterbank

subroutine head(x, y)
  use filterbank
  implicit none
  real(8) :: x(4), y(3)
  complex(8) :: z(nm), lam(nm), b(nm), c(nm)
  real(8) :: u
  integer :: n, k
  !$openad INDEPENDENT(x)
  do k = 1, nm
    lam(k) = pole(x(1) - 0.05d0 * k, x(2) * k)
    b(k) = cmplx(1d0, 0.1d0 * k, kind=8)
    c(k) = conjg(b(k)) * x(3)
  end do
  z = (0d0, 0d0)
  do n = 1, 30
    u = sin(0.4d0 * n) * x(4)
    call advance(z, lam, b, u)
  end do
  y(1) = sum(real(c * z))
  y(2) = aimag(z(2)**2) + real(z(1) / z(3))
  call gain(lam, 0.5d0, y(3))
  !$openad DEPENDENT(y)
end subroutine head
