! A module with private default accessibility that makes its procedures
! public by an access statement (`public :: name`), keeps its state
! private, and a user of it.
module scaler
  implicit none
  private
  public :: scale, shift, set_factor
  double precision :: factor = 2.0d0
contains
  subroutine set_factor(f)
    double precision :: f
    factor = f
  end subroutine set_factor
  subroutine scale(a)
    double precision :: a
    a = a * factor + sin(a)
  end subroutine scale
  subroutine shift(a, b)
    double precision :: a, b
    b = b + a * a * factor
  end subroutine shift
end module scaler

subroutine head(x, y)
  use scaler
  implicit none
  double precision :: x(2), y(2)
  !$openad INDEPENDENT(x)
  call set_factor(1.5d0)
  y(1) = x(1)
  call scale(y(1))
  y(2) = x(2)
  call shift(y(1), y(2))
  call scale(y(2))
  !$openad DEPENDENT(y)
end subroutine head
