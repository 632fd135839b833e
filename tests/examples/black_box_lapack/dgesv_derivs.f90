! Hand-written derivatives of LAPACK's dgesv for the black-box
! declaration in lapack.bb (convention: docs/user-guide.md, "Routines
! without source"). dgesv factors P A = L U (L unit lower, U upper, both
! left in a; the row interchanges P in ipiv) and overwrites b with
! X = A^-1 B.

! Tangent: on entry a = A, ad = dA, b = B, bd = dB; on exit a and b as
! dgesv leaves them, bd = dX = A^-1 (dB - dA X), and ad the derivative
! of the factors: with M = L^-1 P dA U^-1, dL = L * strict_lower(M),
! dU = upper(M) * U.
subroutine dgesv_d(n, nrhs, a, ad, lda, ipiv, b, bd, ldb, info)
  implicit none
  integer, intent(in) :: n, nrhs, lda, ldb
  real(8), intent(inout) :: a(lda, *), ad(lda, *), b(ldb, *), bd(ldb, *)
  integer, intent(out) :: ipiv(*), info
  real(8) :: m(n, n), lower(n, n), upper(n, n)
  integer :: i, j
  call dgesv(n, nrhs, a, lda, ipiv, b, ldb, info)
  if (info /= 0) return
  call dgemm('N', 'N', n, nrhs, n, -1.0d0, ad, lda, b, ldb, 1.0d0, bd, ldb)
  call dgetrs('N', n, nrhs, a, lda, ipiv, bd, ldb, info)
  m = ad(1:n, 1:n)
  call dlaswp(n, m, n, 1, n, ipiv, 1)
  call dtrsm('L', 'L', 'N', 'U', n, n, 1.0d0, a, lda, m, n)
  call dtrsm('R', 'U', 'N', 'N', n, n, 1.0d0, a, lda, m, n)
  lower = 0.0d0
  upper = 0.0d0
  do j = 1, n
    do i = 1, n
      if (i > j) then
        lower(i, j) = m(i, j)
      else
        upper(i, j) = m(i, j)
      end if
    end do
  end do
  call dtrmm('L', 'L', 'N', 'U', n, n, 1.0d0, a, lda, lower, n)
  call dtrmm('R', 'U', 'N', 'N', n, n, 1.0d0, a, lda, upper, n)
  ad(1:n, 1:n) = lower + upper
end subroutine dgesv_d

! Adjoint: on entry a = A and b = B as they were at the call, ab the
! adjoint of the factors dgesv left in a, bb the adjoint of X; on exit
! ab = adjoint of A = P^T L^-T G U^-T - lambda X^T with
! G = strict_lower(L^T Lbar) + upper(Ubar U^T), bb = lambda = A^-T Xbar.
subroutine dgesv_b(n, nrhs, a, ab, lda, ipiv, b, bb, ldb, info)
  implicit none
  integer, intent(in) :: n, nrhs, lda, ldb
  real(8), intent(inout) :: a(lda, *), ab(lda, *), b(ldb, *), bb(ldb, *)
  integer, intent(out) :: ipiv(*), info
  real(8) :: lower(n, n), upper(n, n), g(n, n), lambda(n, nrhs)
  integer :: i, j
  call dgesv(n, nrhs, a, lda, ipiv, b, ldb, info)
  if (info /= 0) return
  lambda = bb(1:n, 1:nrhs)
  call dgetrs('T', n, nrhs, a, lda, ipiv, lambda, n, info)
  lower = 0.0d0
  upper = 0.0d0
  do j = 1, n
    do i = 1, n
      if (i > j) then
        lower(i, j) = ab(i, j)
      else
        upper(i, j) = ab(i, j)
      end if
    end do
  end do
  call dtrmm('L', 'L', 'T', 'U', n, n, 1.0d0, a, lda, lower, n)
  call dtrmm('R', 'U', 'T', 'N', n, n, 1.0d0, a, lda, upper, n)
  do j = 1, n
    do i = 1, n
      if (i > j) then
        g(i, j) = lower(i, j)
      else
        g(i, j) = upper(i, j)
      end if
    end do
  end do
  call dtrsm('L', 'L', 'T', 'U', n, n, 1.0d0, a, lda, g, n)
  call dtrsm('R', 'U', 'T', 'N', n, n, 1.0d0, a, lda, g, n)
  call dlaswp(n, g, n, 1, n, ipiv, -1)
  call dgemm('N', 'T', n, n, nrhs, -1.0d0, lambda, n, b, ldb, 1.0d0, g, n)
  ab(1:n, 1:n) = g
  bb(1:n, 1:nrhs) = lambda
end subroutine dgesv_b

! BLAS dcopy (dy = dx): the tangent copies the derivatives too; the
! adjoint increments dxb by dyb (the tool zeroes dyb afterwards: dy is
! intent(out)).
subroutine dcopy_d(n, dx, dxd, incx, dy, dyd, incy)
  implicit none
  integer, intent(in) :: n, incx, incy
  real(8), intent(in) :: dx(*), dxd(*)
  real(8), intent(out) :: dy(*), dyd(*)
  call dcopy(n, dx, incx, dy, incy)
  call dcopy(n, dxd, incx, dyd, incy)
end subroutine dcopy_d

subroutine dcopy_b(n, dx, dxb, incx, dy, dyb, incy)
  implicit none
  integer, intent(in) :: n, incx, incy
  real(8), intent(in) :: dx(*), dy(*), dyb(*)
  real(8), intent(inout) :: dxb(*)
  call daxpy(n, 1.0d0, dyb, incy, dxb, incx)
end subroutine dcopy_b
