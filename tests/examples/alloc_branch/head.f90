! Arrays allocated in one branch only: inside a loop (the branch taken
! every other iteration) and once at the end, released through
! `if (allocated(...))`.
subroutine head(x, y)
  implicit none
  double precision :: x(3), y(2)
  double precision, allocatable :: t(:, :), extra(:)
  integer :: k, i, j
  !$openad INDEPENDENT(x)
  y(1) = x(1)
  y(2) = x(2)
  do k = 1, 3
    if (mod(k, 2) == 1) then
      allocate(t(0:1, -1:k))
      do j = -1, k
        do i = 0, 1
          t(i, j) = x(i + 1) * dble(j + 2) + y(1) * x(3)
        end do
      end do
      y(1) = y(1) + 0.05d0 * t(0, k) * t(1, -1)
      y(2) = y(2) * t(1, k)
      deallocate(t)
    else
      y(2) = y(2) + sin(y(1))
    end if
  end do
  if (x(3) > 0.5d0) then
    allocate(extra(3))
    do i = 1, 3
      extra(i) = x(i) * y(2)
    end do
    y(1) = y(1) + extra(1) * extra(3)
  end if
  if (allocated(extra)) then
    deallocate(extra)
  end if
  !$openad DEPENDENT(y)
end subroutine head
