! Reaction-diffusion steps whose routines keep work arrays in allocatable
! locals: one of fixed size released explicitly, one left allocated at
! return, one whose size alternates between steps, and one allocated in
! head (a time-level array) and released at the end. Split mode keeps the
! storage of released active locals for the next sweep: a slot reused
! across calls and evaluations must hold the right bounds and a zero
! adjoint each time it is taken.
module kwa_model
  implicit none
  integer, parameter :: n = 16
contains
  subroutine diffuse(u, kappa)
    double precision, intent(inout) :: u(n)
    double precision, intent(in) :: kappa
    double precision, allocatable :: flux(:)
    integer :: i
    allocate(flux(0:n))
    flux(0) = 0.0d0
    flux(n) = 0.0d0
    do i = 1, n - 1
      flux(i) = -kappa * (u(i + 1) - u(i)) * (1.0d0 + 0.1d0 * u(i)**2)
    end do
    do i = 1, n
      u(i) = u(i) - 0.2d0 * (flux(i) - flux(i - 1))
    end do
    deallocate(flux)
  end subroutine diffuse

  ! The rate array is never deallocated: Fortran releases it at return.
  subroutine react(u, rate0)
    double precision, intent(inout) :: u(n)
    double precision, intent(in) :: rate0
    double precision, allocatable :: rate(:)
    integer :: i
    allocate(rate(n))
    do i = 1, n
      rate(i) = rate0 * exp(-0.5d0 * u(i))
    end do
    do i = 1, n
      u(i) = u(i) + 0.1d0 * rate(i) * u(i) * (1.0d0 - u(i))
    end do
  end subroutine react

  ! A smoothing window whose width alternates with the step.
  subroutine smooth(u, t)
    double precision, intent(inout) :: u(n)
    integer, intent(in) :: t
    double precision, allocatable :: w(:)
    integer :: i, m
    m = 1 + mod(t, 2)
    allocate(w(-m:m))
    do i = -m, m
      w(i) = u(n / 2 + i)
    end do
    u(n / 2) = 0.5d0 * u(n / 2) + 0.5d0 * sum(w) / (2 * m + 1)
    deallocate(w)
  end subroutine smooth
end module kwa_model

subroutine head(x, y)
  use kwa_model
  implicit none
  double precision :: x(3), y(2)
  double precision, allocatable :: levels(:, :)
  integer :: i, t
  integer, parameter :: nt = 5
  !$openad INDEPENDENT(x)
  allocate(levels(n, 0:nt))
  do i = 1, n
    levels(i, 0) = 0.3d0 + x(1) * sin(0.4d0 * i)
  end do
  do t = 1, nt
    levels(:, t) = levels(:, t - 1)
    call diffuse(levels(:, t), x(2))
    call react(levels(:, t), x(3))
    call smooth(levels(:, t), t)
  end do
  y(1) = sum(levels(:, nt)**2)
  y(2) = levels(3, nt) * levels(n - 2, 2)
  deallocate(levels)
  !$openad DEPENDENT(y)
end subroutine head
