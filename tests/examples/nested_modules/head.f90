! Modules that use other modules; a module procedure updates state in
! another module.
module base_mod
  implicit none
  double precision :: acc
end module base_mod

module mid_mod
  use base_mod
  implicit none
  double precision :: factor
contains
  subroutine add(v)
    double precision, intent(in) :: v
    acc = acc + factor * v
  end subroutine add
end module mid_mod

module top_mod
  use mid_mod
  implicit none
contains
  subroutine run(x)
    double precision, intent(in) :: x(:)
    integer :: i
    acc = 0.0d0
    factor = x(1)
    do i = 1, size(x)
      call add(x(i)**2)
    end do
  end subroutine run
end module top_mod

subroutine head(x, y)
  use top_mod
  implicit none
  double precision :: x(3), y(2)
  !$openad INDEPENDENT(x)
  call run(x)
  y(1) = acc
  y(2) = acc * factor
  !$openad DEPENDENT(y)
end subroutine head
