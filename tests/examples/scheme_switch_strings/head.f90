! A box model whose numerical scheme is chosen by character variables: a
! module variable read by the step routine and an argument of the
! relaxation routine, both switched by the caller after each call. A
! joint-mode re-run of either routine must take the branch its own call
! took (the strings are checkpointed as bits: the routine's checkpoint
! saves the module variable, the call site the argument).
! x: initial temperatures, y: final temperatures.
module scheme_choice
  implicit none
  character(len=8) :: scheme = 'upwind'
contains
  subroutine step(t)
    real(8), intent(inout) :: t(3)
    integer :: k
    do k = 1, 2
      if (scheme == 'upwind') then
        t(2) = t(2) + 0.1d0 * (t(1) - t(2)) * t(3)
      else
        t(2) = t(2) + 0.2d0 * sin(t(3) - t(2)) * t(1)
      end if
      t(3) = t(3) + 0.05d0 * (t(2) - t(3))
    end do
  end subroutine step

  subroutine relax(t, how)
    real(8), intent(inout) :: t(3)
    character(len=*), intent(in) :: how
    if (how == 'strong') then
      t(1) = t(1) - 0.3d0 * (t(1) - t(3)) * t(2)
    else
      t(1) = t(1) - 0.05d0 * sin(t(1) - t(3))
    end if
  end subroutine relax
end module scheme_choice

subroutine head(x, y)
  use scheme_choice
  implicit none
  real(8), intent(in) :: x(3)
  real(8), intent(out) :: y(3)
  real(8) :: t(3)
  integer :: year
  character(len=8) :: relaxation
  !$openad INDEPENDENT(x)
  t = x
  relaxation = 'strong'
  scheme = 'upwind'
  do year = 1, 4
    call step(t)
    call relax(t, relaxation)
    relaxation = merge('weak    ', 'strong  ', relaxation == 'strong')
    if (scheme == 'upwind') then
      scheme = 'centred'
    else
      scheme = 'upwind'
    end if
  end do
  y = t
  !$openad DEPENDENT(y)
end subroutine head
