! read from an internal file into variables that then become active.
subroutine head(x, y)
  implicit none
  double precision :: x(2), y(2)
  character(len=40) :: buffer
  double precision :: a, b
  integer :: n
  !$openad INDEPENDENT(x)
  buffer = '3  0.25  1.5'
  read(buffer, *) n, a, b
  a = a * x(1)
  b = b + x(2)
  y(1) = a * b * n
  write(buffer, '(f10.4)') 2.5d0
  read(buffer, *) a
  y(2) = a * x(1) + b
  !$openad DEPENDENT(y)
end subroutine head
