! Section assignments that read their own target: shifts up (the loop must
! run backward) and down (forward), a reversed section, strided sections of
! different parity, a shift both ways (one reference read from a copy),
! an element read after the loop overwrote it, 2-D shifts in each
! dimension and a masked shift.
subroutine head(x, y)
  implicit none
  double precision :: x(8), y(7)
  double precision :: a(10), b(6, 5)
  integer :: i, j
  !$openad INDEPENDENT(x)
  a(1:8) = x
  a(9:10) = x(1:2) * x(3:4)
  a(2:10) = 0.9d0 * a(1:9) + 0.1d0 * sin(a(2:10))
  a(1:9) = a(2:10) - 0.2d0 * a(1:9)**2
  a(2:9) = a(1:8) + a(3:10) * a(2:9)
  a(10:2:-1) = a(9:1:-1) + 0.5d0 * a(10:2:-1)
  a(1:9:2) = a(2:10:2) * a(1:9:2)
  a = a / a(4)
  do j = 1, 5
    do i = 1, 6
      b(i, j) = x(i) * j + x(j + 1)
    end do
  end do
  b(2:6, :) = b(1:5, :) * 0.5d0 + b(2:6, :)
  b(:, 2:5) = b(:, 1:4) * x(1) - b(:, 2:5)
  b(2:6, 2:5) = b(1:5, 2:5) + b(2:6, 1:4)
  where (x(1:6) > 0.3d0) a(2:7) = a(1:6) * x(1:6)
  y(1:5) = a(1:5) + a(6:10)
  y(6) = sum(b)
  y(7) = maxval(b(2:6, 3))
  !$openad DEPENDENT(y)
end subroutine head
