! Subscripts computed from real variables that the same straight-line code
! changes: a(nint(r)) read before r is assigned, and a statement that
! changes the variable of its own subscript (r = a(nint(r))). Derivative
! code placed after such an assignment must not re-evaluate the subscript
! with the new value (flattening splits there; the statement's propagator
! comes first).
subroutine head(x, y)
  implicit none
  double precision :: x(3), y(3)
  double precision :: a(4), r, s, t
  integer :: i
  !$openad INDEPENDENT(x)
  do i = 1, 3
    a(i) = x(i) * x(i) + 0.5d0 * i
  end do
  a(4) = x(1) * x(3)
  r = 1.2d0
  t = a(nint(r)) * 2.0d0 + sin(x(2))
  r = r + 1.0d0 + 0.1d0 * x(2)
  y(1) = t * r
  s = 2.2d0
  s = a(nint(s)) * 0.5d0 + s
  y(2) = a(nint(r)) * x(3) + s * t
  r = 3.1d0
  r = a(nint(r)) + r * x(1)
  y(3) = r * a(nint(r - a(3)))
  !$openad DEPENDENT(y)
end subroutine head
