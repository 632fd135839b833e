! Glacier-like model written with array syntax on a 2-D array h(cell, time
! level): nonlinear diffusion from a module routine (flux between cells),
! h(2:n-1, t+1) updated from h(:, t) (a time level other than the one
! assigned: the canonicaliser must read h in place, not copy it), boundary
! conditions, maxval and sum outputs.
module glacier_sections
  implicit none
  integer, parameter :: n = 12, nt = 30
  double precision, parameter :: dt = 0.05d0
contains
  subroutine fluxes(h, q)
    double precision, intent(in) :: h(n)
    double precision, intent(out) :: q(n - 1)
    q = 0.3d0 * (h(2:n) + h(1:n-1))**2 * (h(2:n) - h(1:n-1))
  end subroutine fluxes
end module glacier_sections

subroutine head(x, y)
  use glacier_sections
  implicit none
  double precision :: x(n), y(3)
  double precision :: h(n, nt + 1), q(n - 1)
  integer :: t
  !$openad INDEPENDENT(x)
  h = 0.0d0
  h(:, 1) = x
  do t = 1, nt
    call fluxes(h(:, t), q)
    h(2:n-1, t+1) = h(2:n-1, t) + dt * (q(2:n-1) - q(1:n-2)) &
         + 0.1d0 * (h(1:n-2, t) - 2 * h(2:n-1, t) + h(3:n, t))
    h(1, t+1) = 0.5d0 * h(2, t+1)
    h(n, t+1) = h(n-1, t+1)
  end do
  y(1) = maxval(h(:, nt + 1))
  y(2) = sum(h(:, nt + 1))
  y(3) = sum(h)
  !$openad DEPENDENT(y)
end subroutine head
