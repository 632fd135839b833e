! Adjoint stress: nested loops left early with exit and cycle.
subroutine head(x, y)
  implicit none
  double precision :: x(4), y(2)
  double precision :: s
  integer :: i, j
  !$openad INDEPENDENT(x)
  y = 0.0d0
  outer: do i = 1, 6
    s = x(mod(i - 1, 4) + 1)
    do j = 1, 5
      if (j == 2) cycle
      if (s > 3.0d0) exit
      s = s * 1.3d0 + x(1) * 0.1d0
    end do
    if (mod(i, 3) == 0) cycle outer
    y(1) = y(1) + s
    if (i == 5) exit outer
    y(2) = y(2) + s * x(4)
  end do outer
  !$openad DEPENDENT(y)
end subroutine head
