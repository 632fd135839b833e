C     A FORTRAN 77 box model of the kind old ocean and chemistry codes
C     are: BLOCK DATA sets the parameters and the initial state held in
C     COMMON, a stepping routine reads the parameters and updates the
C     state in COMMON, HEAD copies the initial state, perturbs it with
C     the independents and steps it with a computed GO TO choosing the
C     forcing of each step.
      BLOCK DATA BOXINI
      COMMON /BOXPAR/ RATE, DECAY, T0(4)
      DOUBLE PRECISION RATE, DECAY, T0
      DATA RATE, DECAY /0.25D0, 0.05D0/
      DATA T0 /1.0D0, 2.0D0, 3.0D0, 4.0D0/
      END

      SUBROUTINE STEP(DT, FORCE)
      DOUBLE PRECISION DT, FORCE
      COMMON /BOXPAR/ RATE, DECAY, T0(4)
      DOUBLE PRECISION RATE, DECAY, T0
      COMMON /BOXST/ T(4)
      DOUBLE PRECISION T
      INTEGER I
      T(1) = T(1) + DT * FORCE
      DO 10 I = 2, 4
        T(I) = T(I) + DT * RATE * (T(I-1) - T(I)) - DT * DECAY * T(I)**2
 10   CONTINUE
      END

      SUBROUTINE HEAD(X, Y)
      DOUBLE PRECISION X(3), Y(2)
      COMMON /BOXPAR/ RATE, DECAY, T0(4)
      DOUBLE PRECISION RATE, DECAY, T0
      COMMON /BOXST/ T(4)
      DOUBLE PRECISION T
      DOUBLE PRECISION F
      INTEGER I, K, KIND
C$OPENAD INDEPENDENT(X)
      DO 20 I = 1, 4
        T(I) = T0(I) * X(1)
 20   CONTINUE
      DO 40 K = 1, 9
        KIND = MOD(K, 3) + 1
        GO TO (31, 32, 33), KIND
 31     F = X(2)
        GO TO 39
 32     F = X(2) * X(3)
        GO TO 39
 33     F = SIN(X(3))
 39     CALL STEP(0.5D0, F)
 40   CONTINUE
      Y(1) = T(4)
      Y(2) = T(1) * T(3)
C$OPENAD DEPENDENT(Y)
      END
