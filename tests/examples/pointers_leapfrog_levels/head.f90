! Nonlinear advection-diffusion stepped by leapfrog with a
! Robert-Asselin filter. Three time levels live in module storage and are
! never copied: the pointers prev/now/next rotate through them after each
! step. A moving probe (a pointer to a section of the current level whose
! position depends on the step) collects a diagnostic, and each step
! allocates its face fluxes through a local pointer.
module leapfrog
  implicit none
  integer, parameter :: n = 6
  double precision, parameter :: dt = 0.05d0, dx = 0.5d0, nu = 0.08d0
  double precision, target, save :: lev1(0:n+1), lev2(0:n+1), lev3(0:n+1)
  double precision, pointer :: prev(:) => null(), now(:) => null()
  double precision, pointer :: next(:) => null()
  double precision, pointer :: probe(:) => null()
  double precision :: probe_sum
contains
  subroutine start(u0)
    double precision, intent(in) :: u0(n)
    lev1 = 0.0d0
    lev2 = 0.0d0
    lev3 = 0.0d0
    lev1(1:n) = u0
    prev => lev1
    now => lev2
    next => lev3
    ! First step forward Euler into `now`.
    call tendency(prev, now, 1.0d0)
    probe_sum = 0.0d0
  end subroutine start

  subroutine periodic(u)
    double precision, pointer :: u(:)
    u(0) = u(n)
    u(n+1) = u(1)
  end subroutine periodic

  ! target(1:n) = prev(1:n) + factor * dt * F(now), with F evaluated at
  ! the level `src`; `prev` is the module pointer.
  subroutine tendency(src, target, factor)
    double precision, pointer :: src(:), target(:)
    double precision, intent(in) :: factor
    double precision, pointer :: flux(:)
    integer :: i
    call periodic(src)
    allocate(flux(0:n))
    do i = 0, n
      flux(i) = 0.25d0 * (src(i) + src(i+1))**2 - nu / dx * (src(i+1) - src(i))
    end do
    do i = 1, n
      target(i) = prev(i) - factor * dt / dx * (flux(i) - flux(i-1))
    end do
    deallocate(flux)
  end subroutine tendency

  subroutine rotate()
    double precision, pointer :: oldest(:)
    oldest => prev
    prev => now
    now => next
    next => oldest
  end subroutine rotate

  subroutine step(k, alpha)
    integer, intent(in) :: k
    double precision, intent(in) :: alpha
    integer :: first
    call tendency(now, next, 2.0d0)
    ! Robert-Asselin filter on the middle level.
    now(1:n) = now(1:n) + alpha * (prev(1:n) - 2.0d0 * now(1:n) + next(1:n))
    call rotate()
    ! The probe moves one cell every other step.
    first = 1 + mod(k / 2, n - 2)
    probe => now(first:first+2)
    probe_sum = probe_sum + probe(2) * probe(1) - 0.5d0 * probe(3)
  end subroutine step
end module leapfrog

subroutine head(x, y)
  use leapfrog
  implicit none
  double precision :: x(6), y(3)
  integer :: k
  !$openad INDEPENDENT(x)
  call start(x)
  do k = 1, 9
    call step(k, 0.1d0)
  end do
  y(1) = sum(now(1:n)**2)
  y(2) = probe_sum
  if (associated(probe)) y(3) = probe(1) + lev2(3) * prev(2)
  nullify(probe)
  !$openad DEPENDENT(y)
end subroutine head
