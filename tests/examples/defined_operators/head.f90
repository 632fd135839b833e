! User-defined operators and defined assignment on a derived type, as a
! small particle model writes them: `.dot.` and `.dist.` between two
! `vec3` values (functions returning reals), `==` overloaded to compare
! positions, and `assignment(=)` filling a `vec3` from an array, used in
! a time loop of a spring system.
module vector_algebra
  implicit none
  private
  public :: vec3, operator(.dot.), operator(.dist.), operator(==), assignment(=)

  type vec3
    real(8) :: c(3)
  end type vec3

  interface operator(.dot.)
    module procedure dot_vec3
  end interface

  interface operator(.dist.)
    module procedure distance_vec3
  end interface

  interface operator(.eq.)
    module procedure same_vec3
  end interface

  interface assignment(=)
    module procedure vec3_from_array
  end interface
contains
  real(8) function dot_vec3(a, b)
    type(vec3), intent(in) :: a, b
    dot_vec3 = a%c(1) * b%c(1) + a%c(2) * b%c(2) + a%c(3) * b%c(3)
  end function dot_vec3

  real(8) function distance_vec3(a, b)
    type(vec3), intent(in) :: a, b
    distance_vec3 = sqrt((a%c(1) - b%c(1))**2 + (a%c(2) - b%c(2))**2 + (a%c(3) - b%c(3))**2)
  end function distance_vec3

  logical function same_vec3(a, b)
    type(vec3), intent(in) :: a, b
    same_vec3 = all(a%c == b%c)
  end function same_vec3

  subroutine vec3_from_array(v, a)
    type(vec3), intent(out) :: v
    real(8), intent(in) :: a(3)
    v%c = a
  end subroutine vec3_from_array
end module vector_algebra

subroutine head(x, y)
  use vector_algebra
  implicit none
  real(8), intent(in) :: x(6)
  real(8), intent(out) :: y(3)
  type(vec3) :: p, q, v
  real(8) :: r, f, e
  integer :: step
  !$openad INDEPENDENT(x)
  p = x(1:3)
  q = x(4:6)
  v%c = 0.0d0
  e = 0.0d0
  do step = 1, 20
    r = p .dist. q
    f = -2.0d0 * (r - 1.0d0) / r
    v%c = v%c + 0.05d0 * f * (p%c - q%c)
    p%c = p%c + 0.05d0 * v%c
    if (.not. (p == q)) e = e + 0.5d0 * (v .dot. v)
  end do
  y(1) = p .dot. q
  y(2) = e
  y(3) = p .dist. v
  !$openad DEPENDENT(y)
end subroutine head
