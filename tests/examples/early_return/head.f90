! return from the middle of a subroutine.
subroutine limited(a, b)
  implicit none
  double precision, intent(in) :: a
  double precision, intent(out) :: b
  b = a * a
  if (a > 1.0d0) return
  b = b + a
end subroutine limited

subroutine head(x, y)
  implicit none
  double precision :: x(2), y(2)
  !$openad INDEPENDENT(x)
  call limited(x(1), y(1))
  call limited(x(2), y(2))
  y(2) = y(2) * x(1)
  if (y(1) > 0.0d0) return
  y(1) = 0.0d0
  !$openad DEPENDENT(y)
end subroutine head
