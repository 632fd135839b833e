! A shallow-ice glacier model with an adaptive time step: the step is
! limited by a CFL-type condition on the current diffusivity (maxval), the
! time loop is a `do` without control left by `exit` once the end time is
! reached, the last step is shortened to land on it, and the surface mass
! balance depends on elevation through a module function.
! Parameters: x(1) accumulation, x(2) flow factor, x(3) initial thickness.
module sia
  implicit none
  integer, parameter :: n = 30
  double precision, parameter :: dx = 1.0d0, t_end = 2.0d0
contains
  double precision function smb(s, acc)
    double precision, intent(in) :: s, acc
    smb = acc * (1.0d0 - 0.3d0 * s)
  end function smb

  subroutine diffusivity(h, a, d)
    double precision, intent(in) :: h(n), a
    double precision, intent(out) :: d(n - 1)
    integer :: i
    do i = 1, n - 1
      d(i) = a * (0.5d0 * (h(i) + h(i + 1)))**3 * abs((h(i + 1) - h(i)) / dx + 0.05d0)
    end do
  end subroutine diffusivity
end module sia

subroutine head(x, y)
  use sia
  implicit none
  double precision :: x(3), y(2)
  double precision :: h(n), d(n - 1), q(n - 1), t, dt
  integer :: i, nstep
  !$openad INDEPENDENT(x)
  do i = 1, n
    h(i) = x(3) * (1.0d0 - ((i - 0.5d0 * n) / (0.5d0 * n))**2) + 0.1d0
  end do
  t = 0.0d0
  nstep = 0
  do
    call diffusivity(h, x(2), d)
    dt = 0.2d0 * dx * dx / (maxval(d) + 1.0d-3)
    if (t + dt >= t_end) dt = t_end - t
    do i = 1, n - 1
      q(i) = -d(i) * (h(i + 1) - h(i)) / dx
    end do
    do i = 2, n - 1
      h(i) = max(h(i) + dt * (smb(h(i), x(1)) - (q(i) - q(i - 1)) / dx), 0.0d0)
    end do
    t = t + dt
    nstep = nstep + 1
    if (t >= t_end .or. nstep >= 500) exit
  end do
  y(1) = sum(h) * dx
  y(2) = h(n / 2)
  !$openad DEPENDENT(y)
end subroutine head
