! A heat-budget box whose step is an internal procedure: it reads the
! forcing, a derived-type variable of the host with a real and an integer
! component, through host association. The host changes the forcing after
! each call: a joint-mode re-run of the step must see the forcing of its
! own year (the step's checkpoint saves the host variable whole).
! x: initial temperatures, y: final temperatures.
module forcing_types
  implicit none
  type forcing
    real(8) :: amplitude
    integer :: substeps
  end type forcing
end module forcing_types

subroutine head(x, y)
  use forcing_types
  implicit none
  real(8), intent(in) :: x(3)
  real(8), intent(out) :: y(3)
  real(8) :: t(3)
  type(forcing) :: f
  integer :: year
  !$openad INDEPENDENT(x)
  t = x
  f%amplitude = 0.3d0
  f%substeps = 1
  do year = 1, 4
    call step()
    f%amplitude = f%amplitude * 1.5d0 + 0.1d0
    f%substeps = f%substeps + 1
  end do
  y = t
  !$openad DEPENDENT(y)
contains
  subroutine step()
    integer :: k
    do k = 1, f%substeps
      t(1) = t(1) + 0.1d0 * (f%amplitude * sin(t(2)) - 0.2d0 * t(1))
      t(2) = t(2) + 0.1d0 * (t(1) - t(2)) * t(3)
      t(3) = t(3) + 0.05d0 * (t(2) - t(3)) + 0.01d0 * f%amplitude * t(1)
    end do
  end subroutine step
end subroutine head
