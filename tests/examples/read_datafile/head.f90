! Coefficients read from a data file shipped with the example.
subroutine head(x, y)
  implicit none
  double precision :: x(2), y(2)
  double precision :: c(2, 10), t
  integer :: n, i, unit_no
  !$openad INDEPENDENT(x)
  open(newunit=unit_no, file='coefficients.dat', status='old', action='read')
  read(unit_no, *) n
  do i = 1, n
    read(unit_no, *) c(1, i), c(2, i)
  end do
  read(unit_no, *) t
  close(unit_no)
  t = t * x(2)
  y = 0.0d0
  do i = 1, n
    y(1) = y(1) + c(1, i) * x(1)**i
    y(2) = y(2) + c(2, i) * cos(x(2) * i)
  end do
  y(1) = y(1) + t * x(1)
  !$openad DEPENDENT(y)
end subroutine head
