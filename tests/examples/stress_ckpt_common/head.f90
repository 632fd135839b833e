! Adjoint checkpoint stress: the deepest callee of a chain reads
! common-block variables that its callers change after the call. The
! middle routine does not name the block, the top routine knows its
! members under other names. A passive block (a repeat count) is read
! deep and changed by the top routine between calls.
subroutine deep(a)
  implicit none
  double precision :: a
  double precision :: c, s
  common /cblk/ c, s
  integer :: nrep, i
  common /iblk/ nrep
  do i = 1, nrep
    a = a * c + sin(a) * s
  end do
end subroutine deep

subroutine middle(a)
  implicit none
  double precision :: a
  call deep(a)
  a = a + 0.25d0 * cos(a)
  call deep(a)
end subroutine middle

subroutine outer(a, b)
  implicit none
  double precision :: a, b
  double precision :: c, s
  common /cblk/ c, s
  call middle(a)
  c = c + 0.5d0 * a * b
  call middle(b)
  s = s * b
end subroutine outer

subroutine head(x, y)
  implicit none
  double precision :: x(3), y(3)
  double precision :: cc, ss
  common /cblk/ cc, ss
  double precision :: a, b
  integer :: reps
  common /iblk/ reps
  !$openad INDEPENDENT(x)
  reps = 1
  cc = 0.5d0 * x(3)
  ss = 0.5d0
  a = x(1)
  b = x(2)
  call outer(a, b)
  ss = ss + 0.3d0 * a
  cc = cc * 0.9d0
  reps = 2
  call outer(b, a)
  reps = 3
  y(1) = a
  y(2) = b
  y(3) = cc * ss
  !$openad DEPENDENT(y)
end subroutine head
