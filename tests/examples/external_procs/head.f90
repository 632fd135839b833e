! External procedures declared with the external attribute and statement.
subroutine head(x, y)
  implicit none
  double precision :: x(2), y(2)
  double precision, external :: area
  external scale_both
  !$openad INDEPENDENT(x)
  y(1) = area(x(1), x(2))
  y(2) = x(1) - x(2)
  call scale_both(y, 2, x(1))
  !$openad DEPENDENT(y)
end subroutine head

double precision function area(a, b)
  implicit none
  double precision :: a, b
  area = a * b + 0.5d0 * a * a
end function area

subroutine scale_both(v, n, f)
  implicit none
  integer :: n
  double precision :: v(n), f
  v = v * f
end subroutine scale_both
