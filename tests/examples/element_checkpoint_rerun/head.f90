! A routine re-run by the joint adjoint (it has a loop) that touches its
! array argument only at u(i) and u(i+1): its checkpoint stores those two
! elements, and the caller restores the loop index i before the re-run.
module m
  implicit none
  integer, parameter :: n = 12
contains
  subroutine relax(u, i, f)
    real(8), intent(in) :: u(n)
    integer, intent(in) :: i
    real(8), intent(out) :: f
    integer :: k
    f = 0
    do k = 1, 3
      f = f + sin(k * u(i)) * u(i + 1)
    end do
  end subroutine
  subroutine sweep(u)
    real(8), intent(inout) :: u(n)
    real(8) :: f
    integer :: i
    do i = 1, n - 1
      call relax(u, i, f)
      u(i) = u(i) + 0.1d0 * f
    end do
  end subroutine
end module

subroutine head(x, y)
  use m
  implicit none
  real(8), intent(in) :: x(n)
  real(8), intent(out) :: y(1)
  real(8) :: u(n)
  integer :: t
  !$openad INDEPENDENT(x)
  u = x
  do t = 1, 3
    call sweep(u(1:n))
  end do
  y(1) = sum(u**2)
  !$openad DEPENDENT(y)
end subroutine
