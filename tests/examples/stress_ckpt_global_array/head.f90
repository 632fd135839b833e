! Adjoint checkpoint stress: active global arrays (a module array and a
! common-block array) read through subscripts by the deepest callee of a
! chain and changed in place by the callers between calls.
module field_mod
  implicit none
  double precision :: field(4)
end module field_mod

subroutine relax(v, k)
  use field_mod
  implicit none
  double precision :: v
  integer :: k
  double precision :: w(3)
  common /weights/ w
  v = v * field(k) + w(mod(k, 3) + 1) * sin(v)
end subroutine relax

subroutine sweep(v)
  implicit none
  double precision :: v(2)
  integer :: k
  do k = 1, 4
    call relax(v(mod(k, 2) + 1), k)
  end do
end subroutine sweep

subroutine stage(v)
  use field_mod
  implicit none
  double precision :: v(2)
  double precision :: w(3)
  common /weights/ w
  integer :: k
  call sweep(v)
  do k = 1, 4
    field(k) = field(k) * 0.8d0 + 0.1d0 * v(1) * v(2)
  end do
  w(2) = w(2) + v(1)
  call sweep(v)
end subroutine stage

subroutine head(x, y)
  use field_mod
  implicit none
  double precision :: x(4), y(3)
  double precision :: v(2)
  double precision :: w(3)
  common /weights/ w
  integer :: k
  !$openad INDEPENDENT(x)
  do k = 1, 4
    field(k) = 0.5d0 + 0.2d0 * x(k)
  end do
  w(1) = x(1)
  w(2) = 0.3d0
  w(3) = x(4) * x(4)
  v(1) = x(2)
  v(2) = x(3)
  call stage(v)
  field(3) = field(3) + v(2)
  w(3) = w(3) * v(1)
  call stage(v)
  y(1) = v(1)
  y(2) = v(2)
  y(3) = field(1) + field(3) * w(3)
  !$openad DEPENDENT(y)
end subroutine head
