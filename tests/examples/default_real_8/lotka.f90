! Predator-prey model written with default reals everywhere, as codes
! that are built with gfortran -fdefault-real-8 are. In single precision
! the 500 small steps and the finite differences would be useless.
module lv_params
  implicit none
  real :: alpha = 1.1, beta = 0.4e0, delta = 0.1, gamma = 0.4
  real, parameter :: dt = 1.0e-3
  integer, parameter :: nsteps = 500
end module lv_params

module lv_model
  use lv_params
  implicit none
contains
  subroutine rates(p, q, dp, dq)
    real, intent(in) :: p, q
    real, intent(out) :: dp, dq
    dp = alpha * p - beta * p * q
    dq = delta * p * q - gamma * q
  end subroutine rates

  subroutine rk2_step(p, q)
    real, intent(inout) :: p, q
    real :: dp1, dq1, dp2, dq2, ph, qh
    call rates(p, q, dp1, dq1)
    ph = p + 0.5 * dt * dp1
    qh = q + 0.5 * dt * dq1
    call rates(ph, qh, dp2, dq2)
    p = p + dt * dp2
    q = q + dt * dq2
  end subroutine rk2_step
end module lv_model

! The conserved quantity of the exact flow, typed implicitly (FORTRAN 77
! style): v, p, q are default reals.
function vinv(p, q)
  use lv_params
  vinv = delta * p - gamma * log(p) + beta * q - alpha * log(q)
end function vinv

subroutine head(x, y)
  use lv_model
  implicit none
  real, intent(in) :: x(3)
  real, intent(out) :: y(2)
  real :: p, q, vinv
  external vinv
  integer :: n
!$openad INDEPENDENT(x)
  p = x(1)
  q = x(2)
  beta = x(3)
  do n = 1, nsteps
    call rk2_step(p, q)
  end do
  y(1) = p * real(nsteps) * 1.0e-3
  y(2) = vinv(p, q) - float(n - 1) * 2.5e-4
!$openad DEPENDENT(y)
end subroutine head
