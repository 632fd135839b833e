! integer, logical and character variables steer an active computation.
subroutine head(x, y)
  implicit none
  double precision :: x(2), y(2)
  integer :: n, k
  logical :: use_square, done
  character(len=8) :: method
  !$openad INDEPENDENT(x)
  method = 'square'
  use_square = method(1:3) == 'squ'
  n = len_trim(method)
  done = .false.
  y(1) = x(1)
  k = 0
  do while (.not. done)
    k = k + 1
    if (use_square) then
      y(1) = y(1) * x(2)
    else
      y(1) = y(1) + x(2)
    end if
    done = k >= n
  end do
  y(2) = dble(n) * x(1) + dble(k) * x(2)
  !$openad DEPENDENT(y)
end subroutine head
