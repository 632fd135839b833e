! Explicit-shape dummy arrays with dimensions passed as arguments.
subroutine smooth2d(a, m, n, b)
  implicit none
  integer, intent(in) :: m, n
  double precision, intent(in) :: a(m, n)
  double precision, intent(out) :: b(m, n)
  integer :: i, j
  b = a
  do j = 2, n - 1
    do i = 2, m - 1
      b(i, j) = 0.25d0 * (a(i - 1, j) + a(i + 1, j) + a(i, j - 1) + a(i, j + 1))
    end do
  end do
end subroutine smooth2d

subroutine head(x, y)
  implicit none
  double precision :: x(12), y(3)
  double precision :: a(3, 4), b(3, 4)
  integer :: i, j
  !$openad INDEPENDENT(x)
  do j = 1, 4
    do i = 1, 3
      a(i, j) = x(i + 3 * (j - 1))**2
    end do
  end do
  call smooth2d(a, 3, 4, b)
  y(1) = b(2, 2)
  y(2) = b(2, 3) * b(1, 1)
  y(3) = sum(b(3, :))
  !$openad DEPENDENT(y)
end subroutine head
