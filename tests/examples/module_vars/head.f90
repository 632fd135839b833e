! A module with module variables (active and passive) and module procedures.
module state_mod
  implicit none
  double precision :: rate = 0.25d0
  double precision :: level(3)
  integer :: calls
contains
  subroutine fill(x)
    double precision, intent(in) :: x(3)
    level = x * rate
    calls = calls + 1
  end subroutine fill

  double precision function total()
    total = level(1) * level(2) + sin(level(3))
  end function total
end module state_mod

subroutine head(x, y)
  use state_mod
  implicit none
  double precision :: x(3), y(2)
  !$openad INDEPENDENT(x)
  calls = 0
  call fill(x)
  level(2) = level(2) + level(1)**2
  y(1) = total()
  y(2) = level(3) * calls + level(1)
  !$openad DEPENDENT(y)
end subroutine head
