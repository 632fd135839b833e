! Small copy of bench/programs/chembox (6 cells, 5 steps): a chemistry box
! model per cell of a 1-D column, stepped explicitly in time. 12 species,
! 26 reactions (photolysis, Arrhenius rates k = a exp(-e/T), two Troe fall-off
! rates), emissions of NO and CO. The cell update is one straight-line basic
! block of ~90 assignments with few inputs and 12 outputs.
! Parameters: x(1) temperature scale, x(2) initial ozone, x(3) photolysis
! scale, x(4) NO emission rate. Outputs: mean ozone, nitric acid at a cell.
module chembox_size
  implicit none
  integer, parameter :: n = 6 ! bench-size
  integer, parameter :: nsteps = 5 ! bench-steps
  integer, parameter :: ns = 12
end module chembox_size

subroutine head(x, y)
  use chembox_size
  implicit none
  double precision :: x(4), y(2)
  double precision :: conc(ns, n), temp(n), jph(n), emis(n)
  double precision :: o3, o, o1d, no, no2, no3, n2o5, hno3, oh, ho2, h2o2, co
  double precision :: tc, rt, jp, en, mm, dt, ph
  double precision :: k3, k4, k5, k6, k8, k10, k11, k12, k13, k14, k15, k16
  double precision :: k17, k18, k19, k21, k22, k23, k24, k26
  double precision :: k0, kinf, fr
  double precision :: r1, r2, r3, r4, r5, r6, r7, r8, r9, r10, r11, r12, r13
  double precision :: r14, r15, r16, r17, r18, r19, r20, r21, r22, r23, r24, r25, r26
  integer :: i, s, step
  !$openad INDEPENDENT(x)
  dt = 0.02d0
  mm = 2.5d0
  do i = 1, n
    ph = 6.2831853d0 * (i - 0.5d0) / n
    temp(i) = x(1) * (1.0d0 + 0.1d0 * sin(ph))
    jph(i) = x(3) * (1.1d0 + sin(2.0d0 * ph))
    emis(i) = x(4) * (1.0d0 + 0.5d0 * cos(ph))
    do s = 1, ns
      conc(s, i) = 0.2d0 + 0.05d0 * s * (1.0d0 + 0.3d0 * cos(s * ph))
    end do
    conc(1, i) = x(2) * (1.0d0 + 0.2d0 * sin(3.0d0 * ph))
  end do
  do step = 1, nsteps
    do i = 1, n
      tc = temp(i)
      jp = jph(i)
      en = emis(i)
      o3 = conc(1, i)
      o = conc(2, i)
      o1d = conc(3, i)
      no = conc(4, i)
      no2 = conc(5, i)
      no3 = conc(6, i)
      n2o5 = conc(7, i)
      hno3 = conc(8, i)
      oh = conc(9, i)
      ho2 = conc(10, i)
      h2o2 = conc(11, i)
      co = conc(12, i)
      ! rate constants
      rt = 1.0d0 / tc
      k3 = 1.2d0 * mm * exp(0.3d0 * rt)
      k4 = 2.0d0 * mm * exp(-0.1d0 * rt)
      k5 = 1.5d0 * exp(-0.2d0 * rt)
      k6 = 3.0d0 * exp(-1.5d0 * rt)
      k8 = 0.8d0 * exp(-2.4d0 * rt)
      k10 = 1.8d0 * exp(0.11d0 * rt)
      k0 = 0.9d0 * rt**3 * mm
      kinf = 1.9d0 * rt**0.7d0
      fr = k0 / kinf
      k11 = k0 / (1.0d0 + fr) * 0.6d0**(1.0d0 / (1.0d0 + log10(fr)**2))
      k12 = 2.6d0 * exp(-1.1d0 * rt) * k11
      k13 = 0.05d0 * exp(-0.4d0 * rt)
      k0 = 1.1d0 * rt**2.9d0 * mm
      kinf = 2.5d0 * rt**1.3d0
      fr = k0 / kinf
      k14 = k0 / (1.0d0 + fr) * 0.41d0**(1.0d0 / (1.0d0 + log10(fr)**2))
      k15 = 0.7d0 * exp(0.78d0 * rt)
      k16 = 1.7d0 * exp(-0.94d0 * rt)
      k17 = 1.0d0 * exp(-0.49d0 * rt)
      k18 = 3.5d0 * exp(0.25d0 * rt)
      k19 = (0.3d0 * exp(0.46d0 * rt) + 0.17d0 * mm * exp(0.98d0 * rt)) * (1.0d0 + 0.1d0 * rt * rt)
      k21 = 1.5d0 * (1.0d0 + 0.6d0 * mm / tc)
      k22 = 4.8d0 * exp(0.25d0 * rt)
      k23 = 0.8d0 * exp(-2.06d0 * rt)
      k24 = 5.5d0 * exp(0.188d0 * rt)
      k26 = 2.9d0 * exp(-0.16d0 * rt)
      ! reaction rates
      r1 = jp * o3
      r2 = 0.1d0 * jp * o3
      r3 = k3 * o
      r4 = k4 * o1d
      r5 = k5 * o1d
      r6 = k6 * no * o3
      r7 = 0.5d0 * jp * no2
      r8 = k8 * no2 * o3
      r9 = 2.0d0 * jp * no3
      r10 = k10 * no3 * no
      r11 = k11 * no2 * no3
      r12 = k12 * n2o5
      r13 = k13 * n2o5
      r14 = k14 * oh * no2
      r15 = k15 * hno3 * oh
      r16 = k16 * oh * o3
      r17 = k17 * ho2 * o3
      r18 = k18 * ho2 * no
      r19 = k19 * ho2 * ho2
      r20 = 0.2d0 * jp * h2o2
      r21 = k21 * oh * co
      r22 = k22 * oh * ho2
      r23 = k23 * o * o3
      r24 = k24 * o * no2
      r25 = 0.05d0 * jp * hno3
      r26 = k26 * h2o2 * oh
      ! explicit Euler step
      o3 = o3 + dt * (r3 - r1 - r2 - r6 - r8 - r16 - r17 - r23)
      o = o + dt * (r1 + r4 + r7 + r9 - r3 - r23 - r24)
      o1d = o1d + dt * (r2 - r4 - r5)
      no = no + dt * (r7 + r24 + en - r6 - r10 - r18)
      no2 = no2 + dt * (r6 + 2.0d0 * r10 + r12 + r18 + r25 - r7 - r8 - r11 - r14 - r24)
      no3 = no3 + dt * (r8 + r12 + r15 - r9 - r10 - r11)
      n2o5 = n2o5 + dt * (r11 - r12 - r13)
      hno3 = hno3 + dt * (2.0d0 * r13 + r14 - r15 - r25)
      oh = oh + dt * (2.0d0 * r5 + r17 + r18 + 2.0d0 * r20 + r25 - r14 - r15 - r16 - r21 - r22 - r26)
      ho2 = ho2 + dt * (r16 + r21 + r26 - r17 - r18 - 2.0d0 * r19 - r22)
      h2o2 = h2o2 + dt * (r19 - r20 - r26)
      co = co + dt * (0.5d0 * en - r21)
      conc(1, i) = o3
      conc(2, i) = o
      conc(3, i) = o1d
      conc(4, i) = no
      conc(5, i) = no2
      conc(6, i) = no3
      conc(7, i) = n2o5
      conc(8, i) = hno3
      conc(9, i) = oh
      conc(10, i) = ho2
      conc(11, i) = h2o2
      conc(12, i) = co
    end do
  end do
  y(1) = 0.0d0
  do i = 1, n
    y(1) = y(1) + conc(1, i) / n
  end do
  y(2) = conc(8, n / 2)
  !$openad DEPENDENT(y)
end subroutine head
