! Line relaxation on a small 2-D field: local pointers walk over the
! columns of the field (a dummy) and a window slides over a local work
! row, re-pointed every iteration with subscripts from the loop index;
! a branch points a pointer at a section or at nothing. The relaxation is
! called in a time loop.
module line_relax
  implicit none
  integer, parameter :: nx = 4, ny = 3
contains
  subroutine relax(f, w)
    double precision, target :: f(nx, ny)
    double precision, intent(in) :: w
    double precision, target :: work(nx)
    double precision, pointer :: col(:), left(:), win(:)
    integer :: j, k
    do j = 2, ny
      col => f(:, j)
      left => f(:, j - 1)
      col = col + w * left * col
    end do
    work = f(:, ny)
    do k = 1, nx - 2
      win => work(k:k + 2)
      win(2) = win(2) + 0.25d0 * (win(1) - 2.0d0 * win(2) + win(3)) * win(2)
    end do
    f(:, 1) = f(:, 1) + 0.5d0 * work
    if (w > 0.1d0) then
      win => f(2:nx, 1)
    else
      win => null()
    end if
    if (associated(win)) win = win * (1.0d0 - w * win)
  end subroutine relax
end module line_relax

subroutine head(x, y)
  use line_relax
  implicit none
  double precision :: x(12), y(2)
  double precision :: field(nx, ny)
  integer :: t
  !$openad INDEPENDENT(x)
  field = reshape(x, (/ nx, ny /))
  do t = 1, 5
    call relax(field, 0.05d0 * t)
  end do
  y(1) = sum(field**2)
  y(2) = field(2, 3) * field(4, 1)
  !$openad DEPENDENT(y)
end subroutine head
