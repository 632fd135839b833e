! Assumed-size dummy arrays (F77 style).
subroutine accumulate(v, n, total)
  implicit none
  integer :: n
  double precision :: v(*), total
  integer :: i
  total = 0.0d0
  do i = 1, n
    total = total + v(i) * v(i) * dble(i)
  end do
end subroutine accumulate

subroutine head(x, y)
  implicit none
  double precision :: x(5), y(2)
  double precision :: grid(2, 3)
  !$openad INDEPENDENT(x)
  call accumulate(x, 5, y(1))
  grid = 0.0d0
  grid(1, :) = x(1:3)
  grid(2, :) = x(3:5) * x(1)
  call accumulate(grid, 6, y(2))
  !$openad DEPENDENT(y)
end subroutine head
