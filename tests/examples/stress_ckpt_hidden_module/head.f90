! Adjoint checkpoint stress: a module used only by the deepest callees
! (never named by the top routine) holds an active state that a deep
! callee writes and that later calls read.
module hidden
  implicit none
  double precision :: h_state
  double precision :: h_scale
end module hidden

subroutine leaf(a)
  use hidden
  implicit none
  double precision :: a
  h_state = h_state + a * h_scale
  a = a * cos(h_state) + 0.1d0 * h_state
end subroutine leaf

subroutine twig(a)
  implicit none
  double precision :: a
  call leaf(a)
end subroutine twig

subroutine branch(a, b)
  implicit none
  double precision :: a, b
  call twig(a)
  b = b * a
  call twig(b)
end subroutine branch

subroutine init(x)
  use hidden
  implicit none
  double precision :: x
  h_state = x
  h_scale = 0.3d0 + x * x
end subroutine init

subroutine setup(x)
  implicit none
  double precision :: x
  call init(x)
end subroutine setup

subroutine peek(r)
  use hidden
  implicit none
  double precision :: r
  r = h_state * h_scale
end subroutine peek

subroutine report(r)
  implicit none
  double precision :: r
  call peek(r)
end subroutine report

subroutine head(x, y)
  implicit none
  double precision :: x(3), y(3)
  double precision :: a, b
  !$openad INDEPENDENT(x)
  call setup(x(3))
  a = x(1)
  b = x(2)
  call branch(a, b)
  call branch(b, a)
  call report(y(3))
  y(1) = a
  y(2) = b
  !$openad DEPENDENT(y)
end subroutine head
