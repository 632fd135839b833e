! Comparisons (both spellings) and logical operators.
subroutine head(x, y)
  implicit none
  double precision :: x(3), y(2)
  logical :: a, b, c
  !$openad INDEPENDENT(x)
  a = x(1) .gt. x(2)
  b = x(2) >= 0.0d0 .and. x(3) /= 1.0d0
  c = .not. (a .or. b) .eqv. (x(1) .le. x(3))
  y(1) = x(1)
  if (a .and. .not. c) y(1) = y(1) * x(2)
  if (b .neqv. c) then
    y(2) = x(3) * x(1)
  else
    y(2) = x(3) + x(1)
  end if
  if (x(1) == x(2) .or. x(2) .lt. -1.0d0 .or. x(3) .eq. 0.0d0) y(2) = 0.0d0
  !$openad DEPENDENT(y)
end subroutine head
