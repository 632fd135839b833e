! Combined: residuals of a model fit; matmul, transpose, dot_product,
! a user function in expressions, a data statement, select case on the
! model kind and an exit from a convergence loop.
module fit_mod
  implicit none
  integer, parameter :: nobs = 6
  double precision :: tobs(nobs), yobs(nobs)
  data tobs /0.0d0, 0.5d0, 1.0d0, 1.5d0, 2.0d0, 2.5d0/
  data yobs /1.0d0, 1.6d0, 2.1d0, 2.3d0, 2.2d0, 1.9d0/
contains
  double precision function model(p, t, kind_of)
    double precision, intent(in) :: p(3), t
    integer, intent(in) :: kind_of
    select case (kind_of)
    case (1)
      model = p(1) + p(2) * t + p(3) * t * t
    case default
      model = p(1) * exp(-p(2) * t) + p(3)
    end select
  end function model
end module fit_mod

subroutine head(x, y)
  use fit_mod
  implicit none
  double precision :: x(3), y(3)
  double precision :: r(nobs), a(nobs, 3), ata(3, 3), g(3), step
  integer :: i, it
  !$openad INDEPENDENT(x)
  do i = 1, nobs
    r(i) = model(x, tobs(i), 1) - yobs(i)
    a(i, 1) = 1.0d0
    a(i, 2) = tobs(i)
    a(i, 3) = tobs(i)**2
  end do
  ata = matmul(transpose(a), a)
  g = matmul(transpose(a), r)
  y(1) = 0.5d0 * dot_product(r, r)
  ! a few damped gradient steps on the quadratic model, stopped early
  y(2:3) = x(1:2)
  do it = 1, 50
    step = 0.01d0 * (ata(1, 1) * y(2) + ata(1, 2) * y(3) - g(1))
    y(2) = y(2) - step
    if (abs(step) < 1.0d-3) exit
  end do
  y(3) = model(x, 1.0d0, 2)
  !$openad DEPENDENT(y)
end subroutine head
