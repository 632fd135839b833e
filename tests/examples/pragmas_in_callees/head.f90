! The differentiation request spread over the model as OpenAD/F users
! write it: INDEPENDENT in the module procedure that reads the control
! parameters, DEPENDENT in the one that evaluates the cost; head (the
! routine the driver calls) calls both, with a time loop in between. The
! pragmas' names are dummies bound to head's x and y.
module ocean_box
  implicit none
  integer, parameter :: nb = 3
  real(8) :: temp(nb), salt(nb)
contains
  subroutine initialise(controls)
    real(8), intent(in) :: controls(4)
    !$openad INDEPENDENT(controls)
    temp = controls(1:nb)
    salt(1) = 35.0d0 + controls(4)
    salt(2) = 35.0d0 - 0.5d0 * controls(4)
    salt(3) = 35.0d0 + 0.2d0 * controls(4)
  end subroutine initialise

  subroutine step(dt)
    real(8), intent(in) :: dt
    real(8) :: rho(nb), q
    integer :: k
    rho = -0.2d0 * temp + 0.8d0 * salt
    do k = 1, nb - 1
      q = 0.05d0 * (rho(k + 1) - rho(k))
      temp(k) = temp(k) + dt * q * (temp(k + 1) - temp(k))
      salt(k) = salt(k) + dt * q * (salt(k + 1) - salt(k))
    end do
  end subroutine step

  subroutine cost(misfit)
    real(8), intent(out) :: misfit(2)
    misfit(1) = sum((temp - 10.0d0)**2)
    misfit(2) = sum(salt * temp) / nb
    !$openad DEPENDENT(misfit)
  end subroutine cost
end module ocean_box

subroutine head(x, y)
  use ocean_box
  implicit none
  real(8), intent(in) :: x(4)
  real(8), intent(out) :: y(2)
  integer :: t
  call initialise(x)
  do t = 1, 10
    call step(0.1d0)
  end do
  call cost(y)
end subroutine head
