! Straight-line code on array elements with constant subscripts, as
! unrolled or generated code has it (chemistry mechanisms, small dense
! systems): element-precise def-use chains let the booster flatten the
! whole block, while an element that is overwritten and read again
! (w(2)), a parameter subscript (w(k2)) and a variable subscript (w(j))
! must still be told apart from the others.
subroutine head(x, y)
  implicit none
  integer, parameter :: k2 = 2
  double precision :: x(3), y(3)
  double precision :: w(4), r(3)
  integer :: j
  !$openad INDEPENDENT(x)
  w(1) = x(1) * x(2)
  w(2) = sin(w(1)) + x(3)
  w(3) = w(1) * w(2)
  w(2) = exp(0.3d0 * w(k2)) - w(3)
  w(4) = w(2) * w(1) + cos(w(3))
  r(1) = w(4) / (1.0d0 + w(2) * w(2))
  j = 3
  w(j) = w(4) * x(2)
  r(2) = w(3) + w(1) * r(1)
  w(1) = w(1) * w(1)
  r(3) = sqrt(w(1) + w(3) * w(3)) - w(k2)
  y(1) = r(1)
  y(2) = r(2) * r(3)
  y(3) = w(1) + w(2) + w(3) + w(4)
  !$openad DEPENDENT(y)
end subroutine head
