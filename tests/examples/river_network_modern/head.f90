! A modern-Fortran river network model: kinds from iso_fortran_env and
! selected_real_kind, nested derived types (a network of reaches, each
! with an array of cells holding a state type), pure and elemental
! procedures (an elemental subroutine too), keyword and optional
! arguments, masked reductions (sum/maxval with mask=, any, count), a
! do concurrent update, a block construct with its own locals, modulo
! and nint in index arithmetic. The joint adjoint checkpoints the
! components of the cells through the reach, `r%cells%depth` as a section
! and `r%cells(k)%temp` element by element. Parameters: x(1) inflow, x(2) friction,
! x(3) lateral gain.
module river_kinds
  use, intrinsic :: iso_fortran_env, only: real64, int32
  implicit none
  integer, parameter :: dp = selected_real_kind(15, 307)
  integer(int32), parameter :: nreach = 3, ncell = 10, nsteps = 25
end module river_kinds

module river_types
  use river_kinds
  implicit none
  type cell_state
    real(dp) :: depth
    real(dp) :: flow
    real(dp) :: temp(2)
  end type cell_state
  type reach
    type(cell_state) :: cells(ncell)
    real(dp) :: slope
    integer :: downstream
  end type reach
end module river_types

module river_physics
  use river_kinds
  use river_types
  implicit none
contains
  pure function manning(depth, slope, friction) result(q)
    real(dp), intent(in) :: depth, slope, friction
    real(dp) :: q
    q = depth**(5.0_dp / 3.0_dp) * sqrt(slope) / friction
  end function manning

  elemental subroutine relax_depth(depth, target_depth, rate)
    real(real64), intent(inout) :: depth
    real(real64), intent(in) :: target_depth, rate
    depth = depth + rate * (target_depth - depth)
  end subroutine relax_depth

  subroutine route(r, inflow, friction, gain, dt)
    type(reach), intent(inout) :: r
    real(dp), intent(in) :: inflow, friction
    real(dp), intent(in), optional :: gain
    real(dp), intent(in) :: dt
    real(dp) :: q(0:ncell), lateral
    integer :: i
    lateral = 0.0_dp
    if (present(gain)) lateral = gain
    q(0) = inflow
    do concurrent (i = 1:ncell)
      r%cells(i)%flow = manning(r%cells(i)%depth, r%slope, friction)
    end do
    q(1:ncell) = r%cells(:)%flow
    do i = 1, ncell
      r%cells(i)%temp = r%cells(i)%temp + 0.1_dp * (r%cells(i)%depth - [0.5_dp, 1.5_dp] * r%cells(i)%temp)
    end do
    block
      real(dp) :: change(ncell)
      change = dt * (q(0:ncell - 1) - q(1:ncell) + lateral)
      r%cells(:)%depth = max(r%cells(:)%depth + change, 1.0e-3_dp)
    end block
  end subroutine route
end module river_physics

subroutine head(x, y)
  use river_kinds
  use river_types
  use river_physics
  implicit none
  real(dp) :: x(3), y(2)
  type(reach) :: net(nreach)
  real(dp) :: inflow(nreach), targets(ncell)
  integer :: k, t, i, j
  !$openad INDEPENDENT(x)
  do k = 1, nreach
    net(k)%slope = 1.0e-3_dp * k
    net(k)%downstream = modulo(k, nreach) + 1
    do i = 1, ncell
      net(k)%cells(i)%depth = 0.5_dp + 0.05_dp * nint(0.4_dp * i)
      net(k)%cells(i)%flow = 0.0_dp
      net(k)%cells(i)%temp = [0.3_dp, 0.1_dp * i]
    end do
  end do
  targets = [(0.6_dp + 0.01_dp * i, i = 1, ncell)]
  do t = 1, nsteps
    inflow = x(1)
    do k = 1, nreach
      if (k > 1) inflow(k) = net(k - 1)%cells(ncell)%flow
      if (mod(t, 2) == 0) then
        call route(net(k), inflow(k), x(2), dt=0.05_dp, gain=0.01_dp * x(3))
      else
        call route(net(k), friction=x(2), inflow=inflow(k), dt=0.05_dp)
      end if
      call relax_depth(net(k)%cells(:)%depth, targets, 0.02_dp)
    end do
  end do
  y(1) = sum(net(nreach)%cells(:)%flow, mask=net(nreach)%cells(:)%depth > 0.1_dp) &
       + sum(net(1)%cells(3)%temp)
  j = count(net(1)%cells(:)%depth > 0.7_dp)
  if (any(net(2)%cells(:)%depth > 0.0_dp)) then
    y(2) = maxval(net(2)%cells(:)%depth, mask=net(2)%cells(:)%flow > 0.0_dp) + 0.001_dp * j
  else
    y(2) = 0.0_dp
  end if
  !$openad DEPENDENT(y)
end subroutine head
