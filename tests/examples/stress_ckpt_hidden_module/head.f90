! Adjoint checkpoint stress: a module used only by the deepest callees
! (never named by the top routine) holds an active state that a deep
! callee writes and that later calls read, and a passive allocatable
! array that each deep call changes.
module hidden
  implicit none
  double precision :: h_state
  double precision :: h_scale
  double precision, allocatable :: coef(:)
end module hidden

subroutine leaf(a)
  use hidden
  implicit none
  double precision :: a
  h_state = h_state + a * h_scale
  a = a * cos(h_state) * coef(1) + 0.1d0 * h_state + coef(2)
  coef(1) = coef(1) * 0.9d0 + 0.05d0
  coef(2) = coef(2) + 0.01d0
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
  if (.not. allocated(coef)) allocate(coef(2))
  coef(1) = 1.0d0
  coef(2) = 0.0d0
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
