! A particle-in-cell-like tracer model: particle positions and weights in
! one derived type, the grid in another, cloud-in-cell deposition with integer cell indices from floor() and a
! scatter-add onto the grid, a function returning an allocatable array
! (the smoothed density) used in an expression, and periodic wrap-around
! with modulo. Parameters: x(1) velocity, x(2) initial spread, x(3) decay.
module pic_model
  implicit none
  integer, parameter :: ng = 16, np = 40
  type grid_type
    double precision :: rho(ng)
    double precision :: dx
  end type grid_type
  type particles
    double precision :: pos(np), w(np)
  end type particles
contains
  subroutine deposit(p, g)
    type(particles), intent(in) :: p
    type(grid_type), intent(inout) :: g
    integer :: k, i, ip
    double precision :: s, f
    g%rho = 0.0d0
    do k = 1, np
      s = p%pos(k) / g%dx
      i = modulo(floor(s), ng) + 1
      ip = modulo(i, ng) + 1
      f = s - floor(s)
      g%rho(i) = g%rho(i) + p%w(k) * (1.0d0 - f)
      g%rho(ip) = g%rho(ip) + p%w(k) * f
    end do
  end subroutine deposit

  function smoothed(rho) result(out)
    double precision, intent(in) :: rho(:)
    double precision, allocatable :: out(:)
    integer :: i, n
    n = size(rho)
    allocate(out(n))
    do i = 1, n
      out(i) = 0.5d0 * rho(i) + 0.25d0 * (rho(modulo(i - 2, n) + 1) + rho(modulo(i, n) + 1))
    end do
  end function smoothed
end module pic_model

subroutine head(x, y)
  use pic_model
  implicit none
  double precision :: x(3), y(2)
  type(grid_type) :: g
  type(particles) :: p
  double precision :: field(ng)
  integer :: k, t
  !$openad INDEPENDENT(x)
  g%dx = 1.0d0
  do k = 1, np
    p%pos(k) = 0.37d0 * k + x(2) * sin(0.3d0 * k)
    p%w(k) = 1.0d0
  end do
  field = 0.0d0
  do t = 1, 8
    call deposit(p, g)
    field = 0.8d0 * field + smoothed(g%rho)
    p%pos = p%pos + x(1) * 0.1d0 * (1.0d0 + 0.05d0 * field(1))
    p%w = p%w * exp(-0.01d0 * x(3))
  end do
  y(1) = sum(field * [(dble(k), k = 1, ng)])
  y(2) = sum(p%w)
  !$openad DEPENDENT(y)
end subroutine head
