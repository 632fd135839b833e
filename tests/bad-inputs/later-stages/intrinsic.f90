! Differentiated with an intrinsics catalogue (--intrinsics) that lacks
! tanh: the booster refuses the statement and openad reports it here.
subroutine head(x, y)
  implicit none
  double precision :: x(2), y(2)
  !$openad INDEPENDENT(x)
  y(1) = x(1) * x(2)
  y(2) = tanh(x(1)) + x(2)
  !$openad DEPENDENT(y)
end subroutine head
