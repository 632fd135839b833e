C     Fixed-form program whose checkpointed time loop (c$openad pragma,
C     labelled DO) changes a common block that only its callees declare:
C     the adjoint must snapshot the block's members through the module
C     the back end makes of it.
      subroutine init(x)
      double precision x(3)
      double precision q(10), rk
      common /state/ q, rk
      integer i
      do 10 i = 1, 10
        q(i) = x(1) + 0.1d0 * i * x(2)
   10 continue
      rk = x(3)
      end

      subroutine stepit(t)
      integer t
      double precision q(10), rk
      common /state/ q, rk
      integer i
      do 20 i = 2, 10
        q(i) = q(i) + rk * 0.05d0 * (q(i - 1) - q(i)) * (1 + 0.01d0 * t)
   20 continue
      q(1) = q(1) * (0.99d0 + 0.001d0 * sin(q(10)))
      end

      subroutine total(y)
      double precision y(2)
      double precision q(10), rk
      common /state/ q, rk
      integer i
      y(1) = 0
      do 40 i = 1, 10
        y(1) = y(1) + q(i)
   40 continue
      y(2) = q(5) * q(7)
      end

      subroutine head(x, y)
      double precision x(3), y(2)
      integer t
c$openad INDEPENDENT(x)
      call init(x)
c$openad CHECKPOINT BINOMIAL(snapshots=2)
      do 30 t = 1, 15
        call stepit(t)
   30 continue
      call total(y)
c$openad DEPENDENT(y)
      end
