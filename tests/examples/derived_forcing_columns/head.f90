! Three ocean columns, each relaxed toward a surface forcing whose
! parameters live in an array of a derived type with passive components
! only (one element per column). The time loop updates the forcing array
! after each call of the step routine, which reads it intent(in): a
! joint-mode re-run of the step must see the array as it was at the call.
! A second routine receives one column's forcing (an array element), a
! third the eastern columns' forcing (a section).
! x(1:3): initial temperatures, y: final temperatures and their mean.
module column_forcing
  implicit none
  integer, parameter :: ncol = 3
  type forcing
    real(8) :: amplitude
    real(8) :: relax
    integer :: substeps
  end type forcing
contains
  subroutine mix(t, f)
    real(8), intent(inout) :: t(ncol)
    type(forcing), intent(in) :: f
    t(2) = t(2) + 0.02d0 * f%amplitude * (t(1) - t(2)) * t(3)
  end subroutine mix

  ! Exchange between the two eastern columns, given their forcing only.
  subroutine exchange(t, fe)
    real(8), intent(inout) :: t(ncol)
    type(forcing), intent(in) :: fe(2)
    integer :: k
    do k = 1, fe(1)%substeps
      t(3) = t(3) + 0.05d0 * fe(2)%relax * (t(2) - t(3)) * t(2)
    end do
  end subroutine exchange

  subroutine step(t, f)
    real(8), intent(inout) :: t(ncol)
    type(forcing), intent(in) :: f(ncol)
    integer :: c, k
    do c = 1, ncol
      do k = 1, f(c)%substeps
        t(c) = t(c) + 0.1d0 * (f(c)%amplitude * sin(t(c)) - f(c)%relax * t(c))
      end do
    end do
    call mix(t, f(2))
  end subroutine step
end module column_forcing

subroutine head(x, y)
  use column_forcing
  implicit none
  real(8), intent(in) :: x(ncol)
  real(8), intent(out) :: y(ncol + 1)
  real(8) :: t(ncol)
  type(forcing) :: f(ncol)
  integer :: year, c
  !$openad INDEPENDENT(x)
  t = x
  do c = 1, ncol
    f(c)%amplitude = 0.3d0 + 0.1d0 * c
    f(c)%relax = 0.2d0
    f(c)%substeps = c
  end do
  do year = 1, 4
    call step(t, f)
    call exchange(t, f(2:3))
    ! next year's forcing: stronger, more sub-steps
    do c = 1, ncol
      f(c)%amplitude = f(c)%amplitude * 1.5d0 + 0.1d0
      f(c)%relax = f(c)%relax + 0.05d0 * c
      f(c)%substeps = f(c)%substeps + 1
    end do
  end do
  y(1:ncol) = t
  y(ncol + 1) = sum(t) / ncol
  !$openad DEPENDENT(y)
end subroutine head
