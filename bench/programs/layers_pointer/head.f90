! Benchmark model (bench/): a stack of nl layers on an n-cell grid (a
! field h(n, nl) in a derived-type state), each layer updated through a
! pointer to its column, `hk => s%h(:, k)`, with the layer below through
! another (`hb => s%h(:, k - 1)`), in a time loop.
! bench/programs/layers_plain is the same arithmetic on the plain array
! with DO loops; the two should cost the same (issue 10).
! Parameters: x(1) exchange rate, x(2) diffusivity, x(3) initial depth.
! Outputs: total and a point value of the top layer at the end.
module layers_model
  implicit none
  integer, parameter :: n = 100000 ! bench-size
  integer, parameter :: nl = 4
  integer, parameter :: nsteps = 40
  type layer_state
    double precision :: h(n, nl), flux(n)
  end type layer_state
end module layers_model

subroutine head(x, y)
  use layers_model
  implicit none
  double precision :: x(3), y(2)
  type(layer_state), target, save :: s
  double precision, pointer :: hk(:), hb(:)
  double precision :: ex, d
  integer :: i, k, t
  !$openad INDEPENDENT(x)
  ex = 0.05d0 * x(1)
  d = 0.2d0 * x(2)
  do k = 1, nl
    do i = 1, n
      s%h(i, k) = x(3) * (1.0d0 + 0.1d0 * k + 0.3d0 * sin(0.002d0 * i * k))
    end do
  end do
  do t = 1, nsteps
    do k = 1, nl
      hk => s%h(:, k)
      do i = 2, n - 1
        s%flux(i) = d * (hk(i + 1) - 2.0d0 * hk(i) + hk(i - 1))
      end do
      do i = 2, n - 1
        hk(i) = hk(i) + s%flux(i)
      end do
      if (k > 1) then
        hb => s%h(:, k - 1)
        do i = 1, n
          hk(i) = hk(i) - ex * (hk(i) - hb(i)) * hb(i)
        end do
      end if
    end do
  end do
  y(1) = sum(s%h)
  hk => s%h(:, nl)
  y(2) = hk(n / 2)
  !$openad DEPENDENT(y)
end subroutine head
