! An ocean state kept in a module variable of derived type: its
! temperatures are active (they start from the independents and are
! relaxed toward the accumulated heat each year), its mixing rate is a
! passive real component the caller raises every year, as it does the
! number of sub-steps, an integer component. The yearly step
! routine reads both from the module, not through arguments: a joint-mode
! re-run of the step must see the state of its own year (the routine's
! checkpoint saves the module variable's real components, and the bits of
! its integer one).
! x: initial temperatures, y: the accumulated heat.
module ocean_state
  implicit none
  type ocean
    real(8) :: temp(3)
    real(8) :: mixing
    integer :: nsub
  end type ocean
  type(ocean) :: oc
contains
  subroutine step(acc)
    real(8), intent(inout) :: acc(3)
    integer :: k, i
    do k = 1, oc%nsub
      do i = 1, 3
        acc(i) = acc(i) + oc%mixing * sin(oc%temp(i)) * acc(i)
      end do
    end do
  end subroutine step
end module ocean_state

subroutine head(x, y)
  use ocean_state
  implicit none
  real(8), intent(in) :: x(3)
  real(8), intent(out) :: y(3)
  real(8) :: acc(3)
  integer :: year
  !$openad INDEPENDENT(x)
  oc%temp = x
  oc%mixing = 0.1d0
  oc%nsub = 1
  acc = 1d0
  do year = 1, 4
    call step(acc)
    oc%temp = oc%temp * 1.1d0 + 0.05d0 * acc
    oc%mixing = oc%mixing * 1.3d0
    oc%nsub = oc%nsub + 1
  end do
  y = acc
  !$openad DEPENDENT(y)
end subroutine head
