! Loop bounds computed from active values with int(); the integer stays
! constant under small perturbations of x at the input point.
subroutine head(x, y)
  implicit none
  double precision :: x(3), y(2)
  integer :: i, n
  !$openad INDEPENDENT(x)
  n = int(x(1))
  y(1) = x(2)
  do i = 1, n
    y(1) = y(1) * x(3) + 1.0d0
  end do
  y(2) = 0.0d0
  do i = 1, int(x(1) * 2.0d0), 2
    y(2) = y(2) + x(2) * i
  end do
  !$openad DEPENDENT(y)
end subroutine head
