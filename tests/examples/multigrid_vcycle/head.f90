! A multigrid Poisson solve as a recursive V-cycle on assumed-shape arrays:
! each level allocates automatic arrays half the size of its caller's,
! smooths with weighted Jacobi, restricts the residual, recurses, and
! prolongs the correction. Used inside a time loop of an implicit source
! model with a land mask (integer array) multiplying the source.
! Parameters: x(1) source strength, x(2) smoothing weight, x(3) decay.
module multigrid
  implicit none
contains
  recursive subroutine vcycle(u, f, h, omega, level)
    double precision, intent(inout) :: u(:)
    double precision, intent(in) :: f(:), h, omega
    integer, intent(in) :: level
    double precision :: r(size(u)), uc(size(u) / 2), fc(size(u) / 2)
    integer :: n, i, sweep
    n = size(u)
    do sweep = 1, 2
      call jacobi(u, f, h, omega)
    end do
    if (level < 3 .and. n >= 8) then
      call residual(u, f, h, r)
      do i = 1, n / 2
        fc(i) = 0.25d0 * r(2 * i - 1) + 0.5d0 * r(2 * i) + 0.25d0 * r(min(2 * i + 1, n))
      end do
      uc = 0.0d0
      call vcycle(uc, fc, 2.0d0 * h, omega, level + 1)
      do i = 1, n / 2
        u(2 * i) = u(2 * i) + uc(i)
        u(2 * i - 1) = u(2 * i - 1) + 0.5d0 * (uc(i) + uc(max(i - 1, 1)))
      end do
    end if
    do sweep = 1, 2
      call jacobi(u, f, h, omega)
    end do
  end subroutine vcycle

  subroutine jacobi(u, f, h, omega)
    double precision, intent(inout) :: u(:)
    double precision, intent(in) :: f(:), h, omega
    double precision :: un(size(u))
    integer :: i, n
    n = size(u)
    un(1) = (1.0d0 - omega) * u(1) + omega * 0.5d0 * (u(2) + h * h * f(1))
    do i = 2, n - 1
      un(i) = (1.0d0 - omega) * u(i) + omega * 0.5d0 * (u(i - 1) + u(i + 1) + h * h * f(i))
    end do
    un(n) = (1.0d0 - omega) * u(n) + omega * 0.5d0 * (u(n - 1) + h * h * f(n))
    u = un
  end subroutine jacobi

  subroutine residual(u, f, h, r)
    double precision, intent(in) :: u(:), f(:), h
    double precision, intent(out) :: r(:)
    integer :: i, n
    n = size(u)
    r(1) = f(1) - (2.0d0 * u(1) - u(2)) / (h * h)
    do i = 2, n - 1
      r(i) = f(i) - (2.0d0 * u(i) - u(i - 1) - u(i + 1)) / (h * h)
    end do
    r(n) = f(n) - (2.0d0 * u(n) - u(n - 1)) / (h * h)
  end subroutine residual
end module multigrid

subroutine head(x, y)
  use multigrid
  implicit none
  integer, parameter :: n = 32
  double precision :: x(3), y(2)
  double precision :: u(n), f(n), c(n)
  integer :: land(n), i, t
  !$openad INDEPENDENT(x)
  land = 1
  land(10:13) = 0
  c = 1.0d0
  u = 0.0d0
  do t = 1, 6
    f = x(1) * c * land
    call vcycle(u, f, 1.0d0 / (n + 1), x(2), 1)
    c = c * exp(-x(3) * 0.1d0 * abs(u))
    where (land == 0) c = 0.0d0
  end do
  y(1) = sum(u**2)
  y(2) = maxval(c, mask=land == 1)
  !$openad DEPENDENT(y)
end subroutine head
