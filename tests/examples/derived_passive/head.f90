! A derived type used as a passive container of settings.
module settings_mod
  implicit none
  type settings
    integer :: steps
    double precision :: dt
    logical :: damped
    character(len=10) :: label
  end type settings
end module settings_mod

subroutine head(x, y)
  use settings_mod
  implicit none
  double precision :: x(2), y(2)
  type(settings) :: s
  integer :: i
  !$openad INDEPENDENT(x)
  s%steps = 8
  s%dt = 0.05d0
  s%damped = .true.
  s%label = 'pendulum'
  y = x
  do i = 1, s%steps
    y(1) = y(1) + s%dt * y(2)
    y(2) = y(2) - s%dt * sin(y(1))
    if (s%damped) y(2) = y(2) * 0.99d0
  end do
  !$openad DEPENDENT(y)
end subroutine head
