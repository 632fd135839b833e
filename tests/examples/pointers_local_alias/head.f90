! Burgers-like relaxation: each routine names the interior and the
! neighbours of its field through local pointers to sections, associated
! once per call before any arithmetic.
module relax
  implicit none
  integer, parameter :: nx = 6
contains
  subroutine smooth(u, nu)
    double precision, target, intent(inout) :: u(nx)
    double precision, intent(in) :: nu
    double precision, target :: work(nx)
    double precision, pointer :: inner(:), left(:), right(:), w(:)
    inner => u(2:nx-1)
    left => u(1:nx-2)
    right => u(3:nx)
    w => work(2:nx-1)
    work = 0.0d0
    w = inner + nu * (left - 2.0d0 * inner + right) - 0.05d0 * inner * (right - left)
    inner = w
  end subroutine smooth

  subroutine damp(u, r)
    double precision, target, intent(inout) :: u(nx)
    double precision, intent(in) :: r
    double precision, pointer :: edge
    edge => u(nx)
    edge = edge * (1.0d0 - r) + r * u(1) ** 2
  end subroutine damp
end module relax

subroutine head(x, y)
  use relax
  implicit none
  double precision :: x(6), y(2)
  double precision, target :: u(6)
  double precision, pointer :: mid(:)
  integer :: t
  !$openad INDEPENDENT(x)
  u = x
  mid => u(3:4)
  do t = 1, 4
    call smooth(u, 0.2d0)
    call damp(u, 0.3d0)
  end do
  y(1) = sum(mid ** 2)
  y(2) = u(1) * u(6)
  !$openad DEPENDENT(y)
end subroutine head
