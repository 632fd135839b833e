! A sea-ice column object as modern models write one: the state lives in
! a derived type with allocatable arrays and parameters, its procedures
! are type-bound (`init`, `step`, a function binding `flux`, a generic
! `forcing` over a scalar and a profile specific, `nudge` receiving the
! column as its second dummy by `pass(self)`, a `nopass` function), the
! column is a `class(column)` dummy everywhere, and the top-level
! routine drives it in a time loop, also handing it to a diagnostics
! routine that is not bound to the type.
module ice_column
  implicit none
  private
  public :: column

  type :: column
    integer :: nz
    double precision, allocatable :: temp(:), cond(:)
    double precision :: kappa, dz, surface
  contains
    procedure :: init => column_init
    procedure :: step => column_step
    procedure :: flux => column_flux
    procedure :: force_scalar
    procedure :: force_profile
    generic :: forcing => force_scalar, force_profile
    procedure, pass(self) :: nudge
    procedure, nopass :: conductivity
  end type column

contains

  subroutine column_init(self, nz, t0, kappa)
    class(column), intent(inout) :: self
    integer, intent(in) :: nz
    double precision, intent(in) :: t0, kappa
    integer :: k
    self%nz = nz
    allocate(self%temp(nz), self%cond(nz))
    self%dz = 1.0d0 / nz
    self%kappa = kappa
    do k = 1, nz
      self%temp(k) = t0 * (1.0d0 - 0.5d0 * (k - 1) * self%dz)
    end do
    self%surface = self%temp(1)
  end subroutine column_init

  ! Heat flux through interface k (a function binding).
  double precision function column_flux(self, k)
    class(column), intent(in) :: self
    integer, intent(in) :: k
    column_flux = 0.5d0 * (self%cond(k) + self%cond(k + 1)) &
      * (self%temp(k + 1) - self%temp(k)) / self%dz
  end function column_flux

  subroutine column_step(self, dt)
    class(column), intent(inout) :: self
    double precision, intent(in) :: dt
    double precision :: f(self%nz - 1)
    integer :: k
    do k = 1, self%nz
      self%cond(k) = self%conductivity(self%kappa, self%temp(k))
    end do
    do k = 1, self%nz - 1
      f(k) = self%flux(k)
    end do
    self%temp(1) = self%temp(1) + dt * f(1) / self%dz
    do k = 2, self%nz - 1
      self%temp(k) = self%temp(k) + dt * (f(k) - f(k - 1)) / self%dz
    end do
    self%surface = self%temp(1)
  end subroutine column_step

  subroutine force_scalar(self, q)
    class(column), intent(inout) :: self
    double precision, intent(in) :: q
    self%temp(self%nz) = self%temp(self%nz) + q
  end subroutine force_scalar

  subroutine force_profile(self, q)
    class(column), intent(inout) :: self
    double precision, intent(in) :: q(:)
    self%temp = self%temp + q * self%dz
  end subroutine force_profile
  ! The object is the second dummy (pass(self)).
  subroutine nudge(target, self, rate)
    double precision, intent(in) :: target, rate
    class(column), intent(inout) :: self
    self%surface = self%surface + rate * (target - self%surface)
    self%temp(1) = self%surface
  end subroutine nudge

  ! No object (nopass): conductivity of ice at temperature t.
  pure double precision function conductivity(kappa, t)
    double precision, intent(in) :: kappa, t
    conductivity = kappa * (1.0d0 + 0.1d0 * t**2)
  end function conductivity
end module ice_column

module ice_diagnostics
  use ice_column, only: column
  implicit none
contains
  ! Not a binding: takes the column as a plain dummy.
  subroutine heat_content(col, h)
    type(column), intent(in) :: col
    double precision, intent(out) :: h
    h = col%dz * sum(col%temp**2)
  end subroutine heat_content
end module ice_diagnostics

subroutine head(x, y)
  use ice_column, only: column
  use ice_diagnostics, only: heat_content
  implicit none
  double precision :: x(3), y(3)
  type(column) :: ice
  double precision :: heating(6)
  integer :: n
  !$openad INDEPENDENT(x)
  call ice%init(6, x(1), 0.2d0 + 0.1d0 * x(2))
  heating = 0.01d0 * x(3)
  do n = 1, 20
    call ice%step(0.002d0)
    call ice%forcing(0.001d0 * x(3) * ice%surface)
    if (mod(n, 5) == 0) call ice%forcing(heating)
    if (mod(n, 4) == 0) call ice%nudge(0.8d0 * x(1), rate=0.3d0)
  end do
  y(1) = ice%surface
  y(2) = ice%flux(3) + ice%temp(ice%nz)
  call heat_content(ice, y(3))
  deallocate(ice%temp, ice%cond)
  !$openad DEPENDENT(y)
end subroutine head
