! A 1-D Euler solver on an array of cells (derived type with an array
! component), written with user elemental procedures as CFD codes do: an
! elemental pressure function called on scalars inside the flux routines
! and on whole component sections (`pressure(cells(:)%q(1), ...)`), and an
! elemental subroutine applied to component columns; Rusanov fluxes,
! array-valued flux function, select case on a character argument and an
! exit from the update loop, in a time loop.
module euler1d
  implicit none
  integer, parameter :: nc = 12
  real(8), parameter :: gam = 1.4d0
  type cell
    real(8) :: q(3)
    real(8) :: vol
  end type cell
contains
  elemental function pressure(rho, mom, en) result(p)
    real(8), intent(in) :: rho, mom, en
    real(8) :: p
    p = (gam - 1.0d0) * (en - 0.5d0 * mom * mom / rho)
  end function pressure

  ! Keeps a density above a floor and relaxes the energy towards the
  ! pressure floor: applied to whole columns of cells.
  elemental subroutine floor_state(rho, en, rho_min)
    real(8), intent(inout) :: rho, en
    real(8), intent(in) :: rho_min
    rho = max(rho, rho_min)
    en = en + 0.01d0 * (pressure(rho, 0.0d0, en) - en)
  end subroutine floor_state

  function physical_flux(q) result(f)
    real(8), intent(in) :: q(3)
    real(8) :: f(3)
    real(8) :: u, p
    u = q(2) / q(1)
    p = pressure(q(1), q(2), q(3))
    f(1) = q(2)
    f(2) = q(2) * u + p
    f(3) = (q(3) + p) * u
  end function physical_flux

  subroutine rusanov(ql, qr, f)
    real(8), intent(in) :: ql(3), qr(3)
    real(8), intent(out) :: f(3)
    real(8) :: cl, cr, smax
    cl = sqrt(gam * pressure(ql(1), ql(2), ql(3)) / ql(1)) + abs(ql(2) / ql(1))
    cr = sqrt(gam * pressure(qr(1), qr(2), qr(3)) / qr(1)) + abs(qr(2) / qr(1))
    smax = max(cl, cr)
    f = 0.5d0 * (physical_flux(ql) + physical_flux(qr)) - 0.5d0 * smax * (qr - ql)
  end subroutine rusanov

  subroutine advance(cells, dt, scheme)
    type(cell), intent(inout), target :: cells(nc)
    real(8), intent(in) :: dt
    character(len=*), intent(in) :: scheme
    real(8) :: fl(3, nc + 1)
    integer :: i
    do i = 2, nc
      call rusanov(cells(i - 1)%q, cells(i)%q, fl(:, i))
    end do
    fl(:, 1) = fl(:, 2)
    fl(:, nc + 1) = fl(:, nc)
    do i = 1, nc
      select case (scheme)
      case ('euler')
        cells(i)%q = cells(i)%q - dt / cells(i)%vol * (fl(:, i + 1) - fl(:, i))
      case default
        cells(i)%q = cells(i)%q - 0.5d0 * dt / cells(i)%vol * (fl(:, i + 1) - fl(:, i))
      end select
      if (cells(i)%q(1) < 0.0d0) exit
    end do
    call floor_state(cells(:)%q(1), cells(:)%q(3), 0.05d0)
  end subroutine advance
end module euler1d

subroutine head(x, y)
  use euler1d
  implicit none
  real(8), intent(in) :: x(3)
  real(8), intent(out) :: y(2)
  type(cell) :: cells(nc)
  integer :: i, t
  !$openad INDEPENDENT(x)
  do i = 1, nc
    cells(i)%q(1) = x(1) + 0.1d0 * exp(-0.5d0 * (i - 6)**2)
    cells(i)%q(2) = x(2) * cells(i)%q(1)
    cells(i)%q(3) = x(3) / (gam - 1.0d0) + 0.5d0 * x(2)**2 * cells(i)%q(1)
    cells(i)%vol = 1.0d0 + 0.01d0 * i
  end do
  do t = 1, 10
    if (mod(t, 2) == 0) then
      call advance(cells, 0.02d0, 'euler')
    else
      call advance(cells, 0.02d0, 'half')
    end if
  end do
  y(1) = sum(cells(:)%q(1) * cells(:)%vol)
  y(2) = sum(pressure(cells(:)%q(1), cells(:)%q(2), cells(:)%q(3)))
  !$openad DEPENDENT(y)
end subroutine head
