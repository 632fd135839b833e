C     Fixed-form source: comment lines in column 1 (C, c, *, !),
c     continuation lines (mark in column 6) and sequence numbers in
*     columns 73-80 that the compiler must ignore.
      SUBROUTINE HEAD(X, Y)                                             HEAD0010
      IMPLICIT NONE                                                     HEAD0020
      DOUBLE PRECISION X(3), Y(2)                                       HEAD0030
      DOUBLE PRECISION T                                                HEAD0040
      INTEGER I                                                         HEAD0050
c$openad INDEPENDENT(x)
      T = X(1) * X(2)                                                   HEAD0060
      Y(1) = T + X(3) * X(3) - 0.5D0 * X(1)                             * 9.0D0
     &       + SIN(X(2))                                                HEAD0070
      Y(2) = 0.0D0
      DO 10 I = 1, 3
         Y(2) = Y(2) +                                                  HEAD0080
     1          X(I) * DBLE(I)                                          HEAD0090
     2          * T                                                     HEAD0100
   10 CONTINUE
!     a comment with ! in column 1
      Y(1) = Y(1) * X(1) + 0.25D0 * X(2) * X(3) + 0.125D0*X(1)*X(1)+X(2)*X(3)**9
c$openad DEPENDENT(y)
      END
