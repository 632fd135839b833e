! A diffusion model with a nonlinear limiter in a time loop: an
! out-of-place stencil (un from u), an in-place one (u(i) from the u(i-1)
! it has just updated), and a clip per cell written as an if / else if /
! else if / else chain whose last arm updates u(i) in place before a
! nested branch of its own.
module limiter_model
  implicit none
  integer, parameter :: n = 24
  integer, parameter :: nsteps = 6
  double precision :: c, r
contains
  subroutine diffuse(u, un)
    double precision, intent(in) :: u(n)
    double precision, intent(out) :: un(n)
    integer :: i
    un(1) = u(1)
    un(n) = u(n)
    do i = 2, n - 1
      un(i) = u(i) + c * (u(i - 1) - 2.0d0 * u(i) + u(i + 1))
    end do
  end subroutine diffuse

  subroutine smooth(u)
    double precision, intent(inout) :: u(n)
    integer :: i
    do i = 2, n - 1
      u(i) = u(i) + c * (u(i - 1) - 2.0d0 * u(i) + u(i + 1))
    end do
  end subroutine smooth

  subroutine clip(un, u)
    double precision, intent(in) :: un(n)
    double precision, intent(inout) :: u(n)
    integer :: i
    do i = 1, n
      if (un(i) > 1.2d0) then
        u(i) = 1.2d0 + 0.5d0 * (un(i) - 1.2d0)
      else if (un(i) < 0.3d0) then
        u(i) = 0.3d0 + r * (un(i) - 0.3d0)
      else if (un(i) < 0.6d0) then
        u(i) = un(i) * (1.0d0 + r * (0.6d0 - un(i)))
      else
        ! Active work next to the nested branch: this arm keeps its own
        ! tape entry (its reversal runs before the inner branch's).
        u(i) = un(i) * (1.0d0 + 0.1d0 * r * u(i))
        if (u(i) > 1.0d0) then
          u(i) = u(i) - 0.1d0 * un(i)
        else
          u(i) = u(i) + 0.05d0 * un(i)**2
        end if
      end if
    end do
  end subroutine clip
end module limiter_model

subroutine head(x, y)
  use limiter_model
  implicit none
  double precision :: x(4), y(2)
  double precision :: u(n), un(n)
  integer :: i, t
  !$openad INDEPENDENT(x)
  c = 0.2d0 * x(2)
  r = 0.5d0 * x(3)
  do i = 1, n
    u(i) = x(1) * exp(-dble(i - 12)**2 / 30.0d0) + x(4) * dble(i) / n
  end do
  do t = 1, nsteps
    call diffuse(u, un)
    call smooth(un)
    call clip(un, u)
  end do
  y(1) = sum(u**2)
  y(2) = u(n / 3)
  !$openad DEPENDENT(y)
end subroutine head
