! Finite-volume model whose face fluxes are a call tree of small
! loop-free module procedures (face -> limiter, kernel), called from a
! time step in the same module, from a routine of the same module whose
! sub-step loop is checkpointed (the mode changes inside its sweeps), and
! from a routine of another module. One loop-free routine keeps a work
! array in an allocatable local.
module swc_model
  implicit none
  integer, parameter :: n = 24
contains
  subroutine limiter(a, b, s)
    double precision, intent(in) :: a, b
    double precision, intent(out) :: s
    if (a * b <= 0.0d0) then
      s = 0.0d0
    else
      s = 2.0d0 * a * b / (a + b)
    end if
  end subroutine limiter

  subroutine kernel(ul, ur, nu, f)
    double precision, intent(in) :: ul, ur, nu
    double precision, intent(out) :: f
    double precision :: a
    a = max(abs(ul), abs(ur))
    f = 0.25d0 * (ul * ul + ur * ur) - 0.5d0 * (a + nu) * (ur - ul)
  end subroutine kernel

  subroutine face(u, i, nu, f)
    double precision, intent(in) :: u(0:n + 1)
    integer, intent(in) :: i
    double precision, intent(in) :: nu
    double precision, intent(out) :: f
    double precision :: s, fk
    call limiter(u(i) - u(i - 1), u(i + 1) - u(i), s)
    call kernel(u(i) + 0.5d0 * s, u(i + 1) - 0.5d0 * s, nu, fk)
    f = fk
  end subroutine face

  ! Loop-free, with an allocatable work array: its tape copy tapes the
  ! allocation, its adjoint copy restores it.
  subroutine source(u, c, g)
    double precision, intent(in) :: u(0:n + 1), c
    double precision, intent(out) :: g
    double precision, allocatable :: w(:)
    allocate(w(3))
    w(1) = u(n / 2 - 1)
    w(2) = u(n / 2)
    w(3) = u(n / 2 + 1)
    g = c * (w(1) * w(3) + sin(w(2)))
    deallocate(w)
  end subroutine source

  subroutine step(u, dt, nu, c)
    double precision, intent(inout) :: u(0:n + 1)
    double precision, intent(in) :: dt, nu, c
    double precision :: f(0:n), g
    integer :: i
    u(0) = u(1)
    u(n + 1) = u(n)
    f(0) = 0.0d0
    f(n) = 0.0d0
    do i = 1, n - 1
      call face(u, i, nu, f(i))
    end do
    call source(u, c, g)
    do i = 1, n
      u(i) = u(i) - dt * (f(i) - f(i - 1))
    end do
    u(n / 2) = u(n / 2) + dt * g
  end subroutine step

  ! Sub-steps under binomial checkpointing, calling the loop-free
  ! routines of this module directly.
  subroutine relax(u, nu, m)
    double precision, intent(inout) :: u(0:n + 1)
    double precision, intent(in) :: nu
    integer, intent(in) :: m
    double precision :: fl
    integer :: k
    !$openad CHECKPOINT BINOMIAL(snapshots=2)
    do k = 1, m
      call kernel(u(k), u(k + 1), nu, fl)
      u(k) = u(k) - 0.05d0 * fl
    end do
  end subroutine relax
end module swc_model

module swc_driver
  use swc_model
  implicit none
contains
  ! Another module: calls the originals, which run their own sections.
  subroutine probe(u, nu, p)
    double precision, intent(in) :: u(0:n + 1), nu
    double precision, intent(out) :: p
    call kernel(u(3), u(4), nu, p)
  end subroutine probe
end module swc_driver

subroutine head(x, y)
  use swc_model
  use swc_driver
  implicit none
  double precision :: x(3), y(2)
  double precision :: u(0:n + 1), p
  integer :: i, t
  !$openad INDEPENDENT(x)
  do i = 0, n + 1
    u(i) = 1.0d0 + x(1) * exp(-((i - 0.4d0 * n) / 4.0d0)**2)
  end do
  do t = 1, 6
    call step(u, 0.1d0, x(2), x(3))
    if (mod(t, 3) == 0) call relax(u, x(2), 5)
  end do
  call probe(u, x(2), p)
  y(1) = 0.0d0
  do i = 1, n
    y(1) = y(1) + u(i)**2
  end do
  y(2) = p
  !$openad DEPENDENT(y)
end subroutine head
