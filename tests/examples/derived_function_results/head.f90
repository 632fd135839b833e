! A river reach routed by a kinematic wave: the channel geometry and the
! reach state are derived types built and advanced by functions that
! return derived-type values (`result(g)` and the `type(reach) function`
! prefix form). A step returns a new reach from the old one
! (`r = route(r, dt)`), and the geometry is widened by assigning a
! function result to a component (`r%geo = make_geometry(...)`).
module reach_types
  implicit none
  integer, parameter :: nseg = 5
  type geometry
    double precision :: width
    double precision :: slope
    double precision :: bed(nseg)
  end type geometry
  type reach
    type(geometry) :: geo
    double precision :: q(nseg), h(nseg)
    integer :: n
  end type reach
end module reach_types

module reach_model
  use reach_types
  implicit none
contains
  function make_geometry(width, slope) result(g)
    double precision, intent(in) :: width, slope
    type(geometry) :: g
    integer :: i
    g%width = width
    g%slope = slope
    do i = 1, nseg
      g%bed(i) = -slope * (i - 1) * 100.0d0
    end do
  end function make_geometry

  double precision function depth(q, g)
    double precision, intent(in) :: q
    type(geometry), intent(in) :: g
    depth = (q / (g%width * sqrt(g%slope)))**0.6d0
  end function depth

  type(reach) function init_reach(q0, g)
    double precision, intent(in) :: q0
    type(geometry), intent(in) :: g
    integer :: i
    init_reach%n = nseg
    init_reach%geo = g
    do i = 1, nseg
      init_reach%q(i) = q0 * (1.0d0 + 0.1d0 * i)
      init_reach%h(i) = depth(init_reach%q(i), g)
    end do
  end function init_reach

  function route(r, dt, inflow) result(rnew)
    type(reach), intent(in) :: r
    double precision, intent(in) :: dt, inflow
    type(reach) :: rnew
    integer :: i
    double precision :: c
    rnew = r
    rnew%q(1) = inflow
    do i = 2, r%n
      c = dt * r%geo%width * r%h(i)
      rnew%q(i) = r%q(i) + c * (r%q(i - 1) - r%q(i)) / (1.0d0 + c)
    end do
    do i = 1, r%n
      rnew%h(i) = depth(rnew%q(i), rnew%geo) + 0.001d0 * r%geo%bed(i)
    end do
  end function route
end module reach_model

subroutine head(x, y)
  use reach_types
  use reach_model
  implicit none
  double precision :: x(4), y(3)
  type(geometry) :: geo
  type(reach) :: r
  integer :: step
  !$openad INDEPENDENT(x)
  geo = make_geometry(x(1), 0.01d0 * x(2))
  r = init_reach(x(3), geo)
  do step = 1, 6
    r = route(r, 0.2d0, x(3) + x(4) * step)
    if (step == 3) r%geo = make_geometry(r%geo%width * 1.1d0, r%geo%slope)
  end do
  y(1) = r%q(nseg)
  y(2) = sum(r%h) / nseg
  y(3) = r%geo%width * r%h(2)
  !$openad DEPENDENT(y)
end subroutine head
