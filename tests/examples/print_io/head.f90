! print and write of intermediate (active) values.
subroutine head(x, y)
  implicit none
  double precision :: x(2), y(2)
  double precision :: t
  integer :: i
  !$openad INDEPENDENT(x)
  t = x(1) * x(2)
  print *, 'intermediate t =', t
  write(*, '(a, es12.4)') ' x(1) = ', x(1)
  do i = 1, 2
    write(*, *) 'step', i, t
    t = t * x(i)
  end do
  y(1) = t
  y(2) = t + x(2)
  write(6, '(2f12.6)') y
  !$openad DEPENDENT(y)
end subroutine head
