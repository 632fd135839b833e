! An implicit diffusion step solved by conjugate gradients written the way
! textbooks write it: the convergence test in the middle of the iteration
! (after the residual update, before the direction update), the matrix
! applied by a module routine on assumed-shape arrays, an early exit from
! the time loop when the solution becomes stationary, and a Jacobi
! preconditioner stored in an allocatable module array.
! Parameters: x(1) diffusivity, x(2) source, x(3) initial amplitude.
module implicit_diffusion
  implicit none
  integer, parameter :: n = 24
  double precision, allocatable :: diag_inv(:)
contains
  subroutine apply_a(kappa, v, w)
    double precision, intent(in) :: kappa, v(:)
    double precision, intent(out) :: w(:)
    integer :: i, m
    m = size(v)
    w(1) = (1.0d0 + 2.0d0 * kappa) * v(1) - kappa * v(2)
    do i = 2, m - 1
      w(i) = (1.0d0 + 2.0d0 * kappa) * v(i) - kappa * (v(i - 1) + v(i + 1))
    end do
    w(m) = (1.0d0 + 2.0d0 * kappa) * v(m) - kappa * v(m - 1)
  end subroutine apply_a

  subroutine pcg(kappa, b, u, iters)
    double precision, intent(in) :: kappa, b(:)
    double precision, intent(inout) :: u(:)
    integer, intent(out) :: iters
    double precision :: r(size(b)), z(size(b)), p(size(b)), q(size(b))
    double precision :: rz, rz_new, alpha, rr
    integer :: it
    call apply_a(kappa, u, q)
    r = b - q
    z = diag_inv * r
    p = z
    rz = dot_product(r, z)
    iters = 0
    do it = 1, 100
      call apply_a(kappa, p, q)
      alpha = rz / dot_product(p, q)
      u = u + alpha * p
      r = r - alpha * q
      iters = it
      rr = dot_product(r, r)
      if (rr < 1.0d-26) exit
      z = diag_inv * r
      rz_new = dot_product(r, z)
      p = z + (rz_new / rz) * p
      rz = rz_new
    end do
  end subroutine pcg
end module implicit_diffusion

subroutine head(x, y)
  use implicit_diffusion
  implicit none
  double precision :: x(3), y(2)
  double precision :: u(n), b(n), change
  integer :: i, t, iters, total
  !$openad INDEPENDENT(x)
  allocate(diag_inv(n))
  diag_inv = 1.0d0 / (1.0d0 + 2.0d0 * x(1))
  do i = 1, n
    u(i) = x(3) * sin(3.14159265d0 * i / (n + 1))
  end do
  total = 0
  do t = 1, 50
    b = u + 0.01d0 * x(2)
    change = sum(abs(b - u))
    call pcg(x(1), b, u, iters)
    total = total + iters
    if (t >= 8) exit
  end do
  y(1) = sum(u**2)
  y(2) = u(n / 3) + 1.0d-3 * total
  deallocate(diag_inv)
  !$openad DEPENDENT(y)
end subroutine head
