! Integer index arithmetic and indirect addressing.
subroutine head(x, y)
  implicit none
  double precision :: x(5), y(3)
  integer :: perm(5), i, j
  double precision :: a(10)
  !$openad INDEPENDENT(x)
  perm = (/ 4, 2, 5, 1, 3 /)
  a = 0.0d0
  do i = 1, 5
    a(2 * i - 1) = x(perm(i))
    a(2 * i) = x(i) * x(perm(i))
  end do
  y = 0.0d0
  do i = 1, 3
    j = mod(i * 3, 10) + 1
    y(i) = a(j) * a(11 - j) + a(perm(perm(i)))
  end do
  !$openad DEPENDENT(y)
end subroutine head
