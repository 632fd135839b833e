! AC power grid: three buses on a ring of lines with complex impedances
! r + i*xl; bus 1 is the slack bus, buses 2 and 3 draw complex power.
! Gauss-Seidel sweeps over the node voltages (complex phasors in a module),
! then the voltage magnitude, an angle proxy and a line power flow.
module grid
  implicit none
  integer, parameter :: nb = 3
  complex(8) :: v(nb)
  complex(8) :: ybus(nb, nb)
contains
  subroutine build_admittance(r, xl)
    real(8), intent(in) :: r(nb), xl(nb)
    integer :: i, j
    complex(8) :: yline
    ybus = (0d0, 0d0)
    do i = 1, nb
      j = mod(i, nb) + 1
      yline = 1d0 / cmplx(r(i), xl(i), kind=8)
      ybus(i, j) = ybus(i, j) - yline
      ybus(j, i) = ybus(j, i) - yline
      ybus(i, i) = ybus(i, i) + yline
      ybus(j, j) = ybus(j, j) + yline
    end do
  end subroutine build_admittance

  subroutine sweep(s)
    complex(8), intent(in) :: s(nb)
    integer :: i, j
    complex(8) :: acc
    do i = 2, nb
      acc = conjg(s(i)) / conjg(v(i))
      do j = 1, nb
        if (j /= i) acc = acc - ybus(i, j) * v(j)
      end do
      v(i) = acc / ybus(i, i)
    end do
  end subroutine sweep
end module grid

subroutine head(x, y)
  use grid
  implicit none
  real(8) :: x(5), y(3)
  real(8) :: r(nb), xl(nb)
  complex(8) :: s(nb)
  integer :: it
  !$openad INDEPENDENT(x)
  r = 0.02d0 * x(1)
  xl(1) = 0.1d0 * x(2)
  xl(2) = 0.12d0 * x(2)
  xl(3) = 0.08d0 * x(2)
  call build_admittance(r, xl)
  v = (1d0, 0d0)
  s(1) = 0
  s(2) = cmplx(-x(3), -0.3d0 * x(3), 8)
  s(3) = -cmplx(x(4), x(5), 8)
  do it = 1, 40
    call sweep(s)
  end do
  y(1) = abs(v(2))
  y(2) = aimag(v(3)) / real(v(3))
  y(3) = real(conjg(v(2)) * ybus(2, 1) * v(1))
  !$openad DEPENDENT(y)
end subroutine head
