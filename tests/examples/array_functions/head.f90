! A 1-D reaction-diffusion column stepped in time with array-valued
! module functions, the way a model author writes it: the Laplacian
! returns an array the size of its argument (`r(size(u))`), the reaction
! term an explicit-shape result sized by a dummy (`r(n)`), the column
! with ghost cells a result with lower bound 0 (`r(0:size(u) + 1)`), all
! used inside array expressions (`u = u + dt * (kappa * lap(u) +
! react(u, n))`), as actual arguments, inside reductions, in an `if`
! condition and in a `do while` condition.
module column_ops
  implicit none
  integer, parameter :: nz = 8
contains
  function lap(u) result(r)
    real(8), intent(in) :: u(:)
    real(8) :: r(size(u))
    integer :: i, n
    n = size(u)
    r(1) = u(2) - u(1)
    do i = 2, n - 1
      r(i) = u(i - 1) - 2.0d0 * u(i) + u(i + 1)
    end do
    r(n) = u(n - 1) - u(n)
  end function lap

  function react(u, n) result(r)
    integer, intent(in) :: n
    real(8), intent(in) :: u(n)
    real(8) :: r(n)
    r = 0.3d0 * u * (1.0d0 - u) - 0.05d0 * u**2
  end function react

  function padded(u) result(r)
    real(8), intent(in) :: u(:)
    real(8) :: r(0:size(u) + 1)
    r(1:size(u)) = u
    r(0) = u(1)
    r(size(u) + 1) = 0.5d0 * u(size(u))
  end function padded

  subroutine relax(v, w)
    real(8), intent(inout) :: v(:)
    real(8), intent(in) :: w(:)
    v = 0.9d0 * v + 0.1d0 * w
  end subroutine relax
end module column_ops

subroutine head(x, y)
  use column_ops
  implicit none
  real(8) :: x(3), y(2)
  real(8) :: u(nz), dt, kappa, w(0:nz + 1), flux(nz + 1)
  integer :: step, k
  !$openad INDEPENDENT(x)
  kappa = x(2)
  dt = 0.1d0
  do k = 1, nz
    u(k) = x(1) * (0.5d0 + 0.05d0 * k)
  end do
  do step = 1, 10
    u = u + dt * (kappa * lap(u) + react(u, nz))
    w = padded(u)
    flux = x(3) * (w(1:nz + 1) - w(0:nz))
    call relax(u, u + dt * (flux(2:nz + 1) - flux(1:nz)))
    if (maxval(react(u, nz)) > 0.06d0) then
      u = u - 0.1d0 * dt * react(u, nz)
    end if
  end do
  step = 0
  do while (sum(lap(u)**2) > 1.0d-6 .and. step < 3)
    u(2:nz) = u(2:nz) + 0.5d0 * dt * lap(u(2:nz))
    step = step + 1
  end do
  y(1) = sum(padded(u) * padded(2.0d0 * u))
  y(2) = u(nz) + maxval(react(u, nz))
  !$openad DEPENDENT(y)
end subroutine head
