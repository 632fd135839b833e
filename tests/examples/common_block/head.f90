! Common blocks carry active data between routines.
subroutine setup(x)
  implicit none
  double precision :: x(3)
  double precision :: p, q, r
  integer :: n
  common /params/ p, q, r
  common /counts/ n
  p = x(1) * x(2)
  q = x(3) + 1.0d0
  r = 0.5d0
  n = 4
end subroutine setup

subroutine evolve(z)
  implicit none
  double precision :: z
  double precision :: p, q, r
  integer :: n, i
  common /params/ p, q, r
  common /counts/ n
  do i = 1, n
    z = z + r * (p - z) / q
  end do
end subroutine evolve

subroutine head(x, y)
  implicit none
  double precision :: x(3), y(2)
  double precision :: a, b, c
  common /params/ a, b, c
  !$openad INDEPENDENT(x)
  call setup(x)
  y(1) = x(3)
  call evolve(y(1))
  y(2) = a * b
  !$openad DEPENDENT(y)
end subroutine head
