! An allocatable re-allocated in every iteration of a loop, with a
! different size and lower bound each time; the reverse sweep must
! re-create each instance with the bounds it had.
subroutine head(x, y)
  implicit none
  double precision :: x(3), y(2)
  double precision, allocatable :: w(:)
  double precision :: s
  integer :: k, i
  !$openad INDEPENDENT(x)
  y(1) = 0.0d0
  y(2) = 1.0d0
  do k = 1, 4
    allocate(w(k:2 * k + 1))
    do i = k, 2 * k + 1
      w(i) = sin(x(mod(i, 3) + 1)) * dble(i) + 0.1d0 * y(1)
    end do
    s = 0.0d0
    do i = k, 2 * k + 1
      s = s + w(i) * w(i)
    end do
    y(1) = y(1) + 0.1d0 * s
    y(2) = y(2) * cos(0.2d0 * w(2 * k + 1))
    deallocate(w)
  end do
  !$openad DEPENDENT(y)
end subroutine head
