! Arrays of ranks 3 to 7, explicit and assumed shape.
module high_rank
  implicit none
contains
  double precision function total7(a)
    double precision, intent(in) :: a(:, :, :, :, :, :, :)
    total7 = sum(a * a)
  end function total7
end module high_rank

subroutine head(x, y)
  use high_rank
  implicit none
  double precision :: x(4), y(3)
  double precision :: a3(2, 2, 2), a5(2, 1, 2, 1, 2)
  double precision :: a7(2, 1, 1, 2, 1, 1, 2)
  integer :: i, j, k
  !$openad INDEPENDENT(x)
  do k = 1, 2
    do j = 1, 2
      do i = 1, 2
        a3(i, j, k) = x(i) * x(j + 2) + dble(k)
        a5(i, 1, j, 1, k) = a3(i, j, k) * x(k)
        a7(i, 1, 1, j, 1, 1, k) = a5(i, 1, j, 1, k) - x(4)
      end do
    end do
  end do
  y(1) = sum(a3)
  y(2) = a5(2, 1, 1, 1, 2) * a5(1, 1, 2, 1, 1)
  y(3) = total7(a7)
  !$openad DEPENDENT(y)
end subroutine head
