! sin, cos, tan.
subroutine head(x, y)
  implicit none
  double precision :: x(2), y(3)
  !$openad INDEPENDENT(x)
  y(1) = sin(x(1)) * cos(x(2))
  y(2) = tan(x(1) - x(2)) + cos(x(1))**2
  y(3) = sin(cos(tan(x(2))))
  !$openad DEPENDENT(y)
end subroutine head
