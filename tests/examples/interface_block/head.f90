! Interface blocks for external procedures, one with an assumed-shape argument.
subroutine norm2sq(v, r)
  implicit none
  double precision, intent(in) :: v(:)
  double precision, intent(out) :: r
  r = sum(v * v)
end subroutine norm2sq

double precision function blend(a, b, w)
  implicit none
  double precision, intent(in) :: a, b, w
  blend = w * a + (1.0d0 - w) * b
end function blend

subroutine head(x, y)
  implicit none
  interface
    subroutine norm2sq(v, r)
      double precision, intent(in) :: v(:)
      double precision, intent(out) :: r
    end subroutine norm2sq
    double precision function blend(a, b, w)
      double precision, intent(in) :: a, b, w
    end function blend
  end interface
  double precision :: x(4), y(2)
  !$openad INDEPENDENT(x)
  call norm2sq(x(1:3), y(1))
  y(2) = blend(x(1), x(4), 0.3d0) * y(1)
  !$openad DEPENDENT(y)
end subroutine head
