! The statement the booster refuses is in an included file.
subroutine head(x, y)
  implicit none
  double precision :: x(2), y(2)
  !$openad INDEPENDENT(x)
  include 'intrinsic_body.inc'
  !$openad DEPENDENT(y)
end subroutine head
