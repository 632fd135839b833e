! Column physics on a (level, column) grid in array syntax: column and
! level statistics with dim= and mask=, profiles spread over columns,
! a mixing matrix applied with matmul inside a larger expression,
! periodic and end-off shifts (negative shifts, dim=), and pack of the
! values selected by a mask that depends on the active state; cshift on
! rows long and too short for its shifts, and by a shift known at run time.
module column_physics
  implicit none
  integer, parameter :: nlev = 4, ncol = 5
contains
  subroutine mix(t, w, dt)
    double precision, intent(inout) :: t(nlev, ncol)
    double precision, intent(in) :: w(nlev, nlev), dt
    double precision :: colmean(ncol), levmean(nlev)
    colmean = sum(t, dim=1) / nlev
    levmean = sum(t, 2) / ncol
    ! Relaxation to the column mean, vertical mixing, horizontal exchange.
    t = t + dt*(spread(colmean, 1, nlev) - t) + dt*matmul(w, t) &
        + 0.5d0*dt*(cshift(t, -1, dim=2) + cshift(t, 1, 2) - 2*t)
    t = t + 0.1d0*dt*spread(levmean, dim=2, ncopies=ncol)
    ! Settling: every level takes some of the level above (none at the top).
    t = t + dt*(eoshift(t, -1, dim=1) - 0.5d0*t)
  end subroutine mix

  ! Periodic exchange on a row of any length (peeled when it is long
  ! enough for the shifts, by mod otherwise) and by a shift known at run
  ! time.
  subroutine wrap(v, k)
    double precision, intent(inout) :: v(:)
    integer, intent(in) :: k
    v = v + 0.1d0*(cshift(v, -1) + cshift(v, 2)) - 0.05d0*cshift(v, k)
  end subroutine wrap
end module column_physics

subroutine head(x, y)
  use column_physics
  implicit none
  double precision :: x(20), y(6)
  double precision :: t(nlev, ncol), w(nlev, nlev), hot(nlev*ncol)
  double precision :: colmax(ncol)
  integer :: step, k, nhot
  !$openad INDEPENDENT(x)
  t = reshape(x, (/ nlev, ncol /))
  hot = 0
  ! Powers of two: every product in matmul is exact, so the canonical
  ! source and gfortran's matmul (which may use fused multiply-adds) agree
  ! to the bit (fortran2xaif's cli test compares them).
  do k = 1, nlev
    w(k, :) = 0.5d0**(k + 3)
    w(k, k) = -0.125d0
  end do
  do step = 1, 3
    call mix(t, w, 0.2d0)
    call wrap(t(1, :), step - 2)
    call wrap(t(2:3, 2), -7)
  end do
  colmax = maxval(t, dim=1, mask=t > 0.6d0)
  y(1) = sum(colmax, mask=colmax > -1d0)
  y(2) = maxval(t, mask=t < 1.0d0)
  y(3) = minval(t(2:nlev, :), mask=t(1:nlev-1, :) > 0.5d0)
  y(4) = product(sum(t, dim=2) / ncol)
  nhot = count(t > 0.7d0)
  hot(1:nhot) = pack(t, t > 0.7d0)
  y(5) = sum(hot(1:nhot)**2)
  y(6) = sum(pack(t, t < 0.9d0, hot)) + dot_product(sum(t, 2), matmul(w, t(:, 1)))
  !$openad DEPENDENT(y)
end subroutine head
