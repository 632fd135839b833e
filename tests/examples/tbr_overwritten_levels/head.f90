! Lake temperature model with two time levels that are written again after
! they were read, so no copy taken after the loop holds what the reads saw
! (to-be-recorded analysis on array sections, docs/adjoint.md: these reads
! must be taped per cell and step). Each step computes level t+1 from level
! t, then smooths level t in place with the new level (a read of column t
! and a later write of column t in the same step); a second loop writes
! level t-1 from level t (step t+1 overwrites the column step t read); a
! third shifts the profile within one level (an aliasing section,
! w(2:n, t) = w(1:n-1, t) * ...) after reading it.
module lake_levels
  implicit none
  integer, parameter :: n = 8, nt = 10
  double precision, parameter :: dt = 0.15d0
end module lake_levels

subroutine head(x, y)
  use lake_levels
  implicit none
  double precision :: x(3), y(3)
  double precision :: h(n, nt + 1), v(n, nt + 1), w(n, nt), q(n - 1)
  integer :: i, t
  !$openad INDEPENDENT(x)
  do i = 1, n
    h(i, 1) = x(1) * (1.0d0 + 0.2d0 * cos(0.8d0 * i))
    v(i, 1) = x(2) * (1.0d0 + 0.1d0 * i)
  end do
  do t = 1, nt
    do i = 1, n - 1
      q(i) = x(3) * (h(i + 1, t) + h(i, t))**2 * (h(i + 1, t) - h(i, t))
    end do
    do i = 2, n - 1
      h(i, t + 1) = h(i, t) + dt * (q(i) - q(i - 1))
    end do
    h(1, t + 1) = h(2, t + 1)
    h(n, t + 1) = h(n - 1, t + 1)
    ! Smoothing of level t after it was read: overwrites what q read.
    h(:, t) = 0.5d0 * (h(:, t) + h(:, t + 1))
  end do
  ! Level t-1 overwritten in step t+1 after step t read it.
  do t = 1, nt
    do i = 2, n - 1
      v(i, t + 1) = v(i, t) * v(i + 1, t) / (1.0d0 + v(i - 1, t)**2)
    end do
    v(1, t + 1) = v(1, t)
    v(n, t + 1) = v(n, t)
    if (t > 1) then
      do i = 1, n
        v(i, t - 1) = v(i, t - 1) * 0.9d0 + 0.1d0 * v(i, t + 1)
      end do
    end if
  end do
  ! An aliasing section: the level is read, then shifted within itself.
  do t = 1, nt
    do i = 1, n
      w(i, t) = h(i, t) * v(i, t)
    end do
    do i = 2, n - 1
      q(i) = w(i - 1, t) * w(i + 1, t) / (1.0d0 + w(i, t)**2)
    end do
    w(2:n, t) = w(1:n-1, t) * (1.0d0 + q(2))
  end do
  y(1) = sum(h)
  y(2) = sum(v(:, nt + 1)**2) + sum(v(:, 1))
  y(3) = sum(w**2)
  !$openad DEPENDENT(y)
end subroutine head
