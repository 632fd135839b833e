! Recursion in the adjoint: a divide-and-conquer routine whose recursive
! calls read and change an active module variable between them, with a
! loop at the leaves, and a recursive function in an expression.
module rec_state
  implicit none
  double precision :: damping
  integer :: leaves
end module rec_state

recursive subroutine bisect(v, lo, hi)
  use rec_state
  implicit none
  double precision :: v(8)
  integer :: lo, hi
  integer :: mid, i
  if (hi - lo < 2) then
    do i = lo, hi
      v(i) = v(i) * damping + sin(v(i))
    end do
    leaves = leaves + 1
  else
    mid = (lo + hi) / 2
    call bisect(v, lo, mid)
    damping = damping * 0.9d0 + 0.05d0 * v(lo)
    call bisect(v, mid + 1, hi)
    v(lo) = v(lo) + v(hi) * v(mid) * 0.5d0
  end if
end subroutine bisect

recursive function chain(x, n) result(r)
  implicit none
  double precision :: x, r
  integer :: n
  if (n <= 1) then
    r = x
  else
    r = x * chain(x, n - 1) * 0.5d0 + cos(x)
  end if
end function chain

subroutine head(x, y)
  use rec_state
  implicit none
  double precision :: x(8), y(4)
  double precision :: v(8)
  double precision :: chain
  integer :: i
  !$openad INDEPENDENT(x)
  do i = 1, 8
    v(i) = x(i)
  end do
  damping = 0.7d0 + 0.1d0 * x(1)
  leaves = 0
  call bisect(v, 1, 8)
  y(1) = v(1)
  y(2) = v(8) + damping
  y(3) = chain(x(2), 4) + v(5) * leaves
  y(4) = v(3) * v(6)
  !$openad DEPENDENT(y)
end subroutine head
