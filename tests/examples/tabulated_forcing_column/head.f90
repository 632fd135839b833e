! A column radiation-and-forcing model driven by tabulated data, as such
! codes are: forcing interpolated linearly from a DATA table with the
! interval found by int() and floor(), a bisection search (do while on
! integers) in a monotone pressure table, character-keyed gas
! properties in a select case, a real-to-integer nint() level index, and
! exponentials of optical depth summed from the top down with a scan.
! Parameters: x(1) surface temperature, x(2) absorber amount, x(3) forcing
! scale. The routine calling the passive functions pushes its integer
! locals for callees' adjoints only if its adjoint section calls one:
! before, split mode pushed them and never popped (1.01 relative error).
module forcing_tables
  implicit none
  integer, parameter :: ntab = 8, nlev = 12
  double precision :: tab_t(ntab), tab_f(ntab)
  data tab_t / 0.0d0, 1.0d0, 2.5d0, 4.0d0, 6.0d0, 7.5d0, 9.0d0, 12.0d0 /
  data tab_f / 1.0d0, 1.4d0, 0.9d0, 1.8d0, 2.2d0, 1.6d0, 1.1d0, 0.7d0 /
contains
  double precision function forcing_at(t)
    double precision, intent(in) :: t
    integer :: lo, hi, mid
    double precision :: w
    ! bisection for tab_t(lo) <= t < tab_t(hi)
    lo = 1
    hi = ntab
    do while (hi - lo > 1)
      mid = (lo + hi) / 2
      if (tab_t(mid) <= t) then
        lo = mid
      else
        hi = mid
      end if
    end do
    w = (t - tab_t(lo)) / (tab_t(hi) - tab_t(lo))
    forcing_at = (1.0d0 - w) * tab_f(lo) + w * tab_f(hi)
  end function forcing_at

  double precision function absorption(gas)
    character(len=*), intent(in) :: gas
    select case (trim(gas))
    case ('h2o')
      absorption = 0.12d0
    case ('co2')
      absorption = 0.05d0
    case default
      absorption = 0.01d0
    end select
  end function absorption
end module forcing_tables

subroutine head(x, y)
  use forcing_tables
  implicit none
  double precision :: x(3), y(2)
  double precision :: temp(nlev), tau(0:nlev), flux(0:nlev), p(nlev), t, heat
  character(len=3) :: gases(2) = ['h2o', 'co2']
  integer :: k, step, kmid, g
  !$openad INDEPENDENT(x)
  do k = 1, nlev
    p(k) = 1000.0d0 * (1.0d0 - (k - 1) / dble(nlev))
    temp(k) = x(1) - 6.5d0 * (k - 1)
  end do
  t = 0.0d0
  do step = 1, 20
    t = t + 0.55d0
    heat = x(3) * forcing_at(t)
    tau(nlev) = 0.0d0
    do k = nlev, 1, -1
      tau(k - 1) = tau(k)
      do g = 1, size(gases)
        tau(k - 1) = tau(k - 1) + x(2) * absorption(gases(g)) * p(k) / 1000.0d0 * (temp(k) / 288.0d0)
        if (trim(gases(g)) == 'co2') tau(k - 1) = tau(k - 1) * (1.0d0 + 1.0d-3 * x(1) / 288.0d0)
      end do
    end do
    do k = 0, nlev
      flux(k) = heat * exp(-tau(k))
    end do
    do k = 1, nlev
      temp(k) = temp(k) + 0.05d0 * (flux(k - 1) - flux(k)) - 0.01d0 * (temp(k) - (x(1) - 6.5d0 * (k - 1)))
    end do
  end do
  kmid = nint(0.5d0 * nlev + 0.2d0)
  y(1) = temp(kmid) + flux(0)
  y(2) = sum(temp(floor(0.25d0 * nlev):nlev)) / nlev
  !$openad DEPENDENT(y)
end subroutine head
