! A coupled land-atmosphere model whose components keep their state
! private (the way encapsulated model components are written): each
! module exposes init and step routines, and a coupler routine outside
! both calls them once per step. The joint adjoint re-runs the coupler
! from checkpoints that must hold the components' private state.
module atmosphere
  implicit none
  private
  integer, parameter, public :: ncol = 12
  real(8) :: humidity(ncol)
  real(8) :: lapse = 0.65d0
  integer :: calls_made = 0
  public :: atm_init, atm_step
contains
  subroutine atm_init(q0)
    real(8), intent(in) :: q0
    integer :: i
    do i = 1, ncol
      humidity(i) = q0 * (1.0d0 + 0.05d0 * cos(0.4d0 * i))
    end do
    calls_made = 0
  end subroutine atm_init

  subroutine atm_step(t, precip)
    real(8), intent(in) :: t(ncol)
    real(8), intent(out) :: precip(ncol)
    real(8) :: qsat(ncol)
    calls_made = calls_made + 1
    qsat = 0.38d0 * exp(0.06d0 * (t - 273.0d0) * lapse)
    where (humidity > qsat)
      precip = humidity - qsat
      humidity = qsat
    elsewhere
      precip = 0.0d0
    end where
    ! Evaporation refills the column more slowly after the spin-up.
    if (calls_made > 4) then
      humidity = humidity + 0.02d0 * sqrt(t / 273.0d0)
    else
      humidity = humidity + 0.04d0 * sqrt(t / 273.0d0)
    end if
  end subroutine atm_step
end module atmosphere

module land_surface
  use atmosphere, only: ncol
  implicit none
  private
  real(8), allocatable :: moisture(:)
  real(8) :: field_capacity
  public :: land_init, land_step, land_total
contains
  subroutine land_init(w0, capacity)
    real(8), intent(in) :: w0, capacity
    if (.not. allocated(moisture)) allocate(moisture(ncol))
    moisture = w0
    field_capacity = capacity
  end subroutine land_init

  subroutine land_step(precip, t)
    real(8), intent(in) :: precip(ncol)
    real(8), intent(inout) :: t(ncol)
    real(8) :: runoff(ncol)
    moisture = moisture + precip
    runoff = max(moisture - field_capacity, 0.0d0)
    moisture = moisture - runoff
    ! Evaporative cooling of the surface.
    t = t - 1.5d0 * moisture / (1.0d0 + moisture) + 0.3d0 * runoff
  end subroutine land_step

  real(8) function land_total()
    land_total = sum(moisture)
  end function land_total
end module land_surface

subroutine coupler_step(t, heating)
  use atmosphere
  use land_surface
  implicit none
  real(8), intent(inout) :: t(ncol)
  real(8), intent(in) :: heating
  real(8) :: precip(ncol)
  call atm_step(t, precip)
  call land_step(precip, t)
  t = t + heating * (1.0d0 - t / 320.0d0)
end subroutine coupler_step

subroutine head(x, y)
  use atmosphere
  use land_surface
  implicit none
  real(8), intent(in) :: x(3)
  real(8), intent(out) :: y(2)
  real(8) :: t(ncol)
  integer :: k
  !$openad INDEPENDENT(x)
  call atm_init(x(1))
  call land_init(0.2d0, x(2))
  do k = 1, ncol
    t(k) = 280.0d0 + 2.0d0 * sin(0.5d0 * k)
  end do
  do k = 1, 10
    call coupler_step(t, x(3))
  end do
  y(1) = sum(t) / ncol
  y(2) = land_total()
  !$openad DEPENDENT(y)
end subroutine head
