! error-at: 6, error-kind: syntax
subroutine head(x, y)
  implicit none
  double precision :: x(2), y(1)
  !$openad INDEPENDENT(x)
  y(1) = x(1) +* x(2)
  !$openad DEPENDENT(y)
end subroutine head
