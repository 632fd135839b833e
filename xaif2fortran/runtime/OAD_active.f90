! Active type for the scalar tangent (-m f) and adjoint (-m rs, -m rj)
! modes: one value and one derivative (tangent or adjoint) per variable.
! Generated code propagates inline on %v and %d; the routines below are
! for what cannot be written as a plain assignment.
module OAD_active
  implicit none
  private
  public :: active, active_c, oad_to_active, oad_from_active, oad_zero_d

  type active
    real(8) :: v
    real(8) :: d = 0
  end type active

  ! An active complex(8) variable: its real and imaginary parts, each
  ! with its own derivatives (the front end writes complex arithmetic as
  ! real arithmetic on z%re, z%im).
  type active_c
    type(active) :: re
    type(active) :: im
  end type active_c

contains

  ! Passive actual to an active temporary: value in, derivative zero.
  elemental subroutine oad_to_active(a, r)
    type(active), intent(inout) :: a
    real(8), intent(in) :: r
    a%v = r
    a%d = 0
  end subroutine oad_to_active

  ! Active temporary back to the passive actual: value only.
  elemental subroutine oad_from_active(r, a)
    real(8), intent(inout) :: r
    type(active), intent(in) :: a
    r = a%v
  end subroutine oad_from_active

  ! Zero the derivative of an active variable of any rank.
  elemental subroutine oad_zero_d(a)
    type(active), intent(inout) :: a
    a%d = 0
  end subroutine oad_zero_d

end module OAD_active
