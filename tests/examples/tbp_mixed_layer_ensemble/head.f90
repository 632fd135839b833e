! An ensemble of ocean mixed-layer columns as an object model: a `layer`
! type with fixed-size state and type-bound procedures, a `basin` type
! holding an array of layers and a coupling layer as components, with its
! own bindings that call the layers' bindings on array elements
! (`self%cols(k)%step(...)`) and on a component (`self%deep%relax(...)`);
! the top-level routine calls the basin's bindings in a time loop and a
! layer's function binding on an element of the component array.
module mixed_layers
  implicit none

  integer, parameter :: nz = 4

  type :: layer
    double precision :: t(nz)
    double precision :: mix
  contains
    procedure :: step
    procedure :: relax
    procedure :: sst
  end type layer

  type :: basin
    type(layer) :: cols(3)
    type(layer) :: deep
    double precision :: exchange
  contains
    procedure :: advance => basin_advance
    procedure :: mean_sst
  end type basin

contains

  subroutine step(self, heat, dt)
    class(layer), intent(inout) :: self
    double precision, intent(in) :: heat, dt
    double precision :: t_old(nz)
    integer :: k
    t_old = self%t
    self%t(1) = self%t(1) + dt * heat
    do k = 2, nz
      self%t(k) = t_old(k) + dt * self%mix * (t_old(k - 1) - t_old(k))
    end do
  end subroutine step

  subroutine relax(self, towards, rate)
    class(layer), intent(inout) :: self
    double precision, intent(in) :: towards(nz), rate
    self%t = self%t + rate * (towards - self%t)
  end subroutine relax

  double precision function sst(self)
    class(layer), intent(in) :: self
    sst = self%t(1)
  end function sst

  subroutine basin_advance(self, forcing, dt)
    class(basin), intent(inout) :: self
    double precision, intent(in) :: forcing(3), dt
    integer :: k
    do k = 1, 3
      call self%cols(k)%step(forcing(k) - 0.1d0 * self%cols(k)%sst(), dt)
      call self%cols(k)%relax(self%deep%t, self%exchange * dt)
    end do
    call self%deep%relax(self%cols(2)%t, 0.5d0 * self%exchange * dt)
  end subroutine basin_advance

  double precision function mean_sst(self)
    class(basin), intent(in) :: self
    integer :: k
    mean_sst = 0.0d0
    do k = 1, 3
      mean_sst = mean_sst + self%cols(k)%sst() / 3.0d0
    end do
  end function mean_sst
end module mixed_layers

subroutine head(x, y)
  use mixed_layers
  implicit none
  double precision :: x(4), y(3)
  type(basin) :: ocean
  double precision :: forcing(3)
  integer :: n, k
  !$openad INDEPENDENT(x)
  do k = 1, 3
    ocean%cols(k)%t = x(1) - 0.2d0 * k
    ocean%cols(k)%mix = 0.3d0 + 0.05d0 * k
  end do
  ocean%deep%t = x(2)
  ocean%deep%mix = 0.1d0
  ocean%exchange = 0.2d0 * x(3)
  do n = 1, 15
    forcing = x(4) * [1.0d0, 0.5d0, -0.3d0] * cos(0.3d0 * n)
    call ocean%advance(forcing, 0.1d0)
  end do
  y(1) = ocean%mean_sst()
  y(2) = ocean%cols(3)%sst() * ocean%deep%sst()
  y(3) = sum(ocean%deep%t**2)
  !$openad DEPENDENT(y)
end subroutine head
