! The function the harness self-check differentiates by hand.
subroutine head(x, y)
  implicit none
  double precision :: x(2), y(2)
  !$openad INDEPENDENT(x)
  y(1) = x(1) * x(2)
  y(2) = sin(x(1)) + x(2)**2
  !$openad DEPENDENT(y)
end subroutine head
