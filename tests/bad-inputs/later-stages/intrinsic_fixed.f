C     Fixed form: the statement the booster refuses (tanh is missing from
C     the catalogue given with --intrinsics) continues on the next line.
      subroutine head(x, y)
      implicit none
      double precision x(2), y(2)
c$openad INDEPENDENT(x)
      y(1) = x(1) *
     &       x(2)
      y(2) = x(2) +
     &       tanh(x(1))
c$openad DEPENDENT(y)
      end
