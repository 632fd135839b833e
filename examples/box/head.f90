! A three-box model of the ocean's overturning circulation (after Stommel):
! two surface boxes (north, tropics) and a deep box exchange heat and salt
! through a flow driven by the density difference between the surface
! boxes. The flow reverses when the north box becomes too fresh, so the
! upstream scheme has a branch on its sign.
!
! x(1:3)  initial temperatures of the north, tropical and deep boxes [degC]
! x(4:6)  initial salinities of the three boxes [psu]
! y(1)    overturning flow after 50 years [Sv]
! y(2)    temperature of the north box after 50 years [degC]
module box_parameters
  implicit none
  integer, parameter :: nbox = 3
  integer, parameter :: nyears = 50, steps_per_year = 12
  double precision, parameter :: alpha = 1.668d-4      ! thermal expansion [1/K]
  double precision, parameter :: beta = 0.7811d-3      ! haline contraction [1/psu]
  double precision, parameter :: hydraulic = 4.0d3     ! flow per unit density difference [Sv]
  double precision, parameter :: volume(nbox) = (/ 40.0d0, 80.0d0, 200.0d0 /)  ! [Sv yr]
  double precision, parameter :: relax_temp(nbox) = (/ 0.0d0, 25.0d0, 0.0d0 /)
  double precision, parameter :: fresh_water(nbox) = (/ -0.02d0, 0.02d0, 0.0d0 /)
  ! only the surface boxes relax towards the atmospheric temperature
  double precision, parameter :: surface(nbox) = (/ 1.0d0, 1.0d0, 0.0d0 /)
end module box_parameters

subroutine head(x, y)
  use box_parameters
  implicit none
  double precision, intent(in) :: x(6)
  double precision, intent(out) :: y(2)
  double precision :: temp(nbox), salt(nbox), dtemp(nbox), dsalt(nbox)
  double precision :: flow, dt
  integer :: step
  !$openad INDEPENDENT(x)
  temp = x(1:3)
  salt = x(4:6)
  dt = 1.0d0 / steps_per_year
  do step = 1, nyears * steps_per_year
    flow = hydraulic * (alpha * (temp(2) - temp(1)) - beta * (salt(2) - salt(1)))
    if (flow >= 0.0d0) then
      ! north sinks: tropics -> north -> deep -> tropics
      dtemp(1) = flow * (temp(2) - temp(1))
      dtemp(2) = flow * (temp(3) - temp(2))
      dtemp(3) = flow * (temp(1) - temp(3))
      dsalt(1) = flow * (salt(2) - salt(1))
      dsalt(2) = flow * (salt(3) - salt(2))
      dsalt(3) = flow * (salt(1) - salt(3))
    else
      ! reversed circulation: tropics -> deep -> north -> tropics
      dtemp(1) = -flow * (temp(3) - temp(1))
      dtemp(2) = -flow * (temp(1) - temp(2))
      dtemp(3) = -flow * (temp(2) - temp(3))
      dsalt(1) = -flow * (salt(3) - salt(1))
      dsalt(2) = -flow * (salt(1) - salt(2))
      dsalt(3) = -flow * (salt(2) - salt(3))
    end if
    temp = temp + dt * (dtemp / volume + 0.1d0 * surface * (relax_temp - temp))
    salt = salt + dt * (dsalt / volume + fresh_water * 35.0d0 / volume)
  end do
  y(1) = hydraulic * (alpha * (temp(2) - temp(1)) - beta * (salt(2) - salt(1)))
  y(2) = temp(1)
  !$openad DEPENDENT(y)
end subroutine head
