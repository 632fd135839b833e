! A small plume model: module state, routines that always assign their
! dummy argument (intent(out), and intent(inout) assigned before it is
! read) called on array elements and on a column of a 2-D array, in a
! time loop. Each call overwrites only the element or the column it is
! given: the other elements of the array keep their values and their
! derivatives (the analyses once took such a call for an overwrite of the
! whole array and dropped them).
module plume
  implicit none
  integer, parameter :: nz = 3
  double precision :: entrain
  double precision :: base_temp
contains
  ! Always assigns its dummy from the module state.
  subroutine surface_value(s)
    double precision, intent(out) :: s
    s = base_temp * entrain
  end subroutine surface_value

  ! intent(inout), but assigned before it is read.
  subroutine relax(s, r)
    double precision, intent(inout) :: s
    double precision, intent(in) :: r
    s = r * entrain
    s = s + 0.5d0 * sin(s)
  end subroutine relax

  ! A column: its first element through surface_value (an element passed
  ! on), the others decaying from it.
  subroutine column_profile(col, n, decay)
    integer, intent(in) :: n
    double precision, intent(out) :: col(n)
    double precision, intent(in) :: decay
    integer :: k
    call surface_value(col(1))
    do k = 2, n
      col(k) = col(k - 1) * decay
    end do
  end subroutine column_profile
end module plume

subroutine head(x, y)
  use plume
  implicit none
  double precision :: x(4), y(3)
  double precision :: t(nz, 2), q(2), w(2), r, acc
  integer :: step, k
  !$openad INDEPENDENT(x)
  entrain = x(1)
  base_temp = 1.5d0
  q(1) = x(2)
  q(2) = x(3)
  w(1) = x(4)
  w(2) = x(2) * x(3)
  do k = 1, nz
    t(k, 1) = x(2) * k
    t(k, 2) = x(4) + 0.1d0 * k
  end do
  r = 0.3d0
  acc = 0.0d0
  do step = 1, 3
    ! Updates of the elements and the column the calls below leave alone:
    ! only their derivatives carry x into acc and t(:, 2).
    q(2) = q(2) + 0.1d0 * sin(w(2))
    w(2) = w(2) * (1.0d0 + 0.1d0 * q(1))
    do k = 1, nz
      t(k, 2) = t(k, 2) + 0.2d0 * t(k, 1) * q(2)
    end do
    call surface_value(q(1))
    call relax(w(1), r)
    call column_profile(t(:, 1), nz, 0.9d0)
    acc = acc + q(1) * q(2) + w(1) * w(2)
    r = r + 0.1d0 * t(2, 2)
    base_temp = base_temp + 0.05d0 * q(2)
  end do
  y(1) = acc
  y(2) = t(1, 2) + t(2, 2) * t(3, 2)
  y(3) = r * sum(t(:, 1))
  !$openad DEPENDENT(y)
end subroutine head
