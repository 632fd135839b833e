! Explicit time stepping of a 2-D reaction-diffusion field written in
! the Fortran 77 style real models keep: the step routine gets its work
! arrays from the caller. `hn` is filled over the interior and then read
! back over the same interior (it needs no joint-mode checkpoint: the
! routine writes it before it reads it); `edge` is filled from its second
! element on but read one element behind, so its first element, which the
! caller sets before each call, is read at its entry value; `flag_work` is
! written only under a branch. The adjoint of the joint mode must restore
! the last two before it re-runs the step.
module rd_model
  implicit none
  integer, parameter :: n = 12
contains
  subroutine step(h, hn, edge, flag_work, rate, dt, wet)
    real(8), intent(inout) :: h(n, n), hn(n, n), edge(n), flag_work(n)
    real(8), intent(in) :: rate, dt
    logical, intent(in) :: wet
    integer :: i, j
    do j = 2, n
      do i = 2, n
        hn(i, j) = h(i, j) + dt * (h(i - 1, j) + h(i, j - 1) - 2.0d0 * h(i, j)) &
             - dt * rate * h(i, j)**2
      end do
    end do
    do j = 2, n
      do i = 2, n
        h(i, j) = 0.5d0 * (h(i, j) + hn(i, j))
      end do
    end do
    do i = 2, n
      edge(i) = 0.9d0 * h(i, 2)
    end do
    do i = 2, n
      h(i, 1) = h(i, 1) + dt * edge(i - 1)
    end do
    if (wet) then
      do i = 1, n
        flag_work(i) = h(i, n) * rate
      end do
    end if
    do i = 1, n
      h(i, n) = h(i, n) - dt * flag_work(i)
    end do
  end subroutine step
end module rd_model

subroutine head(x, y)
  use rd_model
  implicit none
  real(8), intent(in) :: x(3)
  real(8), intent(out) :: y(2)
  real(8) :: h(n, n), hn(n, n), edge(n), flag_work(n)
  integer :: i, j, t
  !$openad INDEPENDENT(x)
  do j = 1, n
    do i = 1, n
      h(i, j) = x(1) * exp(-0.05d0 * ((i - 5)**2 + (j - 6)**2))
    end do
  end do
  hn = 0
  flag_work = x(3)
  do t = 1, 10
    edge(1) = x(2) * (1.0d0 + 0.1d0 * t)
    call step(h, hn, edge, flag_work, x(3), 0.05d0, mod(t, 3) == 0)
  end do
  y(1) = sum(h)
  y(2) = h(3, 2) + hn(4, 4)
  !$openad DEPENDENT(y)
end subroutine head
