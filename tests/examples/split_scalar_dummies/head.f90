! A 1-D finite-volume model of a conserved quantity q, stepped in time:
! each step computes the flux at every face with a call tree three deep
! (step -> face -> riemann), the Riemann kernel taking the two cell values
! as elements q(i), q(i+1) and the viscosity as a derived-type component
! p%visc; the face also adds the flux's energy into a running scalar
! (intent(inout)), and after the update a relaxation changes one cell in
! place (an element passed to an intent(inout) scalar). At the end the
! cell values are weighted into a scalar accumulator by the same routine.
module faces
  implicit none
  integer, parameter :: n = 12, nsteps = 6
  type params
    double precision :: visc
    double precision :: decay
  end type params
contains
  subroutine riemann(ql, qr, nu, f)
    double precision, intent(in) :: ql, qr, nu
    double precision, intent(out) :: f
    double precision :: a
    a = max(abs(ql), abs(qr))
    f = 0.25d0 * (ql * ql + qr * qr) - 0.5d0 * (a + nu) * (qr - ql)
  end subroutine riemann

  subroutine accumulate(total, f, w)
    double precision, intent(inout) :: total
    double precision, intent(in) :: f, w
    total = total + w * f * f
  end subroutine accumulate

  subroutine face(q, i, p, f, energy)
    double precision, intent(in) :: q(n)
    integer, intent(in) :: i
    type(params), intent(in) :: p
    double precision, intent(out) :: f
    double precision, intent(inout) :: energy
    call riemann(q(i), q(i + 1), p%visc, f)
    call accumulate(energy, 2.0d0 * f, 0.5d0)
  end subroutine face

  subroutine relax(qc, r)
    double precision, intent(inout) :: qc
    double precision, intent(in) :: r
    qc = qc - r * qc * qc
  end subroutine relax

  subroutine step(q, p, dt, energy)
    double precision, intent(inout) :: q(n)
    type(params), intent(in) :: p
    double precision, intent(in) :: dt
    double precision, intent(inout) :: energy
    double precision :: flux(n), fl
    integer :: i
    flux = 0.0d0
    do i = 1, n - 1
      call face(q, i, p, fl, energy)
      flux(i) = fl
    end do
    do i = 2, n - 1
      q(i) = q(i) - dt * (flux(i) - flux(i - 1))
    end do
    call relax(q(n / 2), p%decay)
  end subroutine step
end module faces

subroutine head(x, y)
  use faces
  implicit none
  double precision, intent(in) :: x(4)
  double precision, intent(out) :: y(3)
  double precision :: q(n), energy, total
  type(params) :: p
  integer :: i, k
  !$openad INDEPENDENT(x)
  p%visc = x(3)
  p%decay = x(4)
  do i = 1, n
    q(i) = x(1) + x(2) * exp(-((i - 0.3d0 * n)**2) / 4.0d0)
  end do
  energy = 0.0d0
  do k = 1, nsteps
    call step(q, p, 0.1d0, energy)
  end do
  total = 0.0d0
  do i = 1, n
    call accumulate(total, q(i), 1.0d0 / i)
  end do
  y(1) = sum(q * q)
  y(2) = energy
  y(3) = total
  !$openad DEPENDENT(y)
end subroutine head
