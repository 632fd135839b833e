! size, shape, lbound, ubound drive loops over an array with odd bounds.
subroutine head(x, y)
  implicit none
  double precision :: x(4), y(2)
  double precision :: a(-1:2, 0:1)
  integer :: i, j, s(2)
  !$openad INDEPENDENT(x)
  s = shape(a)
  do j = lbound(a, 2), ubound(a, 2)
    do i = lbound(a, 1), ubound(a, 1)
      a(i, j) = x(i + 2) * (j + 1)
    end do
  end do
  y(1) = 0.0d0
  do i = 1, size(x)
    y(1) = y(1) + x(i) * a(ubound(a, 1) - i + 1, 1)
  end do
  y(2) = sum(a) / dble(size(a)) + s(1) * x(1) * s(2)
  !$openad DEPENDENT(y)
end subroutine head
