! A saved table built on the first call only; later calls reuse it.
subroutine head(x, y)
  implicit none
  double precision :: x(3), y(3)
  double precision, save :: table(3)
  logical, save :: first = .true.
  integer :: i
  !$openad INDEPENDENT(x)
  if (first) then
    do i = 1, 3
      table(i) = 1.0d0 / dble(i * i)
    end do
    first = .false.
  end if
  do i = 1, 3
    y(i) = table(i) * x(i) * x(4 - i)
  end do
  !$openad DEPENDENT(y)
end subroutine head
