! error-at: 9, error-kind: unsupported
! A namelist member that comes to depend on the independents would carry
! derivatives, and its namelist input would change format: refused by
! name at the namelist statement (passive members are fine, example
! namelist_config).
module config
  implicit none
  real(8) :: kappa = 0.1d0
  namelist /physics_nml/ kappa
end module config

subroutine head(x, y)
  use config
  implicit none
  real(8) :: x(2), y(1)
  !$openad INDEPENDENT(x)
  kappa = kappa * x(1)
  y(1) = kappa * x(2)
  !$openad DEPENDENT(y)
end subroutine head
