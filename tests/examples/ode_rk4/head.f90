! Combined: an RK4 integrator of a Lotka-Volterra system in a module, with
! an internal right-hand side, array arithmetic, allocatable stage storage
! and a sum over the trajectory.
module integrator
  implicit none
  integer, parameter :: neq = 2
contains
  subroutine rk4(u, p, h, nsteps, path)
    double precision, intent(inout) :: u(neq)
    double precision, intent(in) :: p(2), h
    integer, intent(in) :: nsteps
    double precision, intent(out) :: path(nsteps)
    double precision, allocatable :: k(:, :)
    integer :: step
    allocate(k(neq, 4))
    do step = 1, nsteps
      call rhs(u, k(:, 1))
      call rhs(u + 0.5d0 * h * k(:, 1), k(:, 2))
      call rhs(u + 0.5d0 * h * k(:, 2), k(:, 3))
      call rhs(u + h * k(:, 3), k(:, 4))
      u = u + h / 6.0d0 * (k(:, 1) + 2.0d0 * k(:, 2) + 2.0d0 * k(:, 3) + k(:, 4))
      path(step) = u(1) * u(2)
    end do
    deallocate(k)
  contains
    subroutine rhs(v, f)
      double precision, intent(in) :: v(neq)
      double precision, intent(out) :: f(neq)
      f(1) = p(1) * v(1) - v(1) * v(2)
      f(2) = v(1) * v(2) - p(2) * v(2)
    end subroutine rhs
  end subroutine rk4
end module integrator

subroutine head(x, y)
  use integrator
  implicit none
  double precision :: x(4), y(3)
  double precision :: u(neq), path(20)
  !$openad INDEPENDENT(x)
  u = x(1:2)
  call rk4(u, x(3:4), 0.05d0, 20, path)
  y(1:2) = u
  y(3) = sum(path) / 20.0d0
  !$openad DEPENDENT(y)
end subroutine head
