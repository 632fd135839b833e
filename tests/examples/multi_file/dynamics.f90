! Second file: the model dynamics, using the module of the first file.
subroutine rhs(u, f)
  use constants
  implicit none
  double precision, intent(in) :: u(2)
  double precision, intent(out) :: f(2)
  f(1) = u(2)
  f(2) = -sin(u(1)) - 0.2d0 * u(2)
  work = f
end subroutine rhs

subroutine step(u)
  use constants
  implicit none
  double precision, intent(inout) :: u(2)
  double precision :: f(2)
  call rhs(u, f)
  u = u + dt * f
end subroutine step
