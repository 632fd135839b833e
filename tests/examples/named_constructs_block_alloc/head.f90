! Heat exchange along a pipe split into segments whose number changes
! with the step: named associate and block constructs, a block with an
! allocatable work array sized inside it (allocated each time the block
! runs, released when it ends), an early `cycle` out of a block while its
! array is allocated, and a named associate around a named block.
module pipe_model
  implicit none
  integer, parameter :: n = 8
  type pipe_state
    double precision :: temp(n), wall(n)
  end type pipe_state
contains
  subroutine exchange(s, k, nseg)
    type(pipe_state), intent(inout) :: s
    double precision, intent(in) :: k
    integer, intent(in) :: nseg
    integer :: i, j, m
    pipe: associate (t => s%temp, w => s%wall)
      segments: block
        double precision, allocatable :: mean(:)
        double precision :: total
        m = n / nseg
        allocate(mean(nseg))
        do j = 1, nseg
          mean(j) = sum(t((j - 1) * m + 1:j * m)) / m
        end do
        total = 0.0d0
        do j = 1, nseg
          do i = (j - 1) * m + 1, j * m
            t(i) = t(i) + k * (mean(j) - t(i)) + 0.1d0 * k * (w(i) - t(i))
          end do
          total = total + mean(j)
        end do
        w = w + 0.05d0 * (t - w) + 0.01d0 * total / nseg
      end block segments
    end associate pipe
  end subroutine exchange
end module pipe_model

subroutine head(x, y)
  use pipe_model
  implicit none
  double precision :: x(3), y(2)
  type(pipe_state) :: s
  integer :: i, step
  !$openad INDEPENDENT(x)
  do i = 1, n
    s%temp(i) = x(1) * (1.0d0 + 0.2d0 * i)
    s%wall(i) = x(2)
  end do
  do step = 1, 6
    call exchange(s, 0.3d0 * x(3), 2 ** mod(step, 3))
    scratch: block
      double precision, allocatable :: d(:)
      allocate(d(n - 1))
      d = s%temp(2:n) - s%temp(1:n-1)
      if (step == 3) cycle
      s%wall(2:n) = s%wall(2:n) + 0.02d0 * d
    end block scratch
  end do
  y(1) = sum(s%temp * s%wall)
  y(2) = s%temp(n) - s%wall(1)
  !$openad DEPENDENT(y)
end subroutine head
