! Allocation of storage that outlives the call: a module array and an
! allocatable dummy argument allocated by a callee.
module field_mod
  implicit none
  double precision, allocatable :: f(:)
contains
  subroutine make(n, a, x)
    integer :: n
    double precision, allocatable :: a(:)
    double precision :: x(2)
    integer :: i
    allocate(a(0:n - 1))
    do i = 0, n - 1
      a(i) = x(1) * dble(i + 1) + x(2) * x(2)
    end do
  end subroutine make
end module field_mod

subroutine head(x, y)
  use field_mod
  implicit none
  double precision :: x(2), y(2)
  double precision, allocatable :: g(:)
  !$openad INDEPENDENT(x)
  allocate(f(2))
  f(1) = x(1) * x(2)
  f(2) = sin(x(1))
  call make(3, g, x)
  y(1) = f(1) + f(2) * g(2)
  y(2) = g(0) * g(1)
  deallocate(f)
  deallocate(g)
  !$openad DEPENDENT(y)
end subroutine head
