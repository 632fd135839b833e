! A rotating, slowly growing phasor with an amplitude limiter: each step
! the phasor turns by a fixed complex gain, unless its magnitude passed 1,
! when it is damped instead (a branch on abs of complex data). The real
! and imaginary parts are then handed to a routine as real arguments.
module limiter
  implicit none
  complex(8), parameter :: gain = (1.05d0, 0.1d0)
contains
  subroutine turn(z, damping)
    complex(8), intent(inout) :: z
    real(8), intent(in) :: damping
    if (abs(z) > 1d0) then
      z = z * damping
    else
      z = gain * z
    end if
  end subroutine turn

  subroutine observe(a, b, y)
    real(8), intent(in) :: a, b
    real(8), intent(out) :: y(2)
    y(1) = 2d0 * a + b
    y(2) = a * b
  end subroutine observe
end module limiter

subroutine head(x, y)
  use limiter
  implicit none
  real(8) :: x(2), y(2)
  complex(8) :: z
  integer :: k
  !$openad INDEPENDENT(x)
  z = cmplx(x(1), x(2), kind=8)
  do k = 1, 8
    call turn(z, 0.9d0)
  end do
  call observe(real(z), aimag(z), y)
  !$openad DEPENDENT(y)
end subroutine head
