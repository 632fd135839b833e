! Routines without source for openad --black-box: LAPACK's dgesv solves
! A X = B and leaves the LU factors of A (partial pivoting) in a.
subroutine dgesv(n, nrhs, a, lda, ipiv, b, ldb, info)
  tangent dgesv_d
  adjoint dgesv_b
  integer, intent(in) :: n, nrhs, lda, ldb
  real(8), intent(inout), active :: a(lda, *), b(ldb, *)
  integer, intent(out) :: ipiv(*), info
end subroutine

! BLAS dcopy: dy = dx (an intent(in) and an intent(out) active argument).
subroutine dcopy(n, dx, incx, dy, incy)
  tangent dcopy_d
  adjoint dcopy_b
  integer, intent(in) :: n, incx, incy
  real(8), intent(in), active :: dx(*)
  real(8), intent(out), active :: dy(*)
end subroutine
