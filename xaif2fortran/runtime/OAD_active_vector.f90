! Active type for the vector tangent mode (-m fv): one value and
! max_deriv_vec_len directional derivatives per variable. The back end
! writes this file as OAD_active.f90 in -m fv.
! Propagation statements such as y%d = a*x%d + b*z%d are whole-array
! assignments on the d(:) component, so the generated code is the same
! as in the scalar mode.
module OAD_active
  implicit none
  private
  public :: active, active_c, max_deriv_vec_len, oad_to_active, oad_from_active, &
       oad_zero_d

  integer, parameter :: max_deriv_vec_len = 100

  type active
    real(8) :: v
    real(8) :: d(max_deriv_vec_len) = 0
  end type active

  ! An active complex(8) variable: its real and imaginary parts, each
  ! with its own derivatives (the front end writes complex arithmetic as
  ! real arithmetic on z%re, z%im).
  type active_c
    type(active) :: re
    type(active) :: im
  end type active_c

contains

  ! Passive actual to an active temporary: value in, derivatives zero.
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

  ! Zero all directional derivatives of an active variable of any rank.
  elemental subroutine oad_zero_d(a)
    type(active), intent(inout) :: a
    a%d = 0
  end subroutine oad_zero_d

end module OAD_active
