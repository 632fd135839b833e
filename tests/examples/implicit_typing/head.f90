! Implicit typing: no declarations except through implicit statements.
subroutine head(x, y)
  implicit double precision (a-h, o-z)
  dimension x(3), y(2)
  !$openad INDEPENDENT(x)
  n = 3
  total = 0.0d0
  do i = 1, n
    total = total + x(i) * dble(i)
  end do
  y(1) = total * x(1)
  y(2) = helper(x(2), x(3))
  !$openad DEPENDENT(y)
end subroutine head

function helper(a, b)
  implicit double precision (a-h, o-z)
  helper = a * b - b**2
end function helper
