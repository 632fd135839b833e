! Generic interfaces as library-style model code writes them: public
! generic names over private specifics, resolved by rank (norms of a
! field and of a column), by type (a scale factor given as a real or as
! an integer count), by keyword arguments; a generic renamed on `use`
! (`only: field_norm => norm`), a variable renamed without `only`
! (`use grid_state, mass => total`), all inside a time loop.
module grid_state
  implicit none
  real(8) :: total = 0.0d0
end module grid_state

module field_ops
  implicit none
  private
  public :: norm, relax, axpy

  interface norm
    module procedure norm_vector, norm_matrix
  end interface norm

  interface relax
    module procedure relax_by_factor, relax_by_count
  end interface

  interface axpy
    module procedure axpy_vector
    module procedure axpy_matrix
  end interface axpy
contains
  real(8) function norm_vector(v) result(s)
    real(8), intent(in) :: v(:)
    s = sqrt(sum(v**2))
  end function norm_vector

  function norm_matrix(a) result(s)
    real(8), intent(in) :: a(:, :)
    real(8) :: s
    s = sqrt(sum(a**2)) / size(a, 2)
  end function norm_matrix

  subroutine relax_by_factor(a, factor)
    real(8), intent(inout) :: a(:, :)
    real(8), intent(in) :: factor
    integer :: i, j
    do j = 1, size(a, 2)
      do i = 2, size(a, 1) - 1
        a(i, j) = a(i, j) + factor * (a(i - 1, j) - 2.0d0 * a(i, j) + a(i + 1, j))
      end do
    end do
  end subroutine relax_by_factor

  subroutine relax_by_count(a, count)
    real(8), intent(inout) :: a(:, :)
    integer, intent(in) :: count
    integer :: k
    do k = 1, count
      call relax_by_factor(a, 0.1d0)
    end do
  end subroutine relax_by_count

  subroutine axpy_vector(alpha, x, y)
    real(8), intent(in) :: alpha, x(:)
    real(8), intent(inout) :: y(:)
    y = y + alpha * x
  end subroutine axpy_vector

  subroutine axpy_matrix(alpha, x, y)
    real(8), intent(in) :: alpha, x(:, :)
    real(8), intent(inout) :: y(:, :)
    y = y + alpha * x
  end subroutine axpy_matrix
end module field_ops

subroutine head(x, y)
  use field_ops, only: field_norm => norm, relax, axpy
  use grid_state, mass => total
  implicit none
  real(8), intent(in) :: x(6)
  real(8), intent(out) :: y(3)
  real(8) :: t(4, 3), t0(4, 3), col(4), c
  integer :: i, j, step
  !$openad INDEPENDENT(x)
  do j = 1, 3
    do i = 1, 4
      t(i, j) = x(i) * (1.0d0 + 0.1d0 * j) + x(5) * j
    end do
  end do
  col = x(1:4)
  mass = 0.0d0
  do step = 1, 4
    c = 0.05d0 * x(6)
    call relax(t, c)
    call relax(t, 2)
    col = t(:, 2)
    call axpy(0.5d0, col, t(:, 1))
    t0 = t
    call axpy(alpha=c, x=t0, y=t)
    mass = mass + field_norm(col)
  end do
  y(1) = field_norm(t)
  y(2) = field_norm(t(:, 3)) * mass
  y(3) = mass
  !$openad DEPENDENT(y)
end subroutine head
