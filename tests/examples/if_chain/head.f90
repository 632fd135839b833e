! if / else if / else and logical if, with conditions on active values.
subroutine head(x, y)
  implicit none
  double precision :: x(3), y(3)
  !$openad INDEPENDENT(x)
  if (x(1) > 1.0d0) then
    y(1) = x(1) * x(2)
  else if (x(1) > 0.0d0) then
    y(1) = x(1) + x(2)
  else
    y(1) = -x(1)
  end if
  if (x(2) < x(3)) then
    y(2) = sin(x(3))
  else
    y(2) = cos(x(2))
  end if
  y(3) = x(3)
  if (x(3) > 0.0d0) y(3) = y(3) * x(1)
  if (x(2) < -5.0d0) y(3) = 0.0d0
  !$openad DEPENDENT(y)
end subroutine head
