! exp, log, log10, sqrt.
subroutine head(x, y)
  implicit none
  double precision :: x(3), y(3)
  double precision :: t
  !$openad INDEPENDENT(x)
  t = exp(-x(1) * x(2))
  y(1) = t * log(x(3)) + sqrt(x(1) + x(3))
  y(2) = log10(x(2) * x(3) + 1.0d0) - exp(t)
  y(3) = sqrt(log(1.0d0 + exp(x(1))))
  !$openad DEPENDENT(y)
end subroutine head
