! Allocation along a call chain: head calls stage in a loop; stage
! allocates a work array sized by its argument, passes it to leaf, which
! allocates a rank-2 scratch array of its own (left allocated at return),
! and releases it. Joint mode re-runs stage and leaf in the reverse sweep.
subroutine leaf(m, w, s)
  implicit none
  integer :: m
  double precision :: w(m), s
  double precision, allocatable :: q(:, :)
  integer :: i
  allocate(q(2, 0:m - 1))
  do i = 1, m
    q(1, i - 1) = w(i) * w(i)
    q(2, i - 1) = cos(w(i))
  end do
  s = 0.0d0
  do i = 0, m - 1
    s = s + q(1, i) * q(2, i)
  end do
end subroutine leaf

subroutine stage(m, x, y)
  implicit none
  integer :: m
  double precision :: x(3), y(2)
  double precision, allocatable :: work(:)
  double precision :: s
  integer :: i
  allocate(work(m))
  do i = 1, m
    work(i) = x(mod(i - 1, 3) + 1) * dble(i) * 0.3d0 + y(1)
  end do
  call leaf(m, work, s)
  y(1) = y(1) + 0.2d0 * s
  y(2) = y(2) * (1.0d0 + 0.1d0 * work(m))
  deallocate(work)
end subroutine stage

subroutine head(x, y)
  implicit none
  double precision :: x(3), y(2)
  integer :: k
  !$openad INDEPENDENT(x)
  y(1) = x(1)
  y(2) = x(2)
  do k = 2, 4
    call stage(k, x, y)
  end do
  !$openad DEPENDENT(y)
end subroutine head
