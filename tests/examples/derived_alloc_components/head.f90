! A field type with an allocatable real component, allocated from the
! size of the input, relaxed in a loop by a routine taking the field as a
! derived-type dummy; a whole-value copy `b = a` carries the values (and
! derivatives) of every component.
module fields
  implicit none
  type field
    double precision, allocatable :: v(:)
    double precision :: scale
    integer :: n
  end type field
contains
  subroutine relax(a, w)
    type(field), intent(inout) :: a
    double precision, intent(in) :: w
    integer :: i
    do i = 2, a%n
      a%v(i) = a%v(i) + w * a%scale * (a%v(i - 1) - a%v(i))
    end do
  end subroutine relax

  subroutine energy(a, e)
    type(field), intent(in) :: a
    double precision, intent(out) :: e
    e = a%scale * sum(a%v**2)
  end subroutine energy
end module fields

subroutine head(x, y)
  use fields
  implicit none
  double precision :: x(5), y(3)
  type(field) :: a, b
  integer :: k
  !$openad INDEPENDENT(x)
  a%n = size(x) - 1
  allocate(a%v(a%n))
  a%v = x(1:a%n)
  a%scale = x(5)
  do k = 1, 3
    call relax(a, 0.3d0)
  end do
  b = a
  b%v = b%v * 2.0d0
  call energy(b, y(1))
  y(2) = a%v(a%n) * b%v(1)
  call relax(b, 0.1d0)
  y(3) = b%v(2) + a%scale
  deallocate(a%v)
  deallocate(b%v)
  !$openad DEPENDENT(y)
end subroutine head
