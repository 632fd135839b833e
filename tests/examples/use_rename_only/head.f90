! use with renames and only lists.
module physics
  implicit none
  double precision, parameter :: gravity = 9.81d0
  double precision :: drag = 0.1d0
contains
  double precision function speed(h)
    double precision, intent(in) :: h
    speed = sqrt(2.0d0 * gravity * h)
  end function speed
  subroutine damp(v)
    double precision, intent(inout) :: v
    v = v * (1.0d0 - drag)
  end subroutine damp
end module physics

subroutine head(x, y)
  use physics, only: g => gravity, fall_speed => speed
  use physics, only: damp, friction => drag
  implicit none
  double precision :: x(2), y(2)
  double precision :: v
  !$openad INDEPENDENT(x)
  friction = 0.05d0 * x(2)
  v = fall_speed(x(1))
  call damp(v)
  y(1) = v
  y(2) = g * x(1) * friction
  !$openad DEPENDENT(y)
end subroutine head
