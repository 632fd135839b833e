! A tracer on a 2-D channel grid (columns j = 1..ny of nx cells), stepped
! in time: diffusion by a 5-point stencil routine, upwind transport along
! each column by a flux routine taking the column as a section, a
! Gauss-Seidel relaxation over one column passed as its first element
! (sequence association), a source read from a derived-type component, and
! column weights in an allocatable work array the callee allocates. The
! field and the diffusivities are `save`d (kept off the stack).
module channel
  implicit none
  integer, parameter :: nx = 9, ny = 5
  type forcing
    double precision :: src(nx)
    double precision :: rate
  end type forcing
contains
  subroutine stencil(c, kap, l)
    double precision, intent(in) :: c(nx, ny), kap(nx, ny)
    double precision, intent(out) :: l(nx, ny)
    integer :: i, j
    l = 0.0d0
    do j = 2, ny - 1
      do i = 2, nx - 1
        l(i, j) = kap(i, j) * (c(i - 1, j) + c(i + 1, j) + c(i, j - 1) &
             + c(i, j + 1) - 4.0d0 * c(i, j))
      end do
    end do
  end subroutine stencil

  subroutine column_flux(col, vel, f)
    double precision, intent(in) :: col(:)
    double precision, intent(in) :: vel
    double precision, intent(out) :: f(:)
    integer :: i
    f(1) = 0.0d0
    do i = 2, size(col)
      f(i) = vel * col(i - 1) - 0.05d0 * (col(i) - col(i - 1))**2
    end do
  end subroutine column_flux

  subroutine relax(seg, m, w)
    integer, intent(in) :: m
    double precision, intent(inout) :: seg(m)
    double precision, intent(in) :: w
    integer :: i
    do i = 2, m - 1
      seg(i) = seg(i) + w * (seg(i - 1) - 2.0d0 * seg(i) + seg(i + 1))
    end do
  end subroutine relax

  subroutine add_source(c, s, rate)
    double precision, intent(inout) :: c(nx)
    double precision, intent(in) :: s(nx)
    double precision, intent(in) :: rate
    c = c + rate * s * (1.0d0 - 0.1d0 * c)
  end subroutine add_source

  subroutine make_weights(w, c)
    double precision, allocatable, intent(inout) :: w(:)
    double precision, intent(in) :: c(nx, ny)
    integer :: j
    if (.not. allocated(w)) allocate(w(ny))
    do j = 1, ny
      w(j) = 1.0d0 / (1.0d0 + 0.01d0 * sum(c(:, j)**2))
    end do
  end subroutine make_weights

  subroutine step(c, frc, vel, dt)
    double precision, intent(inout) :: c(nx, ny)
    type(forcing), intent(in) :: frc
    double precision, intent(in) :: vel, dt
    double precision, save :: kap(nx, ny)
    double precision :: l(nx, ny), f(nx)
    double precision, allocatable :: w(:)
    integer :: j
    kap = 0.2d0 * (1.0d0 + 0.5d0 * c**2)
    call stencil(c, kap, l)
    c = c + dt * l
    do j = 1, ny
      call column_flux(c(:, j), vel, f)
      c(2:nx, j) = c(2:nx, j) - dt * (f(2:nx) - f(1:nx - 1))
    end do
    call relax(c(1, 2), nx, 0.3d0)
    call add_source(c(:, 1), frc%src, frc%rate * dt)
    call make_weights(w, c)
    do j = 1, ny
      c(:, j) = c(:, j) * w(j)**0.1d0
    end do
    deallocate(w)
  end subroutine step
end module channel

subroutine head(x, y)
  use channel
  implicit none
  double precision, intent(in) :: x(4)
  double precision, intent(out) :: y(3)
  double precision, save :: c(nx, ny)
  type(forcing) :: frc
  integer :: i, j, t
  !$openad INDEPENDENT(x)
  do j = 1, ny
    do i = 1, nx
      c(i, j) = x(1) * exp(-0.1d0 * ((i - 4)**2 + (j - 3)**2))
    end do
  end do
  do i = 1, nx
    frc%src(i) = x(3) * sin(0.4d0 * i)
  end do
  frc%rate = 0.5d0
  do t = 1, 12
    call step(c, frc, x(4), 0.05d0 * x(2))
  end do
  y(1) = sum(c**2)
  y(2) = c(5, 3)
  y(3) = maxval(c(:, 1)) + c(nx, ny)
  !$openad DEPENDENT(y)
end subroutine head
