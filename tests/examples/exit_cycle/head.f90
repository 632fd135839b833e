! exit and cycle in loops.
subroutine head(x, y)
  implicit none
  double precision :: x(5), y(2)
  integer :: i
  !$openad INDEPENDENT(x)
  y = 0.0d0
  do i = 1, 5
    if (x(i) < 0.0d0) cycle
    y(1) = y(1) + x(i)**2
  end do
  do i = 1, 5
    y(2) = y(2) + x(i) * dble(i)
    if (y(2) > 2.0d0) exit
  end do
  !$openad DEPENDENT(y)
end subroutine head
