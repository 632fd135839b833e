! Impure functions and state as older models keep it: a function that
! counts its calls in a module variable and returns a value depending on
! it (random-walk forcing from a linear congruential generator kept in a
! save variable), `pack` of the wet points and `unpack` back, `reshape`
! of a 2-D field to 1-D for a reduction, and `spread` to broadcast a
! column profile. Parameters: x(1) amplitude, x(2) relaxation, x(3)
! profile scale.
module stateful
  implicit none
  integer :: ncalls = 0
contains
  double precision function noise()
    integer, save :: seed = 12345
    seed = modulo(1103515245 * seed + 12345, 2147483647)
    ncalls = ncalls + 1
    noise = dble(modulo(seed, 1000)) / 1000.0d0 - 0.5d0
  end function noise
end module stateful

subroutine head(x, y)
  use stateful
  implicit none
  integer, parameter :: nx = 6, nz = 4
  double precision :: x(3), y(2)
  double precision :: f(nx, nz), prof(nz), wetvals(nx * nz), flat(nx * nz)
  logical :: wet(nx, nz)
  integer :: i, j, t, nwet
  !$openad INDEPENDENT(x)
  ncalls = 0
  prof = [(x(3) * (1.0d0 + 0.2d0 * j), j = 1, nz)]
  f = spread(prof, 1, nx)
  do j = 1, nz
    do i = 1, nx
      wet(i, j) = mod(i + 2 * j, 5) /= 0
    end do
  end do
  nwet = count(wet)
  do t = 1, 10
    wetvals(1:nwet) = pack(f, wet)
    wetvals(1:nwet) = wetvals(1:nwet) * (1.0d0 - 0.1d0 * x(2)) + 0.01d0 * x(1) * (1.0d0 + 0.0d0 * noise())
    f = unpack(wetvals(1:nwet), wet, f)
  end do
  flat = reshape(f, [nx * nz])
  y(1) = sum(flat(1:nx * nz:3))
  y(2) = sum(f * spread(prof, 1, nx)) + 1.0d-6 * ncalls
  !$openad DEPENDENT(y)
end subroutine head
