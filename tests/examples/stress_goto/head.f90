! Adjoint stress: unstructured control flow with goto.
subroutine head(x, y)
  implicit none
  double precision :: x(3), y(2)
  integer :: k
  !$openad INDEPENDENT(x)
  k = 0
  y(1) = x(1)
  y(2) = x(2)
100 continue
  k = k + 1
  if (y(1) > 2.0d0) goto 200
  y(1) = y(1) * (1.0d0 + x(3))
  y(2) = y(2) + y(1) * 0.5d0
  if (k < 10) goto 100
  goto 300
200 continue
  y(2) = y(2) * x(1)
  if (k < 8) then
    y(1) = y(1) * 0.5d0
    goto 100
  end if
300 continue
  y(1) = y(1) + dble(k)
  !$openad DEPENDENT(y)
end subroutine head
