! Counted loops with steps, negative steps and nesting.
subroutine head(x, y)
  implicit none
  double precision :: x(6), y(3)
  integer :: i, j
  !$openad INDEPENDENT(x)
  y = 0.0d0
  do i = 1, 6, 2
    y(1) = y(1) + x(i) * x(i + 1)
  end do
  do i = 6, 1, -1
    y(2) = y(2) * 0.5d0 + x(i)
  end do
  do i = 1, 3
    do j = i, 6, 3
      y(3) = y(3) + x(i) * x(j)
    end do
  end do
  do i = 5, 2, -3
    y(3) = y(3) - x(i)**2
  end do
  !$openad DEPENDENT(y)
end subroutine head
