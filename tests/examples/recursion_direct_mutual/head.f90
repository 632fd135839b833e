! Recursion: a directly recursive routine and a mutually recursive pair,
! differentiated in every mode (the adjoint tapes or checkpoints every
! activation).
recursive subroutine power_series(x, n, r)
  implicit none
  double precision :: x, r
  integer :: n
  if (n == 0) then
    r = 1.0d0
  else
    call power_series(x, n - 1, r)
    r = r * x + 0.1d0 * sin(x * n)
  end if
end subroutine power_series

recursive subroutine ping(a, n)
  implicit none
  double precision :: a
  integer :: n
  if (n > 0) then
    a = a * 1.1d0 + cos(a)
    call pong(a, n - 1)
  end if
end subroutine ping

recursive subroutine pong(a, n)
  implicit none
  double precision :: a
  integer :: n
  if (n > 0) then
    a = sqrt(1.0d0 + a * a)
    call ping(a, n - 1)
  end if
end subroutine pong

subroutine head(x, y)
  implicit none
  double precision :: x(2), y(2)
  double precision :: a
  !$openad INDEPENDENT(x)
  call power_series(x(1), 5, y(1))
  a = x(2) * x(1)
  call ping(a, 5)
  y(2) = a
  !$openad DEPENDENT(y)
end subroutine head
