! Hand-written tangent of head.f90, in the form openad -m f / -m fv produce
! (the same source serves the vector mode, where %d is an array).
subroutine head(x, y)
  use OAD_active
  implicit none
  type(active) :: x(2), y(2)
  y(1)%d = x(2)%v * x(1)%d + x(1)%v * x(2)%d
  y(1)%v = x(1)%v * x(2)%v
  y(2)%d = cos(x(1)%v) * x(1)%d + 2.0d0 * x(2)%v * x(2)%d
  y(2)%v = sin(x(1)%v) + x(2)%v**2
end subroutine head
