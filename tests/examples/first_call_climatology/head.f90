! A land-surface bucket model in the way such codes set themselves up: a
! climatology computed on the first call of the forcing routine and kept
! in a `save` variable behind a module flag that the
! set-up routine raises, a private module state
! with public accessors, named nested loops left by `exit` and skipped by
! `cycle` with the construct's name, and an intent(out) derived-type
! diagnostic. Parameters: x(1) soil capacity, x(2) rain amplitude,
! x(3) evaporation coefficient.
module bucket_model
  implicit none
  private
  public :: nday, ncell, init_bucket, advance_day, total_water, diag_type, diagnose
  integer, parameter :: nday = 40, ncell = 12
  double precision :: w(ncell), capacity
  ! Set by init_bucket: the forcing computes its climatology again on its
  ! next call (each run of the model starts from scratch).
  logical :: fresh_run = .true.
  type diag_type
    double precision :: runoff, wettest
    integer :: nsaturated
  end type diag_type
contains
  subroutine init_bucket(cap)
    double precision, intent(in) :: cap
    capacity = cap
    w = 0.3d0 * cap
    fresh_run = .true.
  end subroutine init_bucket

  subroutine forcing(day, amp, rain)
    integer, intent(in) :: day
    double precision, intent(in) :: amp
    double precision, intent(out) :: rain(ncell)
    double precision, save :: clim(ncell)
    integer :: i
    if (fresh_run) then
      do i = 1, ncell
        clim(i) = amp * (1.0d0 + 0.5d0 * sin(0.7d0 * i))
      end do
      fresh_run = .false.
    end if
    rain = clim * (1.0d0 + 0.3d0 * cos(0.9d0 * day))
  end subroutine forcing

  subroutine advance_day(day, amp, evap, runoff)
    integer, intent(in) :: day
    double precision, intent(in) :: amp, evap
    double precision, intent(inout) :: runoff
    double precision :: rain(ncell), excess
    integer :: i, sub
    call forcing(day, amp, rain)
    cells: do i = 1, ncell
      if (mod(i + day, 7) == 0) cycle cells
      substeps: do sub = 1, 4
        w(i) = w(i) + 0.25d0 * (rain(i) - evap * w(i) * w(i) / capacity)
        if (w(i) > capacity) then
          excess = w(i) - capacity
          runoff = runoff + excess
          w(i) = capacity
          exit substeps
        end if
      end do substeps
    end do cells
  end subroutine advance_day

  function total_water() result(s)
    double precision :: s
    s = sum(w)
  end function total_water

  subroutine diagnose(runoff, d)
    double precision, intent(in) :: runoff
    type(diag_type), intent(out) :: d
    d%runoff = runoff
    d%wettest = maxval(w)
    d%nsaturated = count(w >= capacity)
  end subroutine diagnose
end module bucket_model

subroutine head(x, y)
  use bucket_model
  implicit none
  double precision :: x(3), y(2)
  double precision :: runoff
  type(diag_type) :: d
  integer :: day
  !$openad INDEPENDENT(x)
  call init_bucket(x(1))
  runoff = 0.0d0
  do day = 1, nday
    call advance_day(day, x(2), x(3), runoff)
  end do
  call diagnose(runoff, d)
  y(1) = total_water() + 0.1d0 * d%wettest
  y(2) = d%runoff
  !$openad DEPENDENT(y)
end subroutine head
