! Cloud droplets in a column: a module function returns the droplets
! above a size threshold as an allocatable array whose length it counts
! first (so only the function can allocate it), used in reductions and
! an array expression inside a time loop.
module droplets
  implicit none
  integer, parameter :: nd = 6
contains
  function large(r, rmin) result(big)
    real(8), intent(in) :: r(:), rmin
    real(8), allocatable :: big(:)
    integer :: i, n
    n = count(r > rmin)
    allocate(big(n))
    n = 0
    do i = 1, size(r)
      if (r(i) > rmin) then
        n = n + 1
        big(n) = r(i)
      end if
    end do
  end function large
end module droplets

subroutine head(x, y)
  use droplets
  implicit none
  real(8) :: x(2), y(2)
  real(8) :: r(nd), rain
  integer :: i, step
  !$openad INDEPENDENT(x)
  do i = 1, nd
    r(i) = x(1) * (0.4d0 + 0.25d0 * i)
  end do
  rain = 0.0d0
  do step = 1, 5
    r = r * (1.0d0 + 0.05d0 * x(2))
    rain = rain + 0.1d0 * sum(large(r, 1.0d0)**3)
  end do
  y(1) = rain
  y(2) = maxval(large(r, 0.5d0) * x(2))
  !$openad DEPENDENT(y)
end subroutine head
