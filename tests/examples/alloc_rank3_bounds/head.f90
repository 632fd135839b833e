! Rank-2 and rank-3 allocatables with non-default (negative, zero)
! lower bounds, allocated in one statement and released in two.
subroutine head(x, y)
  implicit none
  double precision :: x(4), y(3)
  double precision, allocatable :: c(:, :, :), m(:, :)
  integer :: i, j, l
  !$openad INDEPENDENT(x)
  allocate(c(-1:1, 0:2, 2:3), m(-2:-1, 3))
  do l = 2, 3
    do j = 0, 2
      do i = -1, 1
        c(i, j, l) = x(l) * dble(i + 2) + x(j + 1) * x(4) * dble(l)
      end do
    end do
  end do
  do j = 1, 3
    do i = -2, -1
      m(i, j) = c(i + 2, j - 1, 2) * c(-1, j - 1, 3)
    end do
  end do
  deallocate(c)
  y(1) = m(-2, 1) + m(-1, 3)
  y(2) = m(-1, 2) * m(-2, 3)
  y(3) = exp(0.1d0 * m(-2, 2))
  deallocate(m)
  !$openad DEPENDENT(y)
end subroutine head
