! Third file: the top-level routine.
subroutine head(x, y)
  use constants
  implicit none
  double precision :: x(2), y(3)
  double precision :: u(2)
  integer :: i
  !$openad INDEPENDENT(x)
  u = x
  do i = 1, nstep
    call step(u)
  end do
  y(1:2) = u
  y(3) = work(1) * work(2)
  !$openad DEPENDENT(y)
end subroutine head
