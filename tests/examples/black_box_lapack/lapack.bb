! Routines without source for openad --black-box: LAPACK's dgesv solves
! A X = B and leaves the LU factors of A (partial pivoting) in a.
subroutine dgesv(n, nrhs, a, lda, ipiv, b, ldb, info)
  tangent dgesv_d
  adjoint dgesv_b
  integer, intent(in) :: n, nrhs, lda, ldb
  real(8), intent(inout), active :: a(lda, *), b(ldb, *)
  integer, intent(out) :: ipiv(*), info
end subroutine
