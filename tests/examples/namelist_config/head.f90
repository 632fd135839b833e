! A reaction-diffusion rod configured the way models are: a config module
! reads its parameters from a namelist file in a set-up routine (defaults
! in the declarations, `nml=` form, iostat checked), a second group read in
! the positional form sets the output options, and the time loop uses
! the parameters as coefficients, loop bounds and a branch switch; the
! file's name is a deferred-length character variable of the module. The
! namelist members stay passive; the differentiated code reads the same
! file.
module rod_config
  implicit none
  real(8) :: diffusivity = 0.1d0
  real(8) :: reaction = 0.01d0
  integer :: nsteps = 10
  logical :: cubic = .true.
  character(len=:), allocatable :: config_path
  namelist /physics_nml/ diffusivity, reaction, &
                         nsteps, cubic
contains
  subroutine read_config(path)
    character(len=*), intent(in) :: path
    integer :: unit, ios
    open(newunit=unit, file=path, status='old', action='read', iostat=ios)
    if (ios /= 0) stop 'read_config: cannot open the namelist file'
    read(unit, nml=physics_nml, iostat=ios)
    if (ios /= 0) stop 'read_config: bad physics_nml'
    close(unit)
  end subroutine read_config
end module rod_config

subroutine head(x, y)
  use rod_config
  implicit none
  real(8), intent(in) :: x(5)
  real(8), intent(out) :: y(2)
  real(8) :: u(5), un(5)
  integer :: k, i, unit, every
  real(8) :: weight
  namelist /output_nml/ every, weight
  !$openad INDEPENDENT(x)
  config_path = 'rod' // '.nml'
  call read_config(config_path)
  every = 1
  weight = 1.0d0
  open(newunit=unit, file=config_path, status='old', action='read')
  read(unit, output_nml)
  close(unit)
  u = x
  y(2) = 0.0d0
  do k = 1, nsteps
    un = u
    do i = 2, 4
      if (cubic) then
        un(i) = u(i) + diffusivity * (u(i-1) - 2*u(i) + u(i+1)) - reaction * u(i)**3
      else
        un(i) = u(i) + diffusivity * (u(i-1) - 2*u(i) + u(i+1)) - reaction * u(i)
      end if
    end do
    u = un
    if (mod(k, every) == 0) y(2) = y(2) + weight * u(3)
  end do
  y(1) = sum(u**2)
  !$openad DEPENDENT(y)
end subroutine head
