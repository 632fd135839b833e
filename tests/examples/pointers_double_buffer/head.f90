! Diffusion with a double buffer: each step reads the old level through
! one pointer and writes the new level through the other, then swaps
! them, so the time levels never get copied.
module diffusion
  implicit none
  integer, parameter :: n = 5
  double precision, target :: buf1(0:n+1), buf2(0:n+1)
  double precision, pointer :: old(:), new(:), tmp(:)
contains
  subroutine boundaries(u)
    double precision, pointer :: u(:)
    u(lbound(u, 1)) = u(lbound(u, 1) + 1)
    u(ubound(u, 1)) = 0.5d0 * u(ubound(u, 1) - 1)
  end subroutine boundaries

  subroutine advance(kappa)
    double precision, intent(in) :: kappa
    integer :: i
    call boundaries(old)
    do i = 2, n + 1
      new(i) = old(i) + kappa * (old(i-1) - 2.0d0 * old(i) + old(i+1)) &
               - 0.1d0 * old(i)**2
    end do
    tmp => old
    old => new
    new => tmp
  end subroutine advance
end module diffusion

subroutine head(x, y)
  use diffusion
  implicit none
  double precision :: x(5), y(2)
  integer :: t
  !$openad INDEPENDENT(x)
  buf1 = 0.0d0
  buf2 = 0.0d0
  buf1(1:n) = x
  old => buf1
  new => buf2
  do t = 1, 7
    call advance(0.2d0)
  end do
  y(1) = sum(old(2:n+1)**2)
  y(2) = old(3) * buf1(2) + buf2(4)
  nullify(tmp)
  !$openad DEPENDENT(y)
end subroutine head
