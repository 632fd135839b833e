! A column of ocean layers relaxed toward the surface in a time loop,
! its state built and rebuilt with structure constructors: an element of
! an array of layers (`layers(k) = layer_t(...)`), a nested constructor
! with an array component (`col = column_t(h, 0d0, layer_t(...))`), a
! keyword constructor reading the value it replaces (Fortran evaluates
! the constructor first), a component left to its default value, and a
! constructor passed as an actual argument; whole arrays of layers from
! array constructors of structure constructors (one reading the array).
module ocean_types
  implicit none
  integer, parameter :: nz = 5
  type layer_t
    real(8) :: t, s
    integer :: id
  end type layer_t
  type column_t
    real(8) :: h(nz)
    real(8) :: flux
    type(layer_t) :: top
    real(8) :: albedo = 0.06d0
  end type column_t
end module ocean_types

module ocean_model
  use ocean_types
  implicit none
contains
  real(8) function density(l)
    type(layer_t), intent(in) :: l
    density = 1000.0d0 * (1.0d0 - 2.0d-4 * (l%t - 10.0d0) + 7.6d-4 * (l%s - 35.0d0))
  end function density

  subroutine mix(layers, col, dt)
    type(layer_t), intent(inout) :: layers(nz)
    type(column_t), intent(inout) :: col
    real(8), intent(in) :: dt
    integer :: k
    do k = nz, 2, -1
      layers(k) = layer_t(layers(k)%t + dt * (layers(k - 1)%t - layers(k)%t), &
                          layers(k)%s + 0.5d0 * dt * (layers(k - 1)%s - layers(k)%s), k)
    end do
    col%flux = (1.0d0 - col%albedo) * col%top%t - layers(1)%t
    layers(1) = layer_t(layers(1)%t + dt * col%flux, layers(1)%s, 1)
    ! The new top reads the old one: its salinity the old temperature.
    col%top = layer_t(id=col%top%id, s=col%top%s + 0.01d0 * (col%top%t - 10.0d0), &
                      t=0.9d0 * col%top%t + 0.1d0 * layers(1)%t)
  end subroutine mix
end module ocean_model

subroutine head(x, y)
  use ocean_types
  use ocean_model
  implicit none
  real(8) :: x(3), y(3)
  type(layer_t) :: layers(nz)
  type(column_t) :: col
  real(8) :: h(nz)
  integer :: k, step
  !$openad INDEPENDENT(x)
  layers = [layer_t(x(1), 35.0d0, 1), layer_t(0.9d0 * x(1), 35.0d0 + x(2), 2), &
            layer_t(0.8d0 * x(1), 35.0d0 + 2 * x(2), 3), layer_t(0.7d0, 36.0d0, 4), &
            layer_t(0.6d0 * x(1), 36.0d0 + x(2), 5)]
  ! The first two swapped: the items read the old layers.
  layers = [layer_t(layers(2)%t, layers(2)%s, 1), layer_t(layers(1)%t, layers(1)%s, 2), &
            layer_t(layers(3)%t, layers(1)%s, 3), layer_t(layers(4)%t, layers(4)%s, 4), &
            layer_t(layers(5)%t, layers(5)%s, 5)]
  do k = 1, nz
    layers(k) = layer_t(layers(k)%t * (1.0d0 - 0.1d0 * k), layers(k)%s, k)
    h(k) = 10.0d0 * k
  end do
  col = column_t(h * x(3), 0.0d0, layer_t(x(1) + 2.0d0, 34.0d0, 0))
  do step = 1, 20
    call mix(layers, col, 0.1d0)
  end do
  y(1) = layers(nz)%t
  y(2) = col%top%t * col%h(2) + col%flux
  y(3) = sum(layers%s) + density(layer_t(col%top%t, layers(2)%s, 0))
  !$openad DEPENDENT(y)
end subroutine head
