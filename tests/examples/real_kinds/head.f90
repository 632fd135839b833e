! Real kinds side by side: real*8, double precision, real(kind=8), real(8)
! active; a default real (single precision) used passively.
subroutine head(x, y)
  implicit none
  real*8 :: x(3)
  double precision :: y(3)
  real(kind=8) :: a
  real(8) :: b
  real :: coarse
  real*4 :: factor
  !$openad INDEPENDENT(x)
  coarse = 0.5
  factor = 2.0
  a = x(1) * x(2)
  b = dble(coarse) * x(3) + a
  y(1) = a + b
  y(2) = b * dble(factor)
  y(3) = real(factor, 8) * x(1)**2
  !$openad DEPENDENT(y)
end subroutine head
