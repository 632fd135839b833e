! sum, product, maxval, minval on arrays.
subroutine head(x, y)
  implicit none
  double precision :: x(5), y(4)
  double precision :: a(5), b(2, 3)
  integer :: i
  !$openad INDEPENDENT(x)
  a = x * x + 1.0d0
  do i = 1, 3
    b(1, i) = x(i) * x(i + 1)
    b(2, i) = x(i + 2) - x(i)
  end do
  y(1) = sum(a) + sum(b(2, :))
  y(2) = product(x(1:4))
  y(3) = maxval(a) - minval(x)
  y(4) = sum(b) * maxval(b(1, :))
  !$openad DEPENDENT(y)
end subroutine head
