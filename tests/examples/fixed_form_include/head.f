C     Fixed form with an INCLUDE file that declares a parameter and a
C     common block shared by two routines.
      SUBROUTINE SETGRD(X)
      IMPLICIT NONE
      INCLUDE 'params.inc'
      DOUBLE PRECISION X(2)
      INTEGER I
      DO 10 I = 1, NPTS
         XS(I) = X(1) + DBLE(I - 1) * X(2)
   10 CONTINUE
      SCALE = X(2) * 2.0D0
      RETURN
      END

      SUBROUTINE HEAD(X, Y)
      IMPLICIT NONE
      INCLUDE 'params.inc'
      DOUBLE PRECISION X(2), Y(2)
      INTEGER I
c$openad INDEPENDENT(x)
      CALL SETGRD(X)
      Y(1) = 0.0D0
      Y(2) = 0.0D0
      DO 20 I = 1, NPTS
         Y(1) = Y(1) + XS(I)**2 * SCALE
         IF (XS(I) .GT. 1.0D0) Y(2) = Y(2) + LOG(XS(I))
   20 CONTINUE
c$openad DEPENDENT(y)
      RETURN
      END
