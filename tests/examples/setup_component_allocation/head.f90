! A flow-line ice-sheet model whose state is a derived type with
! allocatable components, allocated by an init routine through its
! intent(out) dummy (no guard: it is called once), with a generic clip
! interface (scalar and array specifics), an optional argument, `where`
! clipping and array-section fluxes in a call tree inside a time loop.
! Joint mode re-runs init in the reverse sweep with the components still
! allocated.
module ice_params
  implicit none
  integer, parameter :: nx = 24
  real(8), parameter :: rho = 910d0, grav = 9.81d0, glen_a = 1.0d-4
end module ice_params

module ice_state
  use ice_params
  implicit none
  type sheet
    real(8), allocatable :: thick(:), bed(:), flux(:)
    real(8) :: smb_scale
  end type sheet
  interface clip
    module procedure clip_scalar, clip_array
  end interface clip
contains
  subroutine clip_scalar(a, lo)
    real(8), intent(inout) :: a
    real(8), intent(in) :: lo
    a = max(a, lo)
  end subroutine clip_scalar
  subroutine clip_array(a, lo)
    real(8), intent(inout) :: a(:)
    real(8), intent(in) :: lo
    where (a < lo) a = lo
  end subroutine clip_array
  subroutine init(s, x)
    type(sheet), intent(out) :: s
    real(8), intent(in) :: x(:)
    integer :: i
    allocate(s%thick(nx), s%bed(nx), s%flux(nx + 1))
    do i = 1, nx
      s%thick(i) = x(1) * (1.0d0 - ((i - 0.5d0 * nx) / nx)**2) + 0.1d0
      s%bed(i) = x(2) * sin(0.3d0 * i)
    end do
    s%smb_scale = x(3)
    s%flux = 0
  end subroutine init
end module ice_state

module ice_dynamics
  use ice_state
  implicit none
contains
  subroutine diffusivity(h, b, dx, d, scale)
    real(8), intent(in) :: h(:), b(:), dx
    real(8), intent(out) :: d(:)
    real(8), intent(in), optional :: scale
    real(8) :: slope, hm, fac
    integer :: i
    fac = 1.0d0
    if (present(scale)) fac = scale
    do i = 2, size(h)
      slope = ((h(i) + b(i)) - (h(i-1) + b(i-1))) / dx
      hm = 0.5d0 * (h(i) + h(i-1))
      d(i) = fac * glen_a * (rho * grav)**1 * hm**5 * slope**2 * 1.0d-6
    end do
    d(1) = d(2)
  end subroutine diffusivity
  subroutine fluxes(s, dx)
    type(sheet), intent(inout) :: s
    real(8), intent(in) :: dx
    real(8) :: d(nx)
    call diffusivity(s%thick, s%bed, dx, d, scale=0.5d0)
    s%flux(2:nx) = -d(2:nx) * ((s%thick(2:nx) + s%bed(2:nx)) - (s%thick(1:nx-1) + s%bed(1:nx-1))) / dx
    s%flux(1) = 0
    s%flux(nx + 1) = 0
  end subroutine fluxes
  subroutine step(s, dt, dx, t)
    type(sheet), intent(inout) :: s
    real(8), intent(in) :: dt, dx
    integer, intent(in) :: t
    real(8) :: smb(nx)
    integer :: i
    call fluxes(s, dx)
    do i = 1, nx
      smb(i) = s%smb_scale * (0.5d0 - 0.04d0 * i) * (1.0d0 + 0.1d0 * mod(t, 3))
    end do
    s%thick = s%thick - dt / dx * (s%flux(2:nx+1) - s%flux(1:nx)) + dt * smb
    call clip(s%thick, 0.05d0)
    call clip(s%thick(1), 0.2d0)
  end subroutine step
end module ice_dynamics

subroutine head(x, y)
  use ice_dynamics
  implicit none
  real(8), intent(in) :: x(3)
  real(8), intent(out) :: y(2)
  type(sheet) :: s
  integer :: t
  !$openad INDEPENDENT(x)
  call init(s, x)
  do t = 1, 30
    call step(s, 0.02d0, 1.0d0, t)
  end do
  y(1) = sum(s%thick) / nx
  y(2) = maxval(s%thick)
  deallocate(s%thick, s%bed, s%flux)
  !$openad DEPENDENT(y)
end subroutine head
