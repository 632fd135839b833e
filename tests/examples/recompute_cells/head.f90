! Per-cell relaxation of a gas column, written the way a model code
! does it: state in a module, a time loop calling a sweep over the cells,
! each cell updated by a long straight-line block with few inputs and many
! partials (the case where the adjoint recomputes the partials in the
! reverse sweep from taped inputs instead of taping them). The block
! overwrites what it reads (e(k) = e(k)*t + ..., rho(k) = rho(k) + ...,
! p = p*p + e(k), e(k) assigned twice) and carries a scalar from one
! cell to the next (carry), so every input is overwritten later in the
! same sweep or in later steps.
module rcc_state
  implicit none
  integer, parameter :: n = 16
  double precision :: rho(n), e(n), w(n)
  double precision :: dt, c
end module rcc_state

module rcc_model
  use rcc_state
  implicit none
contains
  ! One cell: pressure, sound speed, a relaxation factor and the update.
  subroutine relax(k, carry)
    integer, intent(in) :: k
    double precision, intent(inout) :: carry
    double precision :: p, a, t, q
    p = 0.4d0 * (e(k) - 0.5d0 * w(k)**2 / rho(k))
    a = sqrt(1.4d0 * p / rho(k))
    t = exp(-dt * a * c)
    q = carry * t + (1.0d0 - t) * a
    e(k) = e(k) * t + (1.0d0 - t) * p / 0.4d0
    rho(k) = rho(k) + dt * sin(a) * rho(k) * 0.1d0
    w(k) = w(k) * t / rho(k) + 0.05d0 * q
    p = p * p + e(k)
    e(k) = e(k) + 0.01d0 * p * dt / rho(k)
    carry = 0.5d0 * (carry + q) * t
  end subroutine relax

  subroutine sweep()
    integer :: k
    double precision :: carry
    carry = 0.1d0
    do k = 1, n
      call relax(k, carry)
    end do
    ! neighbour coupling: reads rho(k+1) while writing rho(k)
    do k = 1, n - 1
      rho(k) = rho(k) + 0.05d0 * (rho(k + 1) - rho(k)) * c
    end do
  end subroutine sweep
end module rcc_model

subroutine head(x, y)
  use rcc_model
  implicit none
  double precision :: x(4), y(2)
  integer :: step, k
  !$openad INDEPENDENT(x)
  dt = 0.05d0
  c = x(4)
  do k = 1, n
    rho(k) = 1.0d0 + x(1) * exp(-((k - 8.5d0) / 4.0d0)**2)
    w(k) = x(2) * rho(k)
    e(k) = x(3) + 0.5d0 * w(k)**2 / rho(k)
  end do
  do step = 1, 12
    call sweep()
  end do
  y(1) = sum(e) / n
  y(2) = 0.0d0
  do k = 1, n
    y(2) = y(2) + w(k)**2 / rho(k)
  end do
  !$openad DEPENDENT(y)
end subroutine head
