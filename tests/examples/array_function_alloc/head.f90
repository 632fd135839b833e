! Sediment transport along a channel of cells: the capacity and the
! saturated flux are module functions returning allocatable arrays
! (allocated inside the function to the size of the argument, first or
! after other statements), called every time step inside array
! expressions, as an actual argument and inside a reduction.
module sediment
  implicit none
  integer, parameter :: ncell = 6
contains
  function capacity(q, slope) result(c)
    real(8), intent(in) :: q(:), slope
    real(8), allocatable :: c(:)
    integer :: i
    allocate(c(size(q)))
    do i = 1, size(q)
      c(i) = 0.4d0 * slope * q(i)**1.5d0
    end do
  end function capacity

  function saturated(s, cap) result(f)
    real(8), intent(in) :: s(:), cap
    real(8), allocatable :: f(:)
    real(8) :: rcap
    rcap = 1.0d0 / cap
    allocate(f(size(s)))
    f = cap * tanh(s * rcap)
  end function saturated

  subroutine deposit(bed, load, rate)
    real(8), intent(inout) :: bed(:)
    real(8), intent(in) :: load(:), rate
    bed = bed + rate * load
  end subroutine deposit
end module sediment

subroutine head(x, y)
  use sediment
  implicit none
  real(8) :: x(3), y(2)
  real(8) :: q(ncell), s(ncell), bed(ncell)
  integer :: step, i
  !$openad INDEPENDENT(x)
  do i = 1, ncell
    q(i) = x(1) * (1.0d0 + 0.1d0 * i)
    s(i) = 0.2d0 * x(2) * i
  end do
  bed = 0.0d0
  do step = 1, 8
    s = s + 0.1d0 * (capacity(q, x(3)) - s)
    call deposit(bed, saturated(s, 0.5d0), 0.05d0)
    q(2:ncell) = q(2:ncell) + 0.2d0 * (q(1:ncell - 1) - q(2:ncell))
  end do
  y(1) = sum(saturated(bed, x(3)) * q)
  y(2) = bed(ncell) + s(1)
  !$openad DEPENDENT(y)
end subroutine head
