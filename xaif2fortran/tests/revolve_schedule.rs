//! The binomial checkpointing schedule of runtime/OAD_revolve.f90: a
//! Fortran driver replays the action stream for many (steps, snaps)
//! pairs on a simulated loop whose state is its step number, checks
//! every rule of the schedule as it goes, and prints one line per pair;
//! this side checks the lines against the Griewank–Walther cost formula,
//! computed here independently (and, for small loops, against the
//! optimum found by dynamic programming). A real loop checks that the
//! checkpointed adjoint equals the one that stores every step.
//!
//! gfortran is required: without it these tests fail.

use std::path::Path;
use std::process::Command;
use std::sync::OnceLock;

use xaif2fortran::runtime::OAD_REVOLVE;

/// Largest number of steps and snapshots of the exhaustive part.
const MAX_STEPS: u64 = 60;
const MAX_SNAPS: u64 = 12;

/// (steps, snaps) pairs simulated besides the exhaustive ones.
const LARGE: &[(u64, u64)] = &[
    (10_000, 10),
    (10_000, 20),
    (10_000, 50),
    (100_000, 3),
    (100_000, 2),
    (3_000, 1),
    (1_000, 999),
    (50, 1_000),
    (10_000_000, 100),
];

/// (steps, snaps) pairs for which only oad_revolve_max_forward is
/// compared with the formula.
const FORMULA_ONLY: &[(u64, u64)] = &[
    (10_000_000, 1),
    (10_000_000, 2),
    (10_000_000, 3),
    (10_000_000, 10),
    (10_000_000, 50),
    (10_000_000, 100),
    (2_147_483_647, 1),
    (2_147_483_647, 2),
    (2_147_483_647, 5),
    (2_147_483_647, 100),
    (2_147_483_647, 2_147_483_647),
    (1_000, 2_147_483_647),
];

/// The snapshot counts of the real-loop check.
const REAL_SNAPS: &[u64] = &[1, 3, 10];

/// The Fortran driver; @LARGE@, @FORMULA@ and @REAL@ become calls.
const DRIVER: &str = r#"! Replays OAD_revolve schedules on simulated loops (see
! tests/revolve_schedule.rs).
program revolve_schedule
  use OAD_revolve
  implicit none

  ! A simulated loop: the state is the step number, a snapshot slot
  ! holds a step number.
  type sim
    integer :: steps = 0, snaps = 0
    integer :: x = 0           ! the state, -1 when undefined (after a turn)
    integer :: expect = 0      ! the step to adjoin next
    integer :: turns = 0
    integer :: live = 0        ! slots holding a state some step still needs
    integer :: peak = 0
    integer(8) :: forward = 0
    integer(8) :: actions = 0
    logical :: done = .false.
    character(len=120) :: why = ''
    integer, allocatable :: slot(:)     ! position held, -1 never written
    integer, allocatable :: holder(:)   ! holder(p): slot holding p, or 0
  end type sim

  type(oad_revolve_plan) :: plan
  integer :: l, s

  ! One plan for all the small pairs: restarting a plan must work.
  do l = 0, @MAX_STEPS@
    do s = 1, @MAX_SNAPS@
      call check_pair(plan, l, s)
    end do
  end do
@LARGE@
@FORMULA@
  call edge_cases()
  call interleaved()
@REAL@
  print '(a)', 'END'

contains

  subroutine sim_start(sm, steps, snaps)
    type(sim), intent(out) :: sm
    integer, intent(in) :: steps, snaps
    sm%steps = steps
    sm%snaps = snaps
    sm%expect = steps
    allocate(sm%slot(max(snaps, 1)), sm%holder(0:max(steps, 0)))
    sm%slot = -1
    sm%holder = 0
  end subroutine sim_start

  ! The first broken rule is kept.
  subroutine bad(sm, why)
    type(sim), intent(inout) :: sm
    character(*), intent(in) :: why
    if (sm%why == '') write(sm%why, '(a, a, i0)') why, ' at action ', sm%actions
  end subroutine bad

  ! Carry out one action on the simulated loop, checking the rules.
  subroutine apply(sm, p, action)
    type(sim), intent(inout) :: sm
    type(oad_revolve_plan), intent(in) :: p
    integer, intent(in) :: action
    integer :: c, i
    sm%actions = sm%actions + 1
    if (sm%actions > 10_8 * sm%steps + 10) then
      call bad(sm, 'too many actions')
      sm%done = .true.
      return
    end if
    select case (action)
    case (OAD_REVOLVE_TAKESHOT)
      c = p%check
      if (sm%x < 0) then
        call bad(sm, 'takeshot: no state')
        sm%done = .true.
        return
      end if
      if (sm%x /= p%capo) call bad(sm, 'takeshot: state not at capo')
      if (c < 1 .or. c > sm%snaps) then
        call bad(sm, 'takeshot: slot out of range')
        sm%done = .true.
        return
      end if
      if (sm%slot(c) >= 0 .and. sm%slot(c) < sm%expect) &
           call bad(sm, 'takeshot: overwrites a snapshot still needed')
      if (c > 1) then
        if (sm%slot(c - 1) < 0 .or. sm%slot(c - 1) >= sm%x) &
             call bad(sm, 'takeshot: not above the snapshots below')
      end if
      if (sm%slot(c) >= 0) then
        if (sm%holder(sm%slot(c)) == c) sm%holder(sm%slot(c)) = 0
      end if
      if (sm%x + 1 >= sm%expect) call bad(sm, 'takeshot: state needs no snapshot')
      sm%slot(c) = sm%x
      sm%holder(sm%x) = c
      sm%live = sm%live + 1
      sm%peak = max(sm%peak, sm%live)
      if (sm%live /= c .or. oad_revolve_live_snapshots(p) /= c) &
           call bad(sm, 'takeshot: not on top of the live snapshots')
    case (OAD_REVOLVE_ADVANCE)
      if (sm%x /= p%old_capo) call bad(sm, 'advance: state not at old_capo')
      if (p%capo <= p%old_capo) call bad(sm, 'advance: not forward')
      if (p%capo >= sm%expect) call bad(sm, 'advance: past the step to adjoin')
      do i = p%old_capo + 1, p%capo
        sm%x = sm%x + 1
        sm%forward = sm%forward + 1
      end do
    case (OAD_REVOLVE_FIRSTRUN, OAD_REVOLVE_YOUTURN)
      if ((action == OAD_REVOLVE_FIRSTRUN) .neqv. (sm%turns == 0)) &
           call bad(sm, 'turn: firstrun must be the first turn and only it')
      if (sm%x /= p%capo) call bad(sm, 'turn: state not at capo')
      if (sm%x + 1 /= sm%expect) call bad(sm, 'turn: not the step to adjoin')
      ! tape and adjoin step expect; its input state is needed no more
      sm%turns = sm%turns + 1
      sm%expect = sm%expect - 1
      if (sm%expect >= 0) then
        if (sm%holder(sm%expect) /= 0) sm%live = sm%live - 1
      end if
      sm%x = -1
    case (OAD_REVOLVE_RESTORE)
      c = p%check
      if (c < 1 .or. c > sm%snaps) then
        call bad(sm, 'restore: slot out of range')
        sm%done = .true.
        return
      end if
      if (sm%slot(c) < 0 .or. sm%slot(c) >= sm%expect) &
           call bad(sm, 'restore: snapshot not live')
      if (c /= sm%live .or. oad_revolve_live_snapshots(p) /= c) &
           call bad(sm, 'restore: not the top snapshot')
      sm%x = sm%slot(c)
      if (sm%x /= p%capo) call bad(sm, 'restore: state not at capo')
    case (OAD_REVOLVE_TERMINATE)
      sm%done = .true.
      if (sm%expect /= 0) call bad(sm, 'terminate: steps left')
      if (sm%live /= 0) call bad(sm, 'terminate: snapshots left')
    case (OAD_REVOLVE_ERROR)
      call bad(sm, 'error: ' // trim(p%message))
      sm%done = .true.
    case default
      call bad(sm, 'unknown action')
      sm%done = .true.
    end select
  end subroutine apply

  ! The checks after the loop, and the line for the Rust side:
  ! PAIR steps snaps forward formula peak status
  subroutine report(sm, p)
    type(sim), intent(inout) :: sm
    type(oad_revolve_plan), intent(in) :: p
    if (sm%turns /= sm%steps) call bad(sm, 'not every step adjoined')
    if (sm%forward /= oad_revolve_forward_count(p)) call bad(sm, 'forward count differs')
    if (sm%peak /= oad_revolve_peak_snapshots(p)) call bad(sm, 'peak differs')
    if (sm%peak > sm%snaps) call bad(sm, 'too many snapshots')
    if (sm%why == '') sm%why = 'ok'
    write(*, '(a, 5(1x, i0), 1x, a)') 'PAIR', sm%steps, sm%snaps, sm%forward, &
         oad_revolve_max_forward(sm%steps, sm%snaps), sm%peak, trim(sm%why)
  end subroutine report

  subroutine check_pair(p, steps, snaps)
    type(oad_revolve_plan), intent(inout) :: p
    integer, intent(in) :: steps, snaps
    type(sim) :: sm
    call sim_start(sm, steps, snaps)
    call oad_revolve_start(p, steps, snaps)
    do while (.not. sm%done)
      call apply(sm, p, oad_revolve_next(p))
    end do
    call report(sm, p)
  end subroutine check_pair

  ! Two plans driven in turns, one action each: plans share no state.
  subroutine interleaved()
    type(oad_revolve_plan) :: a, b
    type(sim) :: sa, sb
    call sim_start(sa, 200, 4)
    call sim_start(sb, 333, 7)
    call oad_revolve_start(a, 200, 4)
    call oad_revolve_start(b, 333, 7)
    do while (.not. (sa%done .and. sb%done))
      if (.not. sa%done) call apply(sa, a, oad_revolve_next(a))
      if (.not. sb%done) call apply(sb, b, oad_revolve_next(b))
    end do
    call report(sa, a)
    call report(sb, b)
  end subroutine interleaved

  ! EDGE name status
  subroutine edge_cases()
    type(oad_revolve_plan) :: p
    integer :: a1, a2, c1
    ! no steps: terminate at once, and keep saying so
    call oad_revolve_start(p, 0, 3)
    a1 = oad_revolve_next(p)
    a2 = oad_revolve_next(p)
    call edge('zero_steps', a1 == OAD_REVOLVE_TERMINATE .and. a2 == OAD_REVOLVE_TERMINATE)
    ! one step needs no snapshot at all
    call oad_revolve_start(p, 1, 0)
    a1 = oad_revolve_next(p)
    c1 = p%capo
    a2 = oad_revolve_next(p)
    call edge('one_step_no_snapshot', a1 == OAD_REVOLVE_FIRSTRUN .and. c1 == 0 &
         .and. a2 == OAD_REVOLVE_TERMINATE .and. oad_revolve_peak_snapshots(p) == 0)
    ! bad arguments
    call oad_revolve_start(p, -1, 3)
    a1 = oad_revolve_next(p)
    a2 = oad_revolve_next(p)
    call edge('negative_steps', a1 == OAD_REVOLVE_ERROR .and. a2 == OAD_REVOLVE_ERROR &
         .and. index(p%message, 'negative') > 0)
    call oad_revolve_start(p, 5, 0)
    a1 = oad_revolve_next(p)
    call edge('no_snapshots', a1 == OAD_REVOLVE_ERROR .and. index(p%message, 'snapshots') > 0)
    call edge('formula_no_snapshots', oad_revolve_max_forward(5, 0) == -1_8 &
         .and. oad_revolve_max_forward(1, 0) == 0_8 .and. oad_revolve_max_forward(0, 0) == 0_8)
    ! a plan that failed can be started again
    call oad_revolve_start(p, 2, 1)
    a1 = oad_revolve_next(p)
    call edge('restart_after_error', a1 == OAD_REVOLVE_TAKESHOT .and. p%message == '')
    call edge('action_names', oad_revolve_action_name(OAD_REVOLVE_YOUTURN) == 'youturn' &
         .and. oad_revolve_action_name(OAD_REVOLVE_ADVANCE) == 'advance')
  end subroutine edge_cases

  subroutine edge(name, ok)
    character(*), intent(in) :: name
    logical, intent(in) :: ok
    if (ok) then
      write(*, '(a, 1x, a, 1x, a)') 'EDGE', name, 'ok'
    else
      write(*, '(a, 1x, a, 1x, a)') 'EDGE', name, 'FAIL'
    end if
  end subroutine edge

  ! FORMULA steps snaps value
  subroutine formula(steps, snaps)
    integer, intent(in) :: steps, snaps
    write(*, '(a, 3(1x, i0))') 'FORMULA', steps, snaps, oad_revolve_max_forward(steps, snaps)
  end subroutine formula

  ! x(k) = sin(x(k-1)) + 0.1 x(k-1), k = 1..1000: d x(1000) / d x(0) by
  ! taping one step at a time as the schedule says, and by storing
  ! every state. REAL snaps adjoint reference x_last x_last_reference
  ! forward formula status
  subroutine real_loop(snaps)
    integer, intent(in) :: snaps
    integer, parameter :: n = 1000
    real(8), parameter :: x0 = 1.3d0
    type(oad_revolve_plan) :: p
    real(8) :: snap(snaps), xs(0:n), x, xb, xb_ref, partial, x_last
    integer :: i, action, turns
    character(len=40) :: status
    ! reference: all states stored
    xs(0) = x0
    do i = 1, n
      xs(i) = sin(xs(i - 1)) + 0.1d0 * xs(i - 1)
    end do
    xb_ref = 1
    do i = n, 1, -1
      xb_ref = xb_ref * (cos(xs(i - 1)) + 0.1d0)
    end do
    ! checkpointed
    status = 'ok'
    x = x0
    x_last = 0
    xb = 1
    turns = 0
    call oad_revolve_start(p, n, snaps)
    do
      action = oad_revolve_next(p)
      select case (action)
      case (OAD_REVOLVE_TAKESHOT)
        snap(p%check) = x
      case (OAD_REVOLVE_ADVANCE)
        do i = p%old_capo + 1, p%capo
          x = sin(x) + 0.1d0 * x
        end do
      case (OAD_REVOLVE_FIRSTRUN, OAD_REVOLVE_YOUTURN)
        ! the tape of step capo+1 is its one partial; then its adjoint
        partial = cos(x) + 0.1d0
        x = sin(x) + 0.1d0 * x
        if (action == OAD_REVOLVE_FIRSTRUN) x_last = x
        xb = xb * partial
        turns = turns + 1
      case (OAD_REVOLVE_RESTORE)
        x = snap(p%check)
      case (OAD_REVOLVE_TERMINATE)
        exit
      case default
        status = 'FAIL:' // oad_revolve_action_name(action)
        exit
      end select
    end do
    if (turns /= n) status = 'FAIL:turns'
    write(*, '(a, 1x, i0, 4(1x, es24.16e3), 2(1x, i0), 1x, a)') 'REAL', snaps, xb, xb_ref, &
         x_last, xs(n), oad_revolve_forward_count(p), oad_revolve_max_forward(n, snaps), trim(status)
  end subroutine real_loop

end program revolve_schedule
"#;

/// The driver with the pair lists of this file filled in.
fn driver_text() -> String {
    let calls = |lines: Vec<String>| lines.join("\n");
    DRIVER
        .replace("@MAX_STEPS@", &MAX_STEPS.to_string())
        .replace("@MAX_SNAPS@", &MAX_SNAPS.to_string())
        .replace(
            "@LARGE@",
            &calls(
                LARGE
                    .iter()
                    .map(|(l, s)| format!("  call check_pair(plan, {l}, {s})"))
                    .collect(),
            ),
        )
        .replace(
            "@FORMULA@",
            &calls(
                FORMULA_ONLY
                    .iter()
                    .map(|(l, s)| format!("  call formula({l}, {s})"))
                    .collect(),
            ),
        )
        .replace(
            "@REAL@",
            &calls(
                REAL_SNAPS
                    .iter()
                    .map(|s| format!("  call real_loop({s})"))
                    .collect(),
            ),
        )
}

/// Compiles the module and the driver, runs it once for all the tests
/// here, returns its standard output. Panics (fails the test) when
/// gfortran is missing or anything goes wrong.
fn driver_output() -> &'static str {
    static OUT: OnceLock<String> = OnceLock::new();
    OUT.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), "OAD_revolve.f90", OAD_REVOLVE);
        write(dir.path(), "driver.f90", &driver_text());
        let built = Command::new("gfortran")
            .current_dir(dir.path())
            .args(["-O2", "-Wall", "-fcheck=all", "-std=f2008"])
            .args(["OAD_revolve.f90", "driver.f90", "-o", "driver"])
            .output()
            .unwrap_or_else(|e| panic!("gfortran is required for these tests: {e}"));
        assert!(
            built.status.success(),
            "gfortran failed:\n{}",
            String::from_utf8_lossy(&built.stderr)
        );
        let run = Command::new(dir.path().join("driver"))
            .current_dir(dir.path())
            .output()
            .expect("driver runs");
        let stdout = String::from_utf8_lossy(&run.stdout).to_string();
        assert!(
            run.status.success(),
            "driver failed: {}\n{stdout}",
            String::from_utf8_lossy(&run.stderr)
        );
        assert!(stdout.lines().any(|l| l.trim() == "END"), "{stdout}");
        stdout
    })
}

fn write(dir: &Path, name: &str, text: &str) {
    std::fs::write(dir.join(name), text).unwrap();
}

/// The lines of the driver output starting with `tag`, split into words
/// after it.
fn lines(tag: &str) -> Vec<Vec<&'static str>> {
    driver_output()
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>())
        .filter(|w| w.first() == Some(&tag))
        .map(|w| w[1..].to_vec())
        .collect()
}

/// C(n, k), saturating at 2^100 (only compared with numbers far below).
fn binomial(n: u128, k: u128) -> u128 {
    if k > n {
        return 0;
    }
    let k = k.min(n - k);
    let mut c: u128 = 1;
    for i in 1..=k {
        // c = C(n-k+i, i), exact
        c = c * (n - k + i) / i;
        if c > 1 << 100 {
            return 1 << 100;
        }
    }
    c
}

/// beta(s, r) = C(s+r, s), with beta(s, -1) = 0.
fn beta(s: u128, r: i128) -> u128 {
    if r < 0 {
        0
    } else {
        binomial(s + r as u128, s)
    }
}

/// The Griewank–Walther minimum of plain forward steps reversing `l`
/// steps with `s` snapshots: r*l - beta(s+1, r-1), r the smallest with
/// beta(s, r) >= l. None when it cannot be done (s = 0, l > 1).
fn optimal_forward(l: u64, s: u64) -> Option<u128> {
    let (l, s) = (l as u128, s as u128);
    if l <= 1 {
        return Some(0);
    }
    if s == 0 {
        return None;
    }
    // beta(s, l) >= l: search the smallest r in [0, l]
    let (mut lo, mut hi) = (0u128, l);
    while lo < hi {
        let mid = (lo + hi) / 2;
        if beta(s, mid as i128) >= l {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    let r = lo;
    Some(r * l - beta(s + 1, r as i128 - 1))
}

/// The fewest plain forward steps by dynamic programming over the
/// schedules that advance from a snapshot of x(a) to x(a+m), reverse
/// the rest with one snapshot less (none needed for a single step),
/// then restore x(a) and reverse the first m steps: dp[l][s].
fn dynamic_programming(max_l: usize, max_s: usize) -> Vec<Vec<u64>> {
    const NO: u64 = u64::MAX / 4;
    let mut dp = vec![vec![NO; max_s + 1]; max_l + 1];
    for row in dp.iter_mut().take(2) {
        row.fill(0);
    }
    for l in 2..=max_l {
        for s in 1..=max_s {
            dp[l][s] = (1..l)
                .map(|m| m as u64 + dp[m][s] + dp[l - m][s - 1])
                .min()
                .unwrap();
        }
    }
    dp
}

fn num(w: &str) -> u128 {
    w.parse()
        .unwrap_or_else(|_| panic!("not a count: {w}\n{}", driver_output()))
}

#[test]
fn formula_is_the_optimum_of_small_loops() {
    let dp = dynamic_programming(MAX_STEPS as usize, MAX_SNAPS as usize);
    for l in 0..=MAX_STEPS {
        for s in 1..=MAX_SNAPS {
            assert_eq!(
                optimal_forward(l, s),
                Some(dp[l as usize][s as usize] as u128),
                "steps {l} snaps {s}"
            );
        }
        if l >= 1 {
            // s = 1 is quadratic, s >= l-1 stores every state
            assert_eq!(optimal_forward(l, 1), Some((l * (l - 1) / 2) as u128));
            assert_eq!(optimal_forward(l, l), Some((l - 1) as u128));
        }
    }
}

#[test]
fn schedules_reverse_every_step_with_the_fewest_forward_steps() {
    let pairs = lines("PAIR");
    let mut wanted: Vec<(u64, u64)> = (0..=MAX_STEPS)
        .flat_map(|l| (1..=MAX_SNAPS).map(move |s| (l, s)))
        .collect();
    wanted.extend_from_slice(LARGE);
    // the two interleaved plans
    wanted.extend_from_slice(&[(200, 4), (333, 7)]);
    assert_eq!(pairs.len(), wanted.len(), "{}", driver_output());
    for (words, &(l, s)) in pairs.iter().zip(&wanted) {
        let [steps, snaps, forward, formula, peak, status] = words[..] else {
            panic!("bad line {words:?}");
        };
        assert_eq!((num(steps), num(snaps)), (l as u128, s as u128));
        assert_eq!(status, "ok", "steps {l} snaps {s}: {words:?}");
        let want = optimal_forward(l, s).unwrap();
        assert_eq!(num(forward), want, "forward steps, steps {l} snaps {s}");
        assert_eq!(num(formula), want, "max_forward, steps {l} snaps {s}");
        let peak = num(peak);
        assert!(peak <= s as u128, "steps {l} snaps {s}: peak {peak}");
        if l >= 2 && s + 1 >= l {
            // enough snapshots for every state but the last
            assert_eq!(peak, l as u128 - 1, "steps {l} snaps {s}");
        }
    }
}

#[test]
fn forward_step_counts_of_large_loops() {
    let pairs = lines("PAIR");
    let count = |l: u64, s: u64| {
        let w = pairs
            .iter()
            .find(|w| num(w[0]) == l as u128 && num(w[1]) == s as u128)
            .unwrap_or_else(|| panic!("no line for {l} {s}"));
        num(w[2])
    };
    // r*l - C(s+r, s+1): r = 7, 4, 3
    assert_eq!(count(10_000, 10), 7 * 10_000 - 12_376);
    assert_eq!(count(10_000, 20), 4 * 10_000 - 2_024);
    assert_eq!(count(10_000, 50), 3 * 10_000 - 1_378);
    assert_eq!(count(3_000, 1), 3_000 * 2_999 / 2);
    assert_eq!(count(1_000, 999), 999);
}

#[test]
fn max_forward_does_not_overflow() {
    let got = lines("FORMULA");
    assert_eq!(got.len(), FORMULA_ONLY.len(), "{}", driver_output());
    for (words, &(l, s)) in got.iter().zip(FORMULA_ONLY) {
        assert_eq!((num(words[0]), num(words[1])), (l as u128, s as u128));
        let want = optimal_forward(l, s).unwrap();
        assert!(want < 1 << 63);
        assert_eq!(num(words[2]), want, "steps {l} snaps {s}");
    }
}

#[test]
fn edge_cases() {
    let got = lines("EDGE");
    assert_eq!(got.len(), 7, "{}", driver_output());
    for words in got {
        assert_eq!(words.get(1), Some(&"ok"), "{words:?}");
    }
}

#[test]
fn checkpointed_adjoint_equals_the_stored_one() {
    let got = lines("REAL");
    assert_eq!(got.len(), REAL_SNAPS.len(), "{}", driver_output());
    for (words, &s) in got.iter().zip(REAL_SNAPS) {
        let [snaps, xb, xb_ref, x_last, x_last_ref, forward, formula, status] = words[..] else {
            panic!("bad line {words:?}");
        };
        assert_eq!(num(snaps), s as u128);
        assert_eq!(status, "ok", "{words:?}");
        let f = |w: &str| w.parse::<f64>().unwrap();
        let (xb, xb_ref) = (f(xb), f(xb_ref));
        assert!(xb_ref != 0.0 && xb_ref.is_finite(), "{words:?}");
        assert!(
            ((xb - xb_ref) / xb_ref).abs() <= 1e-14,
            "snaps {s}: adjoint {xb} vs {xb_ref}"
        );
        assert_eq!(x_last, x_last_ref, "snaps {s}: final state");
        let want = optimal_forward(1000, s).unwrap();
        assert_eq!((num(forward), num(formula)), (want, want), "snaps {s}");
    }
}
