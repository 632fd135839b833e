! Benchmark model (bench/): bench/programs/column_intrinsics with DO loops
! instead of the array constructors, reshape, matmul, spread and
! dot_product; same arithmetic, same outputs.
! Parameters: x(1) mixing rate, x(2) source strength, x(3) initial value.
! Outputs: total and a weighted column value at the end.
module column_size
  implicit none
  integer, parameter :: nx = 40000 ! bench-size
  integer, parameter :: nz = 8
  integer, parameter :: nsteps = 40
end module column_size

subroutine head(x, y)
  use column_size
  implicit none
  double precision :: x(3), y(2)
  double precision :: c(nz, nx), cn(nz, nx), a(nz, nz), q(nz), w(nz)
  double precision :: dt, s
  integer :: i, k, m, t
  !$openad INDEPENDENT(x)
  dt = 0.05d0
  do k = 1, nz
    w(k) = exp(-0.25d0 * k)
    q(k) = x(2) * w(k)
  end do
  do k = 1, nz
    do i = 1, nz
      if (i == k) then
        a(i, k) = x(1) * (-2.0d0)
      else if (abs(i - k) == 1) then
        a(i, k) = x(1) * 1.0d0
      else
        a(i, k) = x(1) * 0.0d0
      end if
    end do
  end do
  do i = 1, nx
    do k = 1, nz
      c(k, i) = x(3) * (1.0d0 + 0.5d0 * sin(0.01d0 * i)) * w(k)
    end do
  end do
  do t = 1, nsteps
    do i = 1, nx
      do k = 1, nz
        s = 0.0d0
        do m = 1, nz
          s = s + a(k, m) * c(m, i)
        end do
        cn(k, i) = c(k, i) + dt * (s + q(k))
      end do
    end do
    do i = 1, nx
      do k = 1, nz
        c(k, i) = cn(k, i)
      end do
    end do
  end do
  s = 0.0d0
  do i = 1, nx
    do k = 1, nz
      s = s + c(k, i)
    end do
  end do
  y(1) = s
  s = 0.0d0
  do k = 1, nz
    s = s + w(k) * c(k, nx / 2)
  end do
  y(2) = s
  !$openad DEPENDENT(y)
end subroutine head
