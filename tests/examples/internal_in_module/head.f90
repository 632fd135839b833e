! Internal procedures of a module procedure working on the host's dummy
! array and the host's locals: a relaxation step whose contained routines
! update the host dummy `h` (one with a loop, re-run in -m rj from its
! checkpoint; one loop-free), an internal function reading a host local
! that changes every sweep, called from a time loop in head.
module ice_column
  implicit none
  integer, parameter :: nl = 5
  real(8) :: accumulation = 0.02d0
contains
  subroutine relax_column(h, rate, nsweep)
    real(8), intent(inout) :: h(nl)
    real(8), intent(in) :: rate
    integer, intent(in) :: nsweep
    real(8) :: visc
    integer :: s, k
    visc = 0.1d0
    do s = 1, nsweep
      do k = 2, nl - 1
        call diffuse_at(k)
      end do
      call add_snow(1)
      visc = visc * 1.1d0
    end do
  contains
    subroutine diffuse_at(k)
      integer, intent(in) :: k
      integer :: j
      do j = k - 1, k
        h(j) = h(j) + visc * rate * (h(j + 1) - h(j)) * flux_weight(j)
      end do
    end subroutine diffuse_at
    subroutine add_snow(k)
      integer, intent(in) :: k
      h(k) = h(k) + accumulation * exp(-h(k))
    end subroutine add_snow
    real(8) function flux_weight(j)
      integer, intent(in) :: j
      flux_weight = 1.0d0 / (1.0d0 + visc * h(j)**2)
    end function flux_weight
  end subroutine relax_column
end module ice_column

subroutine head(x, y)
  use ice_column
  implicit none
  real(8), intent(in) :: x(6)
  real(8), intent(out) :: y(2)
  real(8) :: h(nl)
  integer :: t
  !$openad INDEPENDENT(x)
  h = x(1:nl)
  accumulation = 0.02d0
  do t = 1, 4
    call relax_column(h, x(6), 2)
    accumulation = accumulation * 0.9d0
  end do
  y(1) = sum(h**2)
  y(2) = h(1) * h(nl)
  !$openad DEPENDENT(y)
end subroutine head
