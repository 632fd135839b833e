! A reservoir whose state is a public module variable of derived type,
! changed by every step and read by the next: a season routine steps it
! five times and is called four times. The joint adjoint re-runs each
! season from a checkpoint, which left out the tank's real components
! (they are symbols of the module's scope, looked up in the season's):
! a silent 56 % error in -m rj before the fix.
module reservoir
  implicit none
  type :: tank_t
    real(8) :: level
    real(8) :: inflow(4)
    integer :: fills
  end type
  type(tank_t) :: tank
  character(len=8) :: regime = 'filling'
contains
  subroutine tank_init(l0)
    real(8), intent(in) :: l0
    tank%level = l0
    tank%inflow = [0.1d0, 0.2d0, 0.3d0, 0.4d0] * l0
    tank%fills = 0
    regime = 'filling'
  end subroutine
  subroutine tank_step(q, out)
    real(8), intent(in) :: q
    real(8), intent(inout) :: out
    tank%level = tank%level + q * sum(tank%inflow) - 0.1d0 * tank%level**1.5d0
    if (trim(regime) == 'filling') then
      tank%inflow = tank%inflow * 1.01d0
      if (tank%level > 2.0d0) regime = 'spilling'
    else
      tank%fills = tank%fills + 1
      tank%inflow = tank%inflow * 0.97d0
    end if
    out = out + tank%level * 0.1d0
  end subroutine
end module
subroutine season(q, out)
  use reservoir
  implicit none
  real(8), intent(in) :: q
  real(8), intent(inout) :: out
  integer :: d
  do d = 1, 5
    call tank_step(q, out)
  end do
end subroutine
subroutine head(x, y)
  use reservoir
  implicit none
  real(8), intent(in) :: x(2)
  real(8), intent(out) :: y(1)
  integer :: s
  !$openad INDEPENDENT(x)
  call tank_init(x(1))
  y(1) = 0
  do s = 1, 4
    call season(x(2), y(1))
  end do
  !$openad DEPENDENT(y)
end subroutine
