! A column model whose step routine calls routines with loops: some are
! cheaper to tape in the caller's sweeps than to checkpoint and re-run
! (joint mode, docs/adjoint.md "Taped in the caller"), some are not.
! head (time loop) -> column_step -> diffuse, dot (tape per call about
! their arguments' size: taped in column_step), react (sub-steps: tape
! larger than its checkpoint, re-run), settle (calls clip_level, which
! iterates until converged: re-run) -> clip_level.
module column_model
  implicit none
  integer, parameter :: nz = 12, nsub = 4
  double precision :: floor_value = 0.05d0
contains
  subroutine diffuse(t, kappa, tn)
    double precision, intent(in) :: t(nz), kappa(nz + 1)
    double precision, intent(out) :: tn(nz)
    integer :: i
    tn(1) = t(1) + kappa(2) * (t(2) - t(1))
    do i = 2, nz - 1
      tn(i) = t(i) + kappa(i + 1) * (t(i + 1) - t(i)) - kappa(i) * (t(i) - t(i - 1))
    end do
    tn(nz) = t(nz) - kappa(nz) * (t(nz) - t(nz - 1))
  end subroutine diffuse

  function dot(a, b) result(s)
    double precision, intent(in) :: a(nz), b(nz)
    double precision :: s
    integer :: i
    s = 0.0d0
    do i = 1, nz
      s = s + a(i) * b(i)
    end do
  end function dot

  ! Sub-stepped reaction: its tape grows with nsub times the column.
  subroutine react(t, rate)
    double precision, intent(inout) :: t(nz)
    double precision, intent(in) :: rate
    integer :: i, s
    do s = 1, nsub
      do i = 1, nz
        t(i) = t(i) - 0.25d0 * rate * t(i) * t(i)
      end do
    end do
  end subroutine react

  ! Raises t(k) towards the floor until the change is small.
  subroutine clip_level(t, k)
    double precision, intent(inout) :: t(nz)
    integer, intent(in) :: k
    double precision :: gap
    gap = floor_value - t(k)
    do while (gap > 1.0d-3)
      t(k) = t(k) + 0.5d0 * gap
      gap = floor_value - t(k)
    end do
  end subroutine clip_level

  ! Settling: moves a fraction of each level down, clipping each level
  ! it takes from (k passed to a routine that is re-run).
  subroutine settle(t, w)
    double precision, intent(inout) :: t(nz)
    double precision, intent(in) :: w
    integer :: k
    do k = nz - 1, 1, -1
      t(k + 1) = t(k + 1) + w * t(k) * t(k)
      t(k) = t(k) - w * t(k) * t(k)
      call clip_level(t, k)
    end do
  end subroutine settle

  subroutine column_step(t, kappa, rate, w, energy)
    double precision, intent(inout) :: t(nz)
    double precision, intent(in) :: kappa(nz + 1), rate, w
    double precision, intent(inout) :: energy
    double precision :: tn(nz)
    call diffuse(t, kappa, tn)
    t = tn
    call react(t, rate)
    call settle(t, w)
    energy = energy + 0.1d0 * dot(t, t)
  end subroutine column_step
end module column_model

subroutine head(x, y)
  use column_model
  implicit none
  double precision, intent(in) :: x(3)
  double precision, intent(out) :: y(2)
  double precision :: t(nz), kappa(nz + 1), energy
  integer :: i, step
  !$openad INDEPENDENT(x)
  floor_value = 0.05d0
  do i = 1, nz
    t(i) = 0.2d0 + x(1) * sin(0.4d0 * i)**2
  end do
  do i = 1, nz + 1
    kappa(i) = 0.1d0 * x(2) * (1.0d0 + 0.05d0 * i)
  end do
  energy = 0.0d0
  do step = 1, 15
    call column_step(t, kappa, x(3), 0.02d0 + 0.01d0 * x(1), energy)
    floor_value = floor_value + 0.002d0
  end do
  y(1) = energy
  y(2) = t(nz) + t(1) * t(2)
  !$openad DEPENDENT(y)
end subroutine head
