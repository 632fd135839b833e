! A derived type with real components that become active.
module particle_mod
  implicit none
  type particle
    double precision :: pos(2)
    double precision :: mass
    integer :: id
  end type particle
contains
  subroutine push(p, force, dt)
    type(particle), intent(inout) :: p
    double precision, intent(in) :: force(2), dt
    p%pos = p%pos + dt * force / p%mass
  end subroutine push
end module particle_mod

subroutine head(x, y)
  use particle_mod
  implicit none
  double precision :: x(3), y(3)
  type(particle) :: p
  double precision :: f(2)
  integer :: i
  !$openad INDEPENDENT(x)
  p%id = 7
  p%pos = x(1:2)
  p%mass = x(3)
  do i = 1, 4
    f(1) = -p%pos(2)
    f(2) = p%pos(1) * p%pos(2)
    call push(p, f, 0.1d0)
  end do
  y(1:2) = p%pos
  y(3) = p%mass * sum(p%pos**2)
  !$openad DEPENDENT(y)
end subroutine head
