! Particles on a 1-D mesh: values gathered from the mesh through an index
! array with repeated indices (vector subscripts on the right side; the
! adjoint must accumulate into the repeated mesh cells), scattered back
! through a permutation (vector subscript on the left side), a
! vector-subscripted section passed to a routine, and the positions of the
! largest and smallest cells (maxloc/minloc) used as subscripts.
module particles
  implicit none
  integer, parameter :: ncell = 6, npart = 8
  integer :: cell_of(npart) = (/ 2, 3, 3, 5, 1, 3, 6, 2 /)
  integer :: perm(ncell) = (/ 4, 1, 6, 2, 5, 3 /)
contains
  subroutine relax(v, k)
    double precision, intent(in) :: v(:)
    double precision, intent(out) :: k
    k = 0.1d0 * sum(v**2) / size(v)
  end subroutine relax

  subroutine push(mesh, p, dt)
    double precision, intent(inout) :: mesh(ncell), p(npart)
    double precision, intent(in) :: dt
    double precision :: near(npart), pmax
    ! Gather: cells 2 and 3 are read by several particles.
    near = mesh(cell_of)
    p = p + dt * (near - 0.5d0*p) * mesh(cell_of(npart:1:-1))
    ! Deposit back into a permuted mesh (no repeated index on the left).
    mesh(perm) = 0.9d0*mesh + 0.05d0*mesh(perm)
    mesh(perm(1:3)) = mesh(perm(1:3)) + 0.1d0*p(1:3)
    ! The hottest and coldest cells, by position.
    pmax = maxval(p)
    mesh(maxloc(mesh)) = 0.5d0*(mesh(maxloc(mesh)) + pmax)
    mesh(minloc(mesh, dim=1)) = mesh(minloc(mesh, dim=1)) + 0.1d0*p(maxloc(p, dim=1))
  end subroutine push
end module particles

subroutine head(x, y)
  use particles
  implicit none
  double precision :: x(14), y(3)
  double precision :: mesh(ncell), p(npart), k
  integer :: step
  !$openad INDEPENDENT(x)
  mesh = x(1:ncell)
  p = x(ncell+1:ncell+npart)
  do step = 1, 3
    call push(mesh, p, 0.3d0)
    call relax(mesh(cell_of), k)
    mesh = mesh * (1 - k)
  end do
  y(1) = sum(mesh)
  y(2) = sum(p * mesh(cell_of))
  y(3) = mesh(maxloc(p(1:ncell), dim=1)) * p(minloc(mesh, dim=1))
  !$openad DEPENDENT(y)
end subroutine head
