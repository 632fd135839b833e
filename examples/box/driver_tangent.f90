! Tangent-mode driver for the box model, in the style of OpenAD/F drivers.
! Build:  openad -m f -o out head.f90
!         gfortran $(sed "s|^|out/|" out/SOURCES) driver_tangent.f90
! For each independent x(i) it seeds x(i)%d = 1 and reads the column
! dy/dx(i) from y%d, then compares it with a central finite difference
! computed from y%v of the same code at x(i) +- h (h relative 1e-5: the
! flow is a small difference of large terms, so a smaller step drowns in
! rounding). Exits with status 1
! if the two disagree.
program driver_tangent
  use OAD_active
  implicit none
  integer, parameter :: nx = 6, ny = 2
  type(active) :: x(nx), y(ny), y_scratch(ny)
  double precision :: x0(nx), y_plus(ny), y_minus(ny), fd, h, err, worst
  character(len=12), parameter :: xname(nx) = (/ 'T north     ', 'T tropics   ', &
       'T deep      ', 'S north     ', 'S tropics   ', 'S deep      ' /)
  character(len=14), parameter :: yname(ny) = (/ 'overturning   ', 'T north (50y) ' /)
  integer :: i, k

  x0 = (/ 2.0d0, 20.0d0, 1.0d0, 34.5d0, 35.5d0, 34.8d0 /)
  worst = 0.0d0
  write(*, '(a)') 'tangent mode: dy/dx by openad -m f against central finite differences'
  write(*, '(a14, 1x, a12, 3a22)') 'output', 'input', 'openad', 'finite difference', 'relative error'
  do i = 1, nx
    ! derivative: seed direction e_i
    x%v = x0
    x%d = 0.0d0
    x(i)%d = 1.0d0
    call head(x, y)
    ! finite difference from the values of the same code
    h = 1.0d-5 * max(1.0d0, abs(x0(i)))
    x%d = 0.0d0
    x%v = x0
    x(i)%v = x0(i) + h
    call head(x, y_scratch)
    y_plus = y_scratch%v
    x%v = x0
    x(i)%v = x0(i) - h
    call head(x, y_scratch)
    y_minus = y_scratch%v
    do k = 1, ny
      fd = (y_plus(k) - y_minus(k)) / (2.0d0 * h)
      err = abs(y(k)%d - fd) / max(abs(fd), 1.0d-6 * (1.0d0 + abs(y(k)%v)))
      worst = max(worst, err)
      write(*, '(a14, 1x, a12, 3es22.12)') yname(k), xname(i), y(k)%d, fd, err
    end do
  end do
  write(*, '(a, es10.2)') 'worst relative error: ', worst
  if (worst > 1.0d-5) then
    write(*, '(a)') 'MISMATCH between openad and finite differences'
    stop 1
  end if

end program driver_tangent
