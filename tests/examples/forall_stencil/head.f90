! Stencil coefficients built with implied-do array constructors and forall,
! applied in a time loop: a forall whose right side reads the array it
! assigns at neighbouring elements (all right sides are evaluated before
! any assignment), a masked forall whose mask reads the assigned array,
! constructors as whole right sides, inside expressions and as actual
! arguments, and implied-do loops in WRITE and READ lists (the READ gives
! the active w new values without derivatives: no stale derivative).
module stencil
  implicit none
  integer, parameter :: n = 8
contains
  double precision function weight(k)
    integer, intent(in) :: k
    weight = 1d0 / (1 + k*k)
  end function weight

  subroutine smooth(u, c)
    double precision, intent(inout) :: u(n)
    double precision, intent(in) :: c(-1:1)
    integer :: i
    ! Reads u(i-1) and u(i+1), which the same forall assigns.
    forall (i = 2:n-1) u(i) = c(-1)*u(i-1) + c(0)*u(i) + c(1)*u(i+1)
    ! The mask reads u, which the construct assigns.
    forall (i = 1:n:2, u(i) > 0.5d0)
      u(i) = 0.5d0 + 0.5d0*u(i)
      u(i+1) = u(i+1) + 0.1d0*u(i)
    end forall
  end subroutine smooth

  subroutine scale(v, f)
    double precision, intent(inout) :: v(:)
    double precision, intent(in) :: f(:)
    v = v * f
  end subroutine scale
end module stencil

subroutine head(x, y)
  use stencil
  implicit none
  double precision :: x(8), y(3)
  double precision :: u(n), c(-1:1), g(n, n), w(n)
  integer :: i, j, step
  character(len=200) :: line
  !$openad INDEPENDENT(x)
  i = 42
  ! Coefficients from an implied-do constructor (its i is not the outer i).
  c = (/ (weight(j) * x(1), j = -1, 1) /)
  c = c / sum((/ (c(j), j = -1, 1) /))
  w = (/ (0.5d0 + 0.1d0*j, j = 1, n/2), (x(j) * 0.2d0, j = 1, n/2) /)
  forall (i = 1:n, j = 1:n) g(i, j) = exp(-0.3d0*abs(i - j)) * w(j)
  u = x
  do step = 1, 3
    call smooth(u, c)
    u = u + 0.05d0 * matmul(g, u) / n
    call scale(u, (/ (1d0 + 0.01d0*step*j, j = 1, n) /))
  end do
  ! A constructor inside an expression; the outer i is still 42.
  y(1) = sum(u * (/ ((-1d0)**j, j = 1, n) /)) + i
  write(line, '(8f8.4)') (u(j), j = 1, n)
  read(line, '(8f8.4)') (w(j), j = 1, n)
  y(2) = sum((/ (u(j)*w(j), j = 1, n, 3) /))
  y(3) = maxval((/ (u(j) - u(j+1), j = 1, n - 1) /))
  !$openad DEPENDENT(y)
end subroutine head
