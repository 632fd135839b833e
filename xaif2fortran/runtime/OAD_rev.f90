! Reverse mode switches. Every differentiated subroutine in -m rs / -m rj
! looks at our_rev_mode to decide which of its sections to run.
! Default: plain only (the original computation), so code that never
! touches the mode behaves like the original program.
module OAD_rev
  implicit none
  private
  public :: modetype, our_rev_mode, OAD_revInit, OAD_revPlain, &
       OAD_revTape, OAD_revAdjoint, OAD_revJoint, OAD_revArgStore, &
       OAD_revArgRestore, OAD_revResStore, OAD_revResRestore

  type modetype
    logical :: arg_store = .false.
    logical :: arg_restore = .false.
    logical :: res_store = .false.
    logical :: res_restore = .false.
    logical :: plain = .true.
    logical :: tape = .false.
    logical :: adjoint = .false.
  end type modetype

  type(modetype), save :: our_rev_mode

contains

  ! All switches off.
  subroutine OAD_revInit()
    our_rev_mode = modetype(.false., .false., .false., .false., &
         .false., .false., .false.)
  end subroutine OAD_revInit

  ! Run the original computation only.
  subroutine OAD_revPlain()
    call OAD_revInit()
    our_rev_mode%plain = .true.
  end subroutine OAD_revPlain

  ! Forward sweep: compute values and write the tape.
  subroutine OAD_revTape()
    call OAD_revInit()
    our_rev_mode%tape = .true.
  end subroutine OAD_revTape

  ! Reverse sweep: read the tape and propagate adjoints.
  subroutine OAD_revAdjoint()
    call OAD_revInit()
    our_rev_mode%adjoint = .true.
  end subroutine OAD_revAdjoint

  ! Both sweeps in one call (joint reversal at the top level).
  subroutine OAD_revJoint()
    call OAD_revInit()
    our_rev_mode%tape = .true.
    our_rev_mode%adjoint = .true.
  end subroutine OAD_revJoint

  ! Add the argument checkpoint store switch to the current mode.
  subroutine OAD_revArgStore()
    our_rev_mode%arg_store = .true.
    our_rev_mode%arg_restore = .false.
  end subroutine OAD_revArgStore

  ! Add the argument checkpoint restore switch to the current mode.
  subroutine OAD_revArgRestore()
    our_rev_mode%arg_restore = .true.
    our_rev_mode%arg_store = .false.
  end subroutine OAD_revArgRestore

  ! Add the result checkpoint store switch to the current mode.
  subroutine OAD_revResStore()
    our_rev_mode%res_store = .true.
    our_rev_mode%res_restore = .false.
  end subroutine OAD_revResStore

  ! Add the result checkpoint restore switch to the current mode.
  subroutine OAD_revResRestore()
    our_rev_mode%res_restore = .true.
    our_rev_mode%res_store = .false.
  end subroutine OAD_revResRestore

end module OAD_rev
