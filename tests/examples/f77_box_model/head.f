C     A Stommel-type box model of the thermohaline circulation in the
C     style of the 1980s: common blocks, implicit typing with REAL*8,
C     DATA statements, labelled DO loops ending on CONTINUE, a backward
C     GOTO loop for the sub-steps, arithmetic IF, the specific intrinsics
C     DMAX1, DABS, DSIGN, DSQRT, DEXP, DFLOAT and IDINT. Members of a
C     common block are active in the units that never name them (HEAD)
C     and in a unit that reads them passively (CENSUS).
C     Parameters: x(1) thermal forcing, x(2) freshwater flux,
C     x(3) flow constant.
      SUBROUTINE HEAD(X, Y)
      IMPLICIT REAL*8 (A-H, O-Z)
      DIMENSION X(3), Y(2)
      COMMON /BOXES/ T(4), S(4), VOL(4)
      COMMON /COEFS/ ALPHA, BETA, FLOWK
C$OPENAD INDEPENDENT(X)
      CALL SETUP(X(3))
      DO 20 NYEAR = 1, 30
         CALL YEAR(X(1), X(2))
         CALL CENSUS(NWARM)
         IF (NWARM .GE. 1 .AND. MOD(NYEAR, 10) .EQ. 0)
     &      CALL YEAR(0.5D0 * X(1), 0.0D0)
   20 CONTINUE
      Y(1) = FLOW()
      Y(2) = 0.0D0
      DO 30 I = 1, 4
         Y(2) = Y(2) + VOL(I) * S(I) / 4.0D0
   30 CONTINUE
C$OPENAD DEPENDENT(Y)
      END

      SUBROUTINE SETUP(FK)
      IMPLICIT REAL*8 (A-H, O-Z)
      COMMON /BOXES/ T(4), S(4), VOL(4)
      COMMON /COEFS/ ALPHA, BETA, FLOWK
      DIMENSION T0(4), S0(4)
      DATA T0 /25.0D0, 5.0D0, 10.0D0, 2.0D0/
      DATA S0 /36.0D0, 34.5D0, 35.0D0, 34.8D0/
      ALPHA = 1.7D-4
      BETA = 7.6D-4
      FLOWK = FK * 1.5D0
      DO 10 I = 1, 4
         T(I) = T0(I)
         S(I) = S0(I)
         VOL(I) = 1.0D0 + 0.25D0 * DFLOAT(I)
   10 CONTINUE
      END

      REAL*8 FUNCTION FLOW()
      IMPLICIT REAL*8 (A-H, O-Z)
      COMMON /BOXES/ T(4), S(4), VOL(4)
      COMMON /COEFS/ ALPHA, BETA, FLOWK
      RHON = -ALPHA * T(2) + BETA * S(2)
      RHOS = -ALPHA * T(1) + BETA * S(1)
      FLOW = FLOWK * DSIGN(DSQRT(DABS(RHON - RHOS) + 1.0D-8),
     &                     RHON - RHOS)
      END

C     Counts the warm boxes: reads the common block only passively.
      SUBROUTINE CENSUS(NWARM)
      IMPLICIT REAL*8 (A-H, O-Z)
      COMMON /BOXES/ T(4), S(4), VOL(4)
      NWARM = 0
      DO 10 I = 1, 4
         IF (T(I) .GT. 12.0D0) NWARM = NWARM + 1
   10 CONTINUE
      END

      SUBROUTINE YEAR(TF, FW)
      IMPLICIT REAL*8 (A-H, O-Z)
      COMMON /BOXES/ T(4), S(4), VOL(4)
      COMMON /COEFS/ ALPHA, BETA, FLOWK
      DIMENSION DT(4), DS(4)
      NSUB = IDINT(4.0D0 + 0.5D0)
      H = 1.0D0 / DFLOAT(NSUB)
      K = 0
  100 CONTINUE
      K = K + 1
      Q = FLOW()
      IF (Q) 110, 120, 120
  110 Q = 0.2D0 * Q
  120 CONTINUE
      DO 130 I = 1, 4
         INEXT = MOD(I, 4) + 1
         IPREV = MOD(I + 2, 4) + 1
         DT(I) = Q * (T(IPREV) - T(I)) / VOL(I)
         DS(I) = Q * (S(IPREV) - S(I)) / VOL(I)
  130 CONTINUE
      DT(1) = DT(1) + TF * (28.0D0 - T(1)) * 0.1D0
      DT(2) = DT(2) + TF * (1.0D0 - T(2)) * 0.1D0
      DS(1) = DS(1) + FW * 0.05D0 * DEXP(-0.01D0 * T(1))
      DS(2) = DS(2) - FW * 0.05D0
      DO 140 I = 1, 4
         T(I) = T(I) + H * DT(I)
         S(I) = DMAX1(S(I) + H * DS(I), 30.0D0)
  140 CONTINUE
      IF (K .LT. NSUB) GOTO 100
      END
