! Column model of a lake: `associate` on a scalar function result (the
! mixing energy, evaluated once at the association although the body
! changes the column it was computed from), on a column of a 2-D array
! (`col => t(:, k)`, read and written through its own subscripts), on an
! element, and on a vector-subscripted section (`probes => t(levels, k)`,
! read whole), in a routine called in a time loop.
module lake_column
  implicit none
  integer, parameter :: nz = 6, nc = 2
  integer, parameter :: levels(3) = [1, 3, 6]
contains
  double precision function mixing_energy(c)
    double precision, intent(in) :: c(nz)
    integer :: k
    mixing_energy = 0.0d0
    do k = 2, nz
      mixing_energy = mixing_energy + (c(k) - c(k - 1))**2
    end do
  end function mixing_energy

  subroutine mix(t, rate, probe_mean)
    double precision, intent(inout) :: t(nz, nc)
    double precision, intent(in) :: rate
    double precision, intent(out) :: probe_mean(nc)
    integer :: k, i
    do k = 1, nc
      associate (e => mixing_energy(t(:, k)), col => t(:, k), surface => t(1, k), &
                 probes => t(levels, k))
        probe_mean(k) = sum(probes) / size(levels)
        do i = 2, nz
          col(i) = col(i) + rate * e / (1.0d0 + e) * (col(i - 1) - col(i))
        end do
        col(nz) = col(nz) - 0.01d0 * e * surface
      end associate
    end do
  end subroutine mix
end module lake_column

subroutine head(x, y)
  use lake_column
  implicit none
  double precision :: x(3), y(3)
  double precision :: t(nz, nc), pm(nc)
  integer :: i, step
  !$openad INDEPENDENT(x)
  do i = 1, nz
    t(i, 1) = x(1) * (1.0d0 - 0.1d0 * i)
    t(i, 2) = x(2) + 0.2d0 * x(1) * i
  end do
  do step = 1, 4
    call mix(t, x(3), pm)
  end do
  associate (bottom => mixing_energy(t(:, 2)))
    y(1) = bottom + sum(t(:, 1))
  end associate
  y(2) = pm(1) * pm(2)
  y(3) = t(nz, 1) + t(2, 2)
  !$openad DEPENDENT(y)
end subroutine head
