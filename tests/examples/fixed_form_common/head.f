C     Classic FORTRAN 77: implicit typing, common blocks, data statements,
C     arithmetic statement function, computed loop over a table.
      SUBROUTINE HEAD(X, Y)
      IMPLICIT DOUBLE PRECISION (A-H, O-Z)
      DIMENSION X(4), Y(2), W(4)
      COMMON /COEFS/ C0, C1
      DATA W /1.0D0, 0.5D0, 0.25D0, 0.125D0/
C     statement function
      POLY(T) = C0 + C1 * T + T * T
c$openad INDEPENDENT(x)
      C0 = X(1)
      C1 = X(2) * 0.5D0
      S = 0.0D0
      DO 100 K = 1, 4
         S = S + W(K) * POLY(X(K))
  100 CONTINUE
      Y(1) = S
      Y(2) = POLY(S) * C1
c$openad DEPENDENT(y)
      END
