! A chain of mixing cells on a conveyor: each cell holds a tracer
! concentration profile and its geometry (a nested type). Every step the
! cells move down the chain by whole-element copies (`cells(i) =
! cells(i - 1)` in a loop, or a section copy through a second array,
! `old = cells` then `cells(2:n) = old(1:n - 1)`), a fresh cell enters with the geometry of the inflow
! (`cells(1)%geo = inflow%geo`, a sub-object), the model's grid is
! replaced as a whole component (`s%grid = g`), and tracer is exchanged
! with the neighbour cells.
module conveyor
  implicit none
  integer, parameter :: ncell = 4, nz = 3
  type geom
    double precision :: area, depth
  end type geom
  type cell
    type(geom) :: geo
    double precision :: c(nz)
    integer :: age
  end type cell
  type grid
    double precision :: dz(nz)
    double precision :: scale
  end type grid
  type model
    type(grid) :: grid
    double precision :: rate
  end type model
contains
  ! Cells move one place down the chain; a fresh cell enters.
  subroutine shift(cells, inflow, step, growth)
    type(cell), intent(inout) :: cells(ncell)
    type(cell), intent(in) :: inflow
    integer, intent(in) :: step
    double precision, intent(in) :: growth
    type(cell) :: old(ncell)
    integer :: i
    if (mod(step, 2) == 0) then
      do i = ncell, 2, -1
        cells(i) = cells(i - 1)
      end do
    else
      old = cells
      cells(2:ncell) = old(1:ncell - 1)
    end if
    cells(1)%geo = inflow%geo
    cells(1)%c = inflow%c * (1.0d0 + growth * step)
  end subroutine shift

  subroutine exchange(cells, m)
    type(cell), intent(inout) :: cells(ncell)
    type(model), intent(in) :: m
    integer :: i, k
    double precision :: flux
    do i = 2, ncell
      do k = 1, nz
        flux = m%rate * m%grid%dz(k) * (cells(i - 1)%c(k) - cells(i)%c(k)) / cells(i)%geo%area
        cells(i)%c(k) = cells(i)%c(k) + flux * m%grid%scale
        cells(i - 1)%c(k) = cells(i - 1)%c(k) - flux * cells(i)%geo%depth
      end do
    end do
  end subroutine exchange
end module conveyor

subroutine head(x, y)
  use conveyor
  implicit none
  double precision :: x(5), y(3)
  type(cell) :: cells(ncell), inflow
  type(model) :: s
  type(grid) :: g
  integer :: i, step
  !$openad INDEPENDENT(x)
  inflow%geo%area = 1.0d0 + x(1)
  inflow%geo%depth = 0.5d0 * x(2)
  inflow%c = (/ x(3), 0.5d0 * x(3), 0.25d0 * x(3) /)
  inflow%age = 0
  s%rate = x(4)
  s%grid%dz = (/ 1.0d0, 2.0d0, 3.0d0 /)
  s%grid%scale = 1.0d0
  do i = 1, ncell
    cells(i) = inflow
    cells(i)%c = cells(i)%c * (1.0d0 + 0.1d0 * i)
  end do
  do step = 1, 5
    call shift(cells, inflow, step, x(5))
    g%dz = s%grid%dz * (1.0d0 + 0.05d0 * x(5))
    g%scale = s%grid%scale * 0.9d0 + 0.1d0 * x(2)
    s%grid = g
    call exchange(cells, s)
  end do
  y(1) = sum(cells(ncell)%c)
  y(2) = cells(2)%c(1) * cells(3)%geo%area
  y(3) = s%grid%scale * cells(ncell)%c(nz)
  !$openad DEPENDENT(y)
end subroutine head
