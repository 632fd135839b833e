! The top-level routine is itself a module procedure (the driver uses the module).
module model
  implicit none
  double precision, parameter :: alpha = 0.3d0
contains
  subroutine head(x, y)
    double precision :: x(2), y(2)
    !$openad INDEPENDENT(x)
    y(1) = x(1) * exp(alpha * x(2))
    y(2) = x(2) / (1.0d0 + x(1)**2)
    !$openad DEPENDENT(y)
  end subroutine head
end module model
