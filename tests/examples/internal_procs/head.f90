! Internal procedures (contains) that use host variables.
subroutine head(x, y)
  implicit none
  double precision :: x(3), y(2)
  double precision :: scale
  !$openad INDEPENDENT(x)
  scale = x(3)
  y(1) = weigh(x(1)) + weigh(x(2))
  call shift(y(1))
  y(2) = weigh(y(1) * x(2))
  !$openad DEPENDENT(y)
contains
  double precision function weigh(v)
    double precision, intent(in) :: v
    weigh = scale * v * v
  end function weigh
  subroutine shift(v)
    double precision, intent(inout) :: v
    v = v + cos(scale)
  end subroutine shift
end subroutine head
