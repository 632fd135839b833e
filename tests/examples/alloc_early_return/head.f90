! An allocatable local live at an early return (taken on the first call
! only): the split tape section must still tape it at its end.
subroutine part(n, a, s)
  implicit none
  integer :: n
  double precision :: a(n), s
  double precision, allocatable :: w(:)
  integer :: i
  allocate(w(n))
  do i = 1, n
    w(i) = a(i) * a(i)
  end do
  s = w(1)
  if (a(1) > 0.0d0) return
  do i = 2, n
    s = s + w(i) * a(i)
  end do
end subroutine part

subroutine head(x, y)
  implicit none
  double precision :: x(3), y(2)
  !$openad INDEPENDENT(x)
  call part(3, x, y(1))
  x(1) = -x(1)
  call part(3, x, y(2))
  x(1) = -x(1)
  !$openad DEPENDENT(y)
end subroutine head
