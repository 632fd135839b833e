! A periodic 2-D tracer model with two time levels behind pointers that are
! swapped every step: advection by cshift in x and an upwind flux function
! returning an array in y, a scheme chosen by a character option in a
! select case, an optional limiter argument, an internal procedure reading
! its host's variables, a Newton iteration (do while) for a nonlinear decay
! term, associate names for the current level, maxloc picking the
! observation column and a small matmul mixing three tracers.
! Parameters: x(1) velocity, x(2) decay rate, x(3) initial amplitude.
module tracer_grid
  implicit none
  integer, parameter :: nx = 16, ny = 12, ntr = 3, nsteps = 10
  double precision, parameter :: dt = 0.05d0
  double precision, target :: level_a(nx, ny, ntr), level_b(nx, ny, ntr)
  double precision :: mixing(ntr, ntr)
end module tracer_grid

module tracer_ops
  use tracer_grid
  implicit none
contains
  function upwind_y(c, v) result(f)
    double precision, intent(in) :: c(:), v
    double precision :: f(size(c))
    integer :: j, n
    n = size(c)
    f(1) = 0.0d0
    do j = 2, n
      if (v > 0.0d0) then
        f(j) = v * c(j - 1)
      else
        f(j) = v * c(j)
      end if
    end do
  end function upwind_y

  subroutine decay(c, k, tol)
    double precision, intent(inout) :: c
    double precision, intent(in) :: k
    double precision, intent(in), optional :: tol
    double precision :: z, r, eps
    integer :: it
    ! implicit step of dc/dt = -k c^2: solve z + dt k z^2 = c by Newton
    eps = 1.0d-13
    if (present(tol)) eps = tol
    z = c
    r = z + dt * k * z * z - c
    it = 0
    do while (abs(r) > eps * (1.0d0 + abs(c)) .and. it < 20)
      z = z - r / (1.0d0 + 2.0d0 * dt * k * z)
      r = z + dt * k * z * z - c
      it = it + 1
    end do
    c = z
  end subroutine decay

  subroutine step(now, new, u, k, scheme, limit)
    double precision, intent(in) :: now(:, :, :)
    double precision, intent(out) :: new(:, :, :)
    double precision, intent(in) :: u, k
    character(len=*), intent(in) :: scheme
    double precision, intent(in), optional :: limit
    double precision :: fy(ny)
    integer :: i, j, m
    do m = 1, ntr
      select case (scheme)
      case ('upwind')
        new(:, :, m) = now(:, :, m) - dt * u * (now(:, :, m) - cshift(now(:, :, m), -1, 1))
      case ('central')
        new(:, :, m) = now(:, :, m) - 0.5d0 * dt * u * (cshift(now(:, :, m), 1, 1) - cshift(now(:, :, m), -1, 1))
      case default
        new(:, :, m) = now(:, :, m)
      end select
      do i = 1, nx
        fy = upwind_y(now(i, :, m), 0.3d0 * u)
        do j = 1, ny - 1
          new(i, j, m) = new(i, j, m) - dt * (fy(j + 1) - fy(j))
        end do
      end do
    end do
    call relax()
  contains
    subroutine relax()
      integer :: ii, jj
      do jj = 1, ny
        do ii = 1, nx
          new(ii, jj, :) = matmul(mixing, new(ii, jj, :))
          if (present(limit)) then
            call decay(new(ii, jj, 1), k, limit)
          else
            call decay(new(ii, jj, 1), k)
          end if
        end do
      end do
    end subroutine relax
  end subroutine step
end module tracer_ops

subroutine head(x, y)
  use tracer_grid
  use tracer_ops
  implicit none
  double precision :: x(3), y(2)
  double precision, pointer :: now(:, :, :), new(:, :, :), swap(:, :, :)
  integer :: i, j, t, obs(1)
  !$openad INDEPENDENT(x)
  mixing = reshape([0.90d0, 0.05d0, 0.05d0, 0.05d0, 0.90d0, 0.05d0, 0.0d0, 0.1d0, 0.9d0], [ntr, ntr])
  do j = 1, ny
    do i = 1, nx
      level_a(i, j, :) = x(3) * [1.0d0, 0.5d0, 0.25d0] * (1.0d0 + 0.5d0 * sin(0.39d0 * i) * cos(0.52d0 * j))
    end do
  end do
  now => level_a
  new => level_b
  do t = 1, nsteps
    if (mod(t, 2) == 0) then
      call step(now, new, x(1), x(2), 'upwind')
    else
      call step(now, new, x(1), x(2), 'central', 1.0d-12)
    end if
    swap => now
    now => new
    new => swap
  end do
  associate (c => now(:, :, 1))
    obs = maxloc(sum(c, dim=2))
    y(1) = sum(c(obs(1), :)) / ny
  end associate
  y(2) = sum(now(:, :, 2)**2 + now(:, :, 3)) / (nx * ny)
  !$openad DEPENDENT(y)
end subroutine head
