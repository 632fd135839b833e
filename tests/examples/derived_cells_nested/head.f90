! A 1-D finite-volume diffusion model over an array of cell types, each
! cell holding a nested geometry type; the cells are a derived-type dummy
! of the solver routines, stepped in a time loop.
module mesh_types
  implicit none
  type geometry
    double precision :: dx
    double precision :: area
  end type geometry
  type cell
    double precision :: q(2)
    double precision :: k
    type(geometry) :: geo
    integer :: id
  end type cell
end module mesh_types

module solver
  use mesh_types
  implicit none
contains
  subroutine set_geometry(cells, n)
    integer, intent(in) :: n
    type(cell), intent(inout) :: cells(n)
    integer :: i
    do i = 1, n
      cells(i)%id = i
      cells(i)%geo%dx = 0.1d0 + 0.01d0 * i
    end do
    cells%geo%area = 2.0d0 * cells%geo%dx
  end subroutine set_geometry

  subroutine diffuse(cells, n, dt)
    integer, intent(in) :: n
    type(cell), intent(inout) :: cells(n)
    double precision, intent(in) :: dt
    double precision :: flux(n + 1)
    integer :: i
    flux(1) = 0.0d0
    flux(n + 1) = 0.0d0
    do i = 2, n
      flux(i) = 0.5d0 * (cells(i)%k + cells(i - 1)%k) &
           * (cells(i)%q(1) - cells(i - 1)%q(1)) / cells(i)%geo%dx
    end do
    do i = 1, n
      cells(i)%q(1) = cells(i)%q(1) + dt * (flux(i + 1) - flux(i)) / cells(i)%geo%area
      cells(i)%q(2) = cells(i)%q(2) + dt * cells(i)%q(1)**2
    end do
  end subroutine diffuse
end module solver

subroutine head(x, y)
  use solver
  implicit none
  double precision :: x(8), y(3)
  type(cell) :: cells(4)
  integer :: t
  !$openad INDEPENDENT(x)
  call set_geometry(cells, 4)
  cells%k = x(1:4)
  cells(:)%q(1) = x(5:8)
  cells(:)%q(2) = 0.0d0
  do t = 1, 15
    call diffuse(cells, 4, 0.002d0)
  end do
  y(1) = sum(cells%q(1))
  y(2) = sum(cells%q(2))
  y(3) = cells(2)%q(1) * cells(3)%k
  !$openad DEPENDENT(y)
end subroutine head
