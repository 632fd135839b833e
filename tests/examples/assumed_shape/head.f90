! Assumed-shape arrays in module procedures, ranks 1 and 2.
module ops
  implicit none
contains
  subroutine scale_rows(a, s)
    double precision, intent(inout) :: a(:, :)
    double precision, intent(in) :: s(:)
    integer :: i
    do i = 1, size(a, 1)
      a(i, :) = a(i, :) * s(i)
    end do
  end subroutine scale_rows

  double precision function weighted(v, w)
    double precision, intent(in) :: v(:), w(:)
    weighted = sum(v * w) / size(v)
  end function weighted
end module ops

subroutine head(x, y)
  use ops
  implicit none
  double precision :: x(6), y(2)
  double precision :: a(2, 3)
  integer :: j
  !$openad INDEPENDENT(x)
  do j = 1, 3
    a(1, j) = x(2 * j - 1)
    a(2, j) = x(2 * j)
  end do
  call scale_rows(a, x(5:6))
  y(1) = weighted(a(1, :), x(1:3))
  y(2) = weighted(a(:, 2), a(:, 3))
  !$openad DEPENDENT(y)
end subroutine head
