! Allocatable locals still allocated when the routine returns (Fortran
! releases them): in head, and in a callee called several times, one of
! them only allocated on some calls.
module live_mod
  implicit none
contains
  subroutine smooth(n, a, b, p)
    integer :: n
    double precision :: a(n), b(n), p
    double precision, allocatable :: tmp(:), opt(:)
    integer :: i
    allocate(tmp(0:n + 1))
    tmp(0) = a(n)
    tmp(n + 1) = a(1)
    do i = 1, n
      tmp(i) = a(i)
    end do
    if (p > 0.5d0) then
      allocate(opt(n))
      do i = 1, n
        opt(i) = p * tmp(i) * tmp(i)
      end do
      do i = 1, n
        b(i) = 0.25d0 * tmp(i - 1) + 0.5d0 * tmp(i) + 0.25d0 * tmp(i + 1) + 0.1d0 * opt(i)
      end do
    else
      do i = 1, n
        b(i) = 0.25d0 * tmp(i - 1) + 0.5d0 * tmp(i) + 0.25d0 * tmp(i + 1) * p
      end do
    end if
  end subroutine smooth
end module live_mod

subroutine head(x, y)
  use live_mod
  implicit none
  double precision :: x(3), y(2)
  double precision, allocatable :: u(:), v(:)
  integer :: k
  !$openad INDEPENDENT(x)
  allocate(u(3), v(3))
  u(1) = x(1)
  u(2) = x(2)
  u(3) = x(3)
  do k = 1, 3
    call smooth(3, u, v, x(k))
    u(1) = sin(v(1))
    u(2) = v(2) * v(3)
    u(3) = v(3) + x(1)
  end do
  y(1) = u(1) + u(2)
  y(2) = u(3) * v(1)
  !$openad DEPENDENT(y)
end subroutine head
