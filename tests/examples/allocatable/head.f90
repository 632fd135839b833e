! Allocatable arrays sized at run time, allocated and deallocated.
subroutine head(x, y)
  implicit none
  double precision :: x(4), y(2)
  double precision, allocatable :: work(:), pairs(:, :)
  integer :: n, i
  !$openad INDEPENDENT(x)
  n = 4
  allocate(work(n), pairs(2, n - 1))
  work = x * x
  do i = 1, n - 1
    pairs(1, i) = work(i) * work(i + 1)
    pairs(2, i) = work(i + 1) - x(i)
  end do
  y(1) = sum(pairs(1, :))
  y(2) = maxval(pairs(2, :)) * x(1)
  deallocate(pairs)
  deallocate(work)
  !$openad DEPENDENT(y)
end subroutine head
