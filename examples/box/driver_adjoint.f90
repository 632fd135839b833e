! Adjoint-mode (split) driver for the box model, in the style of OpenAD/F
! drivers.
! Build:  openad -m rs -o out head.f90
!         gfortran $(sed "s|^|out/|" out/SOURCES) driver_adjoint.f90
! For each output y(k): a taping run (forward sweep), then an adjoint run
! with y(k)%d = 1 that leaves the gradient dy(k)/dx in x%d. The gradient
! is compared with central finite differences computed from plain runs
! of the same code. Exits with status 1 if they disagree.
program driver_adjoint
  use OAD_active
  use OAD_rev
  use OAD_tape
  implicit none
  integer, parameter :: nx = 6, ny = 2
  type(active) :: x(nx), y(ny)
  double precision :: x0(nx), gradient(nx), y_plus, y_minus, fd, h, err, worst
  character(len=12), parameter :: xname(nx) = (/ 'T north     ', 'T tropics   ', &
       'T deep      ', 'S north     ', 'S tropics   ', 'S deep      ' /)
  character(len=14), parameter :: yname(ny) = (/ 'overturning   ', 'T north (50y) ' /)
  integer :: i, k

  x0 = (/ 2.0d0, 20.0d0, 1.0d0, 34.5d0, 35.5d0, 34.8d0 /)
  worst = 0.0d0
  call tape_init()
  write(*, '(a)') 'adjoint mode: gradients by openad -m rs against central finite differences'
  write(*, '(a14, 1x, a12, 3a22)') 'output', 'input', 'openad', 'finite difference', 'relative error'
  do k = 1, ny
    ! forward sweep: compute y and record the tape
    x%v = x0
    x%d = 0.0d0
    y%d = 0.0d0
    call set_mode(tape=.true.)
    call head(x, y)
    ! reverse sweep: x%d += (dy/dx)^T y%d
    y%d = 0.0d0
    y(k)%d = 1.0d0
    call set_mode(adjoint=.true.)
    call head(x, y)
    gradient = x%d

    do i = 1, nx
      h = 1.0d-5 * max(1.0d0, abs(x0(i)))
      call set_mode(plain=.true.)
      x%v = x0
      x(i)%v = x0(i) + h
      call head(x, y)
      y_plus = y(k)%v
      x%v = x0
      x(i)%v = x0(i) - h
      call head(x, y)
      y_minus = y(k)%v
      fd = (y_plus - y_minus) / (2.0d0 * h)
      err = abs(gradient(i) - fd) / max(abs(fd), 1.0d-6 * (1.0d0 + abs(y(k)%v)))
      worst = max(worst, err)
      write(*, '(a14, 1x, a12, 3es22.12)') yname(k), xname(i), gradient(i), fd, err
    end do
  end do
  write(*, '(a, es10.2)') 'worst relative error: ', worst
  if (worst > 1.0d-5) then
    write(*, '(a)') 'MISMATCH between openad and finite differences'
    stop 1
  end if

contains

  ! Exactly one of the switches on (plain, tape or adjoint).
  subroutine set_mode(plain, tape, adjoint)
    logical, intent(in), optional :: plain, tape, adjoint
    our_rev_mode%arg_store = .false.
    our_rev_mode%arg_restore = .false.
    our_rev_mode%res_store = .false.
    our_rev_mode%res_restore = .false.
    our_rev_mode%plain = present(plain)
    our_rev_mode%tape = present(tape)
    our_rev_mode%adjoint = present(adjoint)
  end subroutine set_mode

end program driver_adjoint
