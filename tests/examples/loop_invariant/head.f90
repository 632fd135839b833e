! Loop-invariant Jacobian entries: the adjoint tapes an entry that no
! statement of an enclosing loop can change once per execution of the
! outermost such loop (docs/adjoint.md, "Loop-invariant entries").
module li_helpers
  implicit none
contains
  subroutine damp(a, f)
    double precision, intent(inout) :: a
    double precision, intent(in) :: f
    a = a * f
  end subroutine damp
end module li_helpers

subroutine head(x, y)
  use li_helpers
  implicit none
  integer, parameter :: n = 12, nsteps = 7
  double precision :: x(4), y(3)
  double precision, allocatable :: w(:)
  double precision :: u(n), unew(n), c(2), dt, dx, relax, gain, s
  integer :: i, step, m, k
  !$openad INDEPENDENT(x)
  allocate(w(n))
  dx = 1.0d0 / n
  dt = 0.3d0 * dx
  c(1) = x(4)
  c(2) = 0.5d0 * x(3)
  do i = 1, n
    u(i) = x(1) * sin(3.0d0 * i * dx) + x(2)
  end do
  relax = 1.0d0
  do step = 1, nsteps
    ! invariant in the inner loops only (changes per step)
    relax = 0.9d0 * relax
    ! zero trips every third step
    m = mod(step, 3) * 2
    do i = 2, m + 1
      u(i) = u(i) * relax + dt / dx * c(1) * u(i - 1)
    end do
    ! invariant in both loops: dt/dx, c(1), c(2), x(3) and their products
    do i = 2, n - 1
      if (u(i) > c(2)) then
        unew(i) = u(i) + c(1) * dt / dx * (u(i + 1) - 2.0d0 * u(i) + u(i - 1))
      else
        unew(i) = u(i) - c(2) * dt * u(i) * x(3)
      end if
    end do
    unew(1) = u(1)
    unew(n) = u(n)
    w = unew
    u = w
  end do
  ! do while with an invariant factor
  s = 0.0d0
  k = 0
  do while (k < n)
    k = k + 1
    s = s + dt * c(2) * u(k)
  end do
  ! the factor's variable changes in the loop: taped per iteration
  gain = x(2)
  do i = 1, n
    u(i) = u(i) * gain
    gain = gain * 0.95d0
  end do
  ! a loop with a call: nothing hoisted out of it
  do i = 1, n
    u(i) = u(i) + dt * c(1)
    call damp(u(i), relax)
  end do
  y(1) = s
  y(2) = sum(u) * dx
  y(3) = u(n / 2) * c(1)
  deallocate(w)
  !$openad DEPENDENT(y)
end subroutine head
