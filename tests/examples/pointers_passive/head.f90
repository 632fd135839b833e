! Pointers used passively: a pointer to an integer table and to a passive
! array section.
subroutine head(x, y)
  implicit none
  double precision :: x(3), y(2)
  integer, target :: order(3)
  double precision, target :: weights(4)
  integer, pointer :: p(:)
  double precision, pointer :: w(:)
  integer :: i
  !$openad INDEPENDENT(x)
  order = (/ 3, 1, 2 /)
  weights = (/ 0.5d0, 1.0d0, 1.5d0, 2.0d0 /)
  p => order
  w => weights(2:4)
  y = 0.0d0
  do i = 1, 3
    y(1) = y(1) + w(i) * x(p(i))
    y(2) = y(2) + x(i) * x(p(i))
  end do
  nullify(p)
  !$openad DEPENDENT(y)
end subroutine head
