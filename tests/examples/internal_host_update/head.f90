! Internal procedures updating a host array (and reading a host scalar
! that changes between calls), called per element in a time loop: one
! with a loop (re-run from its checkpoint in -m rj), one loop-free.
subroutine head(x, y)
  implicit none
  real(8), intent(in) :: x(4)
  real(8), intent(out) :: y(2)
  real(8) :: u(4), c
  integer :: k, i
  !$openad INDEPENDENT(x)
  u = x
  c = 0.3d0
  do k = 1, 3
    do i = 1, 4
      call update(i)
    end do
    call nudge(2)
    c = c + 0.1d0
  end do
  y(1) = sum(u**2)
  y(2) = u(2) * u(3)
  !$openad DEPENDENT(y)
contains
  subroutine update(j)
    integer, intent(in) :: j
    integer :: m, r
    do r = 1, 2
      m = mod(j + r - 1, 4) + 1
      u(j) = u(j) + c * sin(u(m))
    end do
  end subroutine update
  ! Loop-free: taped in the caller's sweeps in joint mode.
  subroutine nudge(j)
    integer, intent(in) :: j
    u(j) = u(j) * (1.0d0 - 0.1d0 * c)
  end subroutine nudge
end subroutine head
