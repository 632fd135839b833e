! stop in a branch that is not taken at the input point.
subroutine head(x, y)
  implicit none
  double precision :: x(2), y(1)
  !$openad INDEPENDENT(x)
  if (x(1) <= 0.0d0) then
    print *, 'head: x(1) must be positive'
    stop 1
  end if
  if (x(2) > 1.0d10) stop 'x(2) too large'
  y(1) = log(x(1)) * x(2)
  !$openad DEPENDENT(y)
end subroutine head
