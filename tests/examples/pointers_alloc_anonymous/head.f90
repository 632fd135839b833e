! A tracer column: the column state is a pointer allocated in the driver
! and handed to routines whose dummies are pointers; the fluxes live in
! module storage reached through pointers associated once at setup.
module column
  implicit none
  integer, parameter :: nz = 4
  double precision, target :: flux_store(nz + 1)
  double precision, pointer :: flux(:)
  double precision, pointer :: inner(:)
contains
  subroutine init_column()
    flux => flux_store
    inner => flux_store(2:nz)
  end subroutine init_column

  subroutine fluxes(q, f, w)
    double precision, pointer :: q(:), f(:)
    double precision, intent(in) :: w
    integer :: k
    f(1) = 0.0d0
    do k = 2, size(q)
      f(k) = w * q(k-1) * q(k) / (q(k-1) + q(k))
    end do
    f(size(q) + 1) = w * q(size(q))
  end subroutine fluxes

  subroutine update(q, f, dt)
    double precision, pointer :: q(:), f(:)
    double precision, intent(in) :: dt
    integer :: k
    do k = 1, size(q)
      q(k) = q(k) - dt * (f(k+1) - f(k))
    end do
  end subroutine update
end module column

subroutine head(x, y)
  use column
  implicit none
  double precision :: x(4), y(3)
  double precision, pointer :: c(:)
  integer :: t
  !$openad INDEPENDENT(x)
  call init_column()
  allocate(c(nz))
  c = x
  do t = 1, 6
    call fluxes(c, flux, 0.3d0)
    call update(c, flux, 0.5d0)
  end do
  y(1) = sum(c)
  y(2) = c(1) * c(nz)
  y(3) = sum(inner * c(1:nz-1))
  if (associated(c)) deallocate(c)
  !$openad DEPENDENT(y)
end subroutine head
