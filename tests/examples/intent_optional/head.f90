! intent attributes and optional arguments tested with present().
module shaping
  implicit none
contains
  subroutine shape_value(a, b, scale, shift)
    double precision, intent(in) :: a
    double precision, intent(out) :: b
    double precision, intent(in), optional :: scale
    double precision, intent(in), optional :: shift
    b = a * a
    if (present(scale)) b = b * scale
    if (present(shift)) then
      b = b + shift
    end if
  end subroutine shape_value
end module shaping

subroutine head(x, y)
  use shaping
  implicit none
  double precision, intent(in) :: x(3)
  double precision, intent(out) :: y(3)
  !$openad INDEPENDENT(x)
  call shape_value(x(1), y(1))
  call shape_value(x(2), y(2), scale=x(3))
  call shape_value(x(3), y(3), shift=x(1), scale=2.0d0)
  !$openad DEPENDENT(y)
end subroutine head
