! A box model forced by a rotating complex phase kept in a module
! variable (passive complex(8) data): the step routine reads its real and
! imaginary parts, the caller rotates it after each call. A joint-mode
! re-run of the step must see the phase of its own year.
! x: initial temperatures, y: final temperatures.
module wave
  implicit none
  complex(8) :: phase = (1d0, 0d0)
contains
  subroutine step(t)
    real(8), intent(inout) :: t(3)
    integer :: k
    do k = 1, 2
      t(2) = t(2) + 0.1d0 * real(phase) * (t(1) - t(2)) * t(3)
      t(3) = t(3) + 0.05d0 * aimag(phase) * sin(t(2))
    end do
  end subroutine step
end module wave

subroutine head(x, y)
  use wave
  implicit none
  real(8), intent(in) :: x(3)
  real(8), intent(out) :: y(3)
  real(8) :: t(3)
  integer :: year
  !$openad INDEPENDENT(x)
  t = x
  phase = (1d0, 0d0)
  do year = 1, 4
    call step(t)
    phase = phase * (0.8d0, 0.6d0)
  end do
  y = t
  !$openad DEPENDENT(y)
end subroutine head
