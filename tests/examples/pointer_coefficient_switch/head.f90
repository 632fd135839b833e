! A reaction chain whose rate coefficients alternate between a day and a
! night table: a passive pointer is re-pointed at the other table after
! each step, and the step routine reads the coefficients through it
! intent(in). A joint-mode re-run of the step must see the table the
! call had, not the one the pointer points at when the reverse sweep
! gets there (the call site restores the association, then the values).
! x: initial concentrations, y: the squared norm after four steps.
module reaction_tables
  implicit none
  real(8), target :: day_rates(4) = (/ 0.1d0, 0.2d0, 0.3d0, 0.4d0 /)
  real(8), target :: night_rates(4) = (/ 0.5d0, 0.1d0, 0.7d0, 0.2d0 /)
contains
  subroutine react(u, rates)
    real(8), intent(inout) :: u(4)
    real(8), intent(in) :: rates(4)
    integer :: i, k
    do k = 1, 2
      do i = 2, 4
        u(i) = u(i) - rates(i) * u(i) * u(i-1)
      end do
    end do
  end subroutine react
end module reaction_tables

subroutine head(x, y)
  use reaction_tables
  implicit none
  real(8), intent(in) :: x(4)
  real(8), intent(out) :: y(1)
  real(8) :: u(4)
  real(8), pointer :: rates(:)
  integer :: hour
  !$openad INDEPENDENT(x)
  u = x
  rates => day_rates
  do hour = 1, 4
    call react(u, rates)
    if (mod(hour, 2) == 1) then
      rates => night_rates
    else
      rates => day_rates
    end if
  end do
  y(1) = sum(u**2)
  !$openad DEPENDENT(y)
end subroutine head
