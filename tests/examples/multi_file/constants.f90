! First file: a module with constants and a shared work array.
module constants
  implicit none
  integer, parameter :: nstep = 5
  double precision, parameter :: dt = 0.1d0
  double precision :: work(2)
end module constants
