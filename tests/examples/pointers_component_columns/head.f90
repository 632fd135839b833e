! A stack of layers kept in a derived-type state, h(n, nl): each layer is
! updated through a pointer to its column (`hk => s%h(:, k)`), the layer
! below read through another (`hb => s%h(:, k - 1)`, only read), a pointer
! to a rank-1 component (`q => s%q`), in a time loop; the output read
! through a pointer too.
module layer_stack
  implicit none
  integer, parameter :: n = 6, nl = 3
  type stack_state
    double precision :: h(n, nl), q(n)
  end type stack_state
contains
  subroutine relax(s, ex, d)
    type(stack_state), target, intent(inout) :: s
    double precision, intent(in) :: ex, d
    double precision, pointer :: hk(:), hb(:), q(:)
    integer :: i, k
    q => s%q
    do k = 1, nl
      hk => s%h(:, k)
      do i = 2, n - 1
        q(i) = d * (hk(i + 1) - 2.0d0 * hk(i) + hk(i - 1))
      end do
      hk(2:n-1) = hk(2:n-1) + q(2:n-1)
      if (k > 1) then
        hb => s%h(:, k - 1)
        do i = 1, n
          hk(i) = hk(i) - ex * (hk(i) - hb(i)) * hb(i)
        end do
      end if
    end do
  end subroutine relax
end module layer_stack

subroutine head(x, y)
  use layer_stack
  implicit none
  double precision :: x(3), y(2)
  type(stack_state), target :: s
  double precision, pointer :: top(:)
  integer :: i, k, t
  !$openad INDEPENDENT(x)
  s%q = 0.0d0
  do k = 1, nl
    do i = 1, n
      s%h(i, k) = x(3) * (1.0d0 + 0.1d0 * k + 0.3d0 * sin(0.7d0 * i * k))
    end do
  end do
  do t = 1, 6
    call relax(s, 0.2d0 * x(1), 0.15d0 * x(2))
  end do
  top => s%h(:, nl)
  y(1) = sum(s%h(:, 1)) + sum(top * top)
  y(2) = top(n / 2) * s%q(2)
  !$openad DEPENDENT(y)
end subroutine head
