! An ocean column component whose state is a private module variable of
! derived type with allocatable temperature and salinity profiles, a
! level count and a mixing coefficient; public routines heat the surface
! and mix (stronger where the column is statically unstable, from a pure
! equation of state) and report the heat content. A day routine outside
! the module steps it six times; the joint adjoint re-runs each day from
! a checkpoint holding the private state, stored by the module's own
! routines (allocatable components with their size and status).
module ocean_state
  implicit none
  type :: ocean_t
    integer :: nz = 0
    real(8), allocatable :: temp(:)
    real(8), allocatable :: salt(:)
    real(8) :: kappa
  end type
  type(ocean_t), private :: ocn
contains
  subroutine ocean_init(t0, s0, kappa)
    real(8), intent(in) :: t0, s0, kappa
    integer :: k
    ocn%nz = 8
    if (.not. allocated(ocn%temp)) allocate(ocn%temp(ocn%nz), ocn%salt(ocn%nz))
    do k = 1, ocn%nz
      ocn%temp(k) = t0 - 0.5d0 * k
      ocn%salt(k) = s0 + 0.01d0 * k
    end do
    ocn%kappa = kappa
  end subroutine
  pure real(8) function density(t, s)
    real(8), intent(in) :: t, s
    density = 1000d0 - 0.2d0 * (t - 4d0) + 0.78d0 * (s - 35d0) - 0.005d0 * (t - 4d0)**2
  end function
  subroutine surface_heat(heat, sst_sum)
    real(8), intent(in) :: heat
    real(8), intent(inout) :: sst_sum
    ocn%temp(1) = ocn%temp(1) + heat * 0.1d0
    call mix_column(0.2d0)
    sst_sum = sst_sum + ocn%temp(1)
  end subroutine
  real(8) function heat_content()
    heat_content = sum(ocn%temp * ocn%salt)
  end function
  subroutine mix_column(dt)
    real(8), intent(in) :: dt
    real(8) :: flux(ocn%nz + 1)
    integer :: k
    flux = 0
    do k = 2, ocn%nz
      flux(k) = ocn%kappa * (ocn%temp(k-1) - ocn%temp(k))
      if (density(ocn%temp(k-1), ocn%salt(k-1)) > density(ocn%temp(k), ocn%salt(k))) then
        flux(k) = flux(k) * 10d0
      end if
    end do
    do k = 1, ocn%nz
      ocn%temp(k) = ocn%temp(k) + dt * (flux(k) - flux(k+1))
    end do
  end subroutine
end module

subroutine ocean_day(heat, sst_sum)
  use ocean_state
  implicit none
  real(8), intent(in) :: heat
  real(8), intent(inout) :: sst_sum
  integer :: h
  do h = 1, 6
    call surface_heat(heat, sst_sum)
  end do
end subroutine

subroutine head(x, y)
  use ocean_state
  implicit none
  real(8), intent(in) :: x(3)
  real(8), intent(out) :: y(2)
  integer :: d
  !$openad INDEPENDENT(x)
  call ocean_init(x(1), 35d0, x(2))
  y(1) = 0
  do d = 1, 5
    call ocean_day(x(3), y(1))
  end do
  y(2) = heat_content()
  !$openad DEPENDENT(y)
end subroutine
