! A model whose module procedures open with an assignment to an element of
! a module array (`state(i) = ...`, `flux(1) = ...`): by host association
! that is an element assignment, not a statement function definition
! (the front end used to take it for one and drop the statement).
module reservoir
  implicit none
  integer, parameter :: ncell = 4
  real(8) :: state(ncell), flux(ncell + 1)
contains
  subroutine recharge(i, rate)
    integer, intent(in) :: i
    real(8), intent(in) :: rate
    state(i) = state(i) + 0.1d0 * rate * exp(-0.2d0 * i)
  end subroutine recharge

  subroutine exchange(k)
    real(8), intent(in) :: k
    integer :: i
    flux(1) = 0.0d0
    do i = 2, ncell
      flux(i) = k * (state(i - 1) - state(i)) / (1.0d0 + state(i)**2)
    end do
    flux(ncell + 1) = 0.0d0
    do i = 1, ncell
      state(i) = state(i) + 0.05d0 * (flux(i) - flux(i + 1))
    end do
  end subroutine exchange
end module reservoir

subroutine head(x, y)
  use reservoir
  implicit none
  real(8) :: x(3), y(2)
  integer :: step, i
  !$openad INDEPENDENT(x)
  do i = 1, ncell
    state(i) = x(1) * i
  end do
  do step = 1, 6
    do i = 1, ncell
      call recharge(i, x(2))
    end do
    call exchange(x(3))
  end do
  y(1) = sum(state**2)
  y(2) = state(ncell) - state(1)
  !$openad DEPENDENT(y)
end subroutine head
