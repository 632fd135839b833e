! A heat-budget box driven by a forcing kept in a module variable of a
! derived type with passive components only (amplitude, relaxation,
! number of sub-steps). The time loop changes the forcing after each call
! of the step routine, which reads it from the module: a joint-mode re-run
! of the step must see the values the forcing had at the call (the
! routine's checkpoint saves the whole module variable).
! x(1:3): initial temperatures, y: final temperatures and their mean.
module box_forcing
  implicit none
  type forcing
    real(8) :: amplitude
    real(8) :: relax
    integer :: substeps
  end type forcing
  type(forcing) :: f
contains
  subroutine step(t)
    real(8), intent(inout) :: t(3)

    integer :: k
    do k = 1, f%substeps
      t(1) = t(1) + 0.1d0 * (f%amplitude * sin(t(2)) - f%relax * t(1))
      t(2) = t(2) + 0.1d0 * (t(1) - t(2)) * f%relax
      t(3) = t(3) + 0.05d0 * (t(2) - t(3)) + 0.01d0 * f%amplitude * t(1)
    end do
  end subroutine step
end module box_forcing

subroutine head(x, y)
  use box_forcing
  implicit none
  real(8), intent(in) :: x(3)
  real(8), intent(out) :: y(4)
  real(8) :: t(3)

  integer :: year
  !$openad INDEPENDENT(x)
  t = x
  f%amplitude = 0.3d0
  f%relax = 0.2d0
  f%substeps = 2
  do year = 1, 4
    call step(t)
    ! next year's forcing: stronger, more sub-steps
    f%amplitude = f%amplitude * 1.5d0 + 0.1d0
    f%relax = f%relax + 0.05d0
    f%substeps = f%substeps + 1
  end do
  y(1:3) = t
  y(4) = sum(t) / 3d0
  !$openad DEPENDENT(y)
end subroutine head
