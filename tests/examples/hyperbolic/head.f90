! sinh, cosh, tanh.
subroutine head(x, y)
  implicit none
  real(kind=8) :: x(2), y(2)
  !$openad INDEPENDENT(x)
  y(1) = sinh(x(1)) * cosh(x(2))
  y(2) = tanh(x(1) * x(2)) + cosh(x(1)) / sinh(x(2))
  !$openad DEPENDENT(y)
end subroutine head
