! Benchmark model (bench/): bench/programs/layers_pointer on a plain array
! h(n, nl) indexed directly, without pointers or a derived type; same
! arithmetic, same outputs.
! Parameters: x(1) exchange rate, x(2) diffusivity, x(3) initial depth.
! Outputs: total and a point value of the top layer at the end.
module layers_model
  implicit none
  integer, parameter :: n = 100000 ! bench-size
  integer, parameter :: nl = 4
  integer, parameter :: nsteps = 40
end module layers_model

subroutine head(x, y)
  use layers_model
  implicit none
  double precision :: x(3), y(2)
  double precision, save :: h(n, nl), flux(n)
  double precision :: ex, d
  integer :: i, k, t
  !$openad INDEPENDENT(x)
  ex = 0.05d0 * x(1)
  d = 0.2d0 * x(2)
  do k = 1, nl
    do i = 1, n
      h(i, k) = x(3) * (1.0d0 + 0.1d0 * k + 0.3d0 * sin(0.002d0 * i * k))
    end do
  end do
  do t = 1, nsteps
    do k = 1, nl
      do i = 2, n - 1
        flux(i) = d * (h(i + 1, k) - 2.0d0 * h(i, k) + h(i - 1, k))
      end do
      do i = 2, n - 1
        h(i, k) = h(i, k) + flux(i)
      end do
      if (k > 1) then
        do i = 1, n
          h(i, k) = h(i, k) - ex * (h(i, k) - h(i, k - 1)) * h(i, k - 1)
        end do
      end if
    end do
  end do
  y(1) = sum(h)
  y(2) = h(n / 2, nl)
  !$openad DEPENDENT(y)
end subroutine head
