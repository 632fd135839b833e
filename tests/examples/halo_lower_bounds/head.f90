! Halo cells and lower bounds as models use them: fields declared with
! halos `h(0:n+1)`, dummies declared `h(0:)` (assumed shape keeping the
! lower bound) and `h(0:n+1)` (explicit shape), halo updates by periodic
! copy, a red-black (stride-2) sweep with sections `h(1:n:2)`, a reversed
! section `h(n:1:-1)`, and lbound/ubound driving the loops.
! Parameters: x(1) diffusivity, x(2) forcing, x(3) initial amplitude.
module halo_ops
  implicit none
  integer, parameter :: n = 20
contains
  subroutine fill_halo(h)
    double precision, intent(inout) :: h(0:)
    integer :: last
    last = ubound(h, 1)
    h(0) = h(last - 1)
    h(last) = h(1)
  end subroutine fill_halo

  subroutine red_black(h, k, f)
    double precision, intent(inout) :: h(0:n + 1)
    double precision, intent(in) :: k, f
    h(1:n:2) = h(1:n:2) + k * (h(0:n - 1:2) - 2.0d0 * h(1:n:2) + h(2:n + 1:2)) + f
    call fill_halo(h)
    h(2:n:2) = h(2:n:2) + k * (h(1:n - 1:2) - 2.0d0 * h(2:n:2) + h(3:n + 1:2)) + f
    call fill_halo(h)
  end subroutine red_black

  double precision function weighted_sum(h)
    double precision, intent(in) :: h(0:)
    integer :: i
    weighted_sum = 0.0d0
    do i = lbound(h, 1) + 1, ubound(h, 1) - 1
      weighted_sum = weighted_sum + i * h(i)
    end do
  end function weighted_sum
end module halo_ops

subroutine head(x, y)
  use halo_ops
  implicit none
  double precision :: x(3), y(2)
  double precision :: h(0:n + 1), rev(n)
  integer :: i, t
  !$openad INDEPENDENT(x)
  do i = 1, n
    h(i) = x(3) * sin(6.2831853d0 * i / n) + 1.0d0
  end do
  call fill_halo(h)
  do t = 1, 15
    call red_black(h, 0.2d0 * x(1), 0.01d0 * x(2))
  end do
  rev = h(n:1:-1)
  y(1) = weighted_sum(h)
  y(2) = sum(rev(1:5) * h(1:5))
  !$openad DEPENDENT(y)
end subroutine head
