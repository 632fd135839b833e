! goto and labelled continue statements.
subroutine head(x, y)
  implicit none
  double precision :: x(3), y(2)
  integer :: i
  !$openad INDEPENDENT(x)
  y(1) = x(1)
  if (x(2) > 0.0d0) goto 10
  y(1) = y(1) * 100.0d0
10 continue
  y(1) = y(1) * x(2)
  i = 0
  y(2) = x(3)
20 continue
  i = i + 1
  y(2) = y(2) * x(1) + 0.1d0
  if (i < 4) goto 20
  goto 30
  y(2) = 0.0d0
30 continue
  !$openad DEPENDENT(y)
end subroutine head
