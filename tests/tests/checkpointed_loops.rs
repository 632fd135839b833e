//! Binomial checkpointing of a time loop (`!$openad CHECKPOINT
//! BINOMIAL(snapshots=S)`), end to end:
//!
//! - `same_gradient_with_and_without_checkpointing`: one time-stepping
//!   model (module state, a call tree per step, branches on the step
//!   number) differentiated with and without the pragma line, for S = 1,
//!   2, 5 and 1, 2, 7, 40 steps (fewer steps than snapshots included), in
//!   `-m rs` and `-m rj`: the Jacobians must agree to 1e-12 relative
//!   (per entry, against the largest entry of its row);
//! - `memory_is_bounded_by_the_snapshots`: the peak of the tapes and
//!   checkpoint stacks (`oad_tape_high_water`, sampled by the runtime at
//!   each snapshot and each turn, and by the driver after the taping
//!   sweep) for 100 and 1000 steps: with the pragma it is the same for
//!   both and at most the tape outside the loop plus (S + 2) times the
//!   loop state plus one iteration's tape; without it, it grows linearly
//!   with the steps; the number of plain iterations the reversal ran must
//!   be the optimum of the binomial schedule, r·l − C(S + r, S + 1).
//!
//! Needs gfortran (fails without it). The programs are kept in
//! `target/e2e-work/generated/ckp_*`.
//!
//! `cargo test -p openad-tests --test checkpointed_loops -- --nocapture`

use std::fs;
use std::path::PathBuf;
use std::process::Command;

use openad_tests::{differing_entries, openad_program, parallel_map, run_mode, write_example};

/// Relative agreement required between the checkpointed and the plain
/// adjoint, per Jacobian entry against the largest entry of its row.
const AGREEMENT: f64 = 1e-12;

/// The model: `n` cells, `nt` steps, and the pragma with `snaps`
/// snapshots unless `snaps` is `None`.
fn model(n: usize, nt: usize, snaps: Option<usize>) -> String {
    let pragma = match snaps {
        Some(s) => format!("  !$openad CHECKPOINT BINOMIAL(snapshots={s})\n"),
        None => String::new(),
    };
    format!(
        r#"module ckm_state
  implicit none
  integer, parameter :: n = {n}
  double precision :: u(0:n + 1), unew(n)
  double precision :: kappa, vel, dt, dx
  integer :: steps_done
end module ckm_state

module ckm_model
  use ckm_state
  implicit none
contains
  subroutine boundary(t)
    integer, intent(in) :: t
    u(0) = u(1)
    if (mod(t, 5) == 0) then
      u(n + 1) = 0.5d0 * u(n)
    else
      u(n + 1) = u(n)
    end if
  end subroutine boundary

  subroutine flux(i, f)
    integer, intent(in) :: i
    double precision, intent(out) :: f
    double precision :: k
    k = kappa * (1.0d0 + 0.2d0 * u(i) * u(i))
    f = -k * (u(i + 1) - u(i)) / dx + vel * 0.5d0 * (u(i) + u(i + 1))
  end subroutine flux

  subroutine step(t, forcing)
    integer, intent(in) :: t
    double precision, intent(in) :: forcing
    double precision :: fl, fr
    integer :: i
    call boundary(t)
    do i = 1, n
      call flux(i - 1, fl)
      call flux(i, fr)
      unew(i) = u(i) - dt / dx * (fr - fl)
    end do
    if (t > 3) unew(n / 2) = unew(n / 2) + dt * forcing * u(n / 2)
    u(1:n) = unew
    steps_done = steps_done + 1
  end subroutine step
end module ckm_model

subroutine head(x, y)
  use ckm_model
  implicit none
  double precision :: x(4), y(2)
  integer :: t, i
  integer, parameter :: nt = {nt}
  !$openad INDEPENDENT(x)
  kappa = x(1)
  vel = x(2)
  dx = 1.0d0 / n
  dt = 0.4d0 * dx * dx
  steps_done = 0
  do i = 0, n + 1
    u(i) = x(3) * exp(-((i * dx - 0.5d0) / 0.15d0)**2)
  end do
{pragma}  do t = 1, nt
    call step(t, x(4))
  end do
  y(1) = sum(u(1:n)) * dx
  y(2) = u(n / 2) * (1 + steps_done)
  !$openad DEPENDENT(y)
end subroutine head
"#
    )
}

const MANIFEST: &str = "files = [\"head.f90\"]\nnx = 4\nny = 2\nx0 = [0.5, 0.3, 1.0, 0.8]\n";

#[test]
fn same_gradient_with_and_without_checkpointing() {
    const STEPS: [usize; 4] = [1, 2, 7, 40];
    const SNAPS: [usize; 3] = [1, 2, 5];
    // (steps, snapshots or None, mode)
    let mut cases: Vec<(usize, Option<usize>, &str)> = Vec::new();
    for mode in ["rs", "rj"] {
        for nt in STEPS {
            cases.push((nt, None, mode));
            for s in SNAPS {
                cases.push((nt, Some(s), mode));
            }
        }
    }
    let results = parallel_map(&cases, |&(nt, snaps, mode)| {
        let name = match snaps {
            Some(s) => format!("ckp_agree_{nt}_steps_{s}_snaps"),
            None => format!("ckp_agree_{nt}_steps_plain"),
        };
        let source = model(8, nt, snaps);
        let example = write_example(&name, &[("head.f90", &source)], MANIFEST)?;
        run_mode(&example, mode, None)
    });
    let mut failures = Vec::new();
    let find = |nt: usize, snaps: Option<usize>, mode: &str| {
        cases
            .iter()
            .position(|c| *c == (nt, snaps, mode))
            .map(|k| &results[k])
    };
    for &(nt, snaps, mode) in &cases {
        let Some(s) = snaps else { continue };
        let (Some(with), Some(without)) = (find(nt, Some(s), mode), find(nt, None, mode)) else {
            continue;
        };
        let failure = match (with, without) {
            (Err(e), _) => Some(format!("{mode}, {nt} steps, {s} snapshots: {e}")),
            (_, Err(e)) => Some(format!("{mode}, {nt} steps, no pragma: {e}")),
            (Ok(a), Ok(b)) => {
                let differing = differing_entries(&a.jacobian, &b.jacobian, AGREEMENT);
                (!differing.is_empty()).then(|| format!(
                    "{mode}, {nt} steps, {s} snapshots: the adjoint differs from the one without checkpointing:\n    {}",
                    differing.join("\n    ")
                ))
            }
        };
        println!(
            "{mode} {nt:>3} steps {s} snapshots: {}",
            if failure.is_none() { "agree" } else { "DIFFER" }
        );
        failures.extend(failure);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The fewest plain iterations that reverse `l` iterations with `s`
/// snapshots: r·l − C(s + r, s + 1), r the least with C(s + r, s) ≥ l.
fn optimal_forward_steps(l: u64, s: u64) -> u64 {
    if l <= 1 {
        return 0;
    }
    let binomial = |n: u64, k: u64| -> u64 {
        let mut b: u64 = 1;
        for j in 0..k {
            b = b * (n - j) / (j + 1);
        }
        b
    };
    let mut r = 0;
    while binomial(s + r, s) < l {
        r += 1;
    }
    r * l - binomial(s + r, s + 1)
}

/// What the memory driver reports.
#[derive(Debug, Clone, Copy)]
struct Memory {
    /// Peak bytes on the tapes and checkpoint stacks.
    high_water: u64,
    /// Plain iterations run by checkpointed loops.
    forward_steps: u64,
    /// Bytes left on the stacks after both sweeps (must be 0).
    left: u64,
}

const MEMORY_DRIVER: &str = r#"program memory
  use OAD_active
  use OAD_rev
  use OAD_tape
  use OAD_snapshots
  implicit none
  type(active) :: x(4), y(2)
  x(1)%v = 0.5d0
  x(2)%v = 0.3d0
  x(3)%v = 1.0d0
  x(4)%v = 0.8d0
  call tape_init()
  call oad_snapshot_counters_reset()
  call OAD_revTape()
  call head(x, y)
  call oad_tape_sample()
  y(1)%d = 1.0d0
  y(2)%d = 1.0d0
  call OAD_revAdjoint()
  call head(x, y)
  print '(a, i0)', 'high_water ', oad_tape_high_water()
  print '(a, i0)', 'forward_steps ', oad_snapshot_forward_steps()
  print '(a, i0)', 'left ', oad_tape_bytes()
end program memory
"#;

/// Differentiates the model in split mode, runs one taping and one
/// adjoint sweep and reads the driver's report.
fn memory_run(name: &str, n: usize, nt: usize, snaps: Option<usize>) -> Result<Memory, String> {
    let example = write_example(name, &[("head.f90", &model(n, nt, snaps))], MANIFEST)?;
    let dir = example.dir;
    let out = dir.join("out");
    let openad = openad_program()?;
    let status = Command::new(&openad)
        .current_dir(&dir)
        .args(["-m", "rs", "-o"])
        .arg(&out)
        .arg("head.f90")
        .output()
        .map_err(|e| format!("cannot run openad: {e}"))?;
    if !status.status.success() {
        return Err(format!(
            "openad failed: {}",
            String::from_utf8_lossy(&status.stderr)
        ));
    }
    let sources: Vec<PathBuf> = fs::read_to_string(out.join("SOURCES"))
        .map_err(|e| format!("SOURCES: {e}"))?
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| out.join(l.trim()))
        .collect();
    let driver = dir.join("memory.f90");
    fs::write(&driver, MEMORY_DRIVER).map_err(|e| e.to_string())?;
    let exe = dir.join("memory");
    let build = dir.join("build");
    fs::create_dir_all(&build).map_err(|e| e.to_string())?;
    let compiled = Command::new("gfortran")
        .current_dir(&build)
        .args(&sources)
        .arg(&driver)
        .arg("-o")
        .arg(&exe)
        .output()
        .map_err(|e| format!("cannot run gfortran (needed by this test): {e}"))?;
    if !compiled.status.success() {
        return Err(format!(
            "gfortran failed: {}",
            String::from_utf8_lossy(&compiled.stderr)
        ));
    }
    let run = Command::new(&exe)
        .current_dir(&dir)
        .output()
        .map_err(|e| format!("cannot run the driver: {e}"))?;
    let text = String::from_utf8_lossy(&run.stdout).into_owned();
    if !run.status.success() {
        return Err(format!(
            "the driver failed: {text}{}",
            String::from_utf8_lossy(&run.stderr)
        ));
    }
    let value = |key: &str| -> Result<u64, String> {
        text.lines()
            .find_map(|l| l.trim().strip_prefix(key))
            .and_then(|v| v.trim().parse().ok())
            .ok_or_else(|| format!("driver output lacks `{key}`: {text}"))
    };
    Ok(Memory {
        high_water: value("high_water ")?,
        forward_steps: value("forward_steps ")?,
        left: value("left ")?,
    })
}

#[test]
fn memory_is_bounded_by_the_snapshots() {
    const N: usize = 50;
    const S: usize = 10;
    // The loop state the snapshots hold: u(0:n+1), unew(1:n) (values of
    // active reals) and the integer step counter.
    let state = (8 * (2 * N + 2) + 4) as u64;
    let cases: Vec<(usize, Option<usize>)> = vec![
        (100, None),
        (550, None),
        (1000, None),
        (100, Some(S)),
        (1000, Some(S)),
    ];
    let results = parallel_map(&cases, |&(nt, snaps)| {
        let name = match snaps {
            Some(s) => format!("ckp_memory_{nt}_steps_{s}_snaps"),
            None => format!("ckp_memory_{nt}_steps_plain"),
        };
        memory_run(&name, N, nt, snaps)
    });
    let mut memory = Vec::new();
    for (case, result) in cases.iter().zip(results) {
        match result {
            Ok(m) => {
                println!(
                    "{:>5} steps, {}: peak {} bytes, {} plain iterations",
                    case.0,
                    case.1
                        .map_or("no checkpointing".to_string(), |s| format!("{s} snapshots")),
                    m.high_water,
                    m.forward_steps
                );
                memory.push(m);
            }
            Err(e) => panic!("{case:?}: {e}"),
        }
    }
    let [p100, p550, p1000, c100, c1000] = memory.as_slice() else {
        unreachable!("five cases");
    };
    for m in &memory {
        assert_eq!(
            m.left, 0,
            "the stacks are not empty after the adjoint: {m:?}"
        );
    }
    // Without checkpointing: linear in the steps.
    let slope = (p1000.high_water - p100.high_water) as f64 / 900.0;
    let half = (p550.high_water - p100.high_water) as f64 / 450.0;
    assert!(
        slope > 0.0,
        "the plain adjoint's tape does not grow: {p100:?} {p1000:?}"
    );
    assert!(
        (half - slope).abs() <= 0.01 * slope,
        "the plain adjoint's tape does not grow linearly: {half} vs {slope} bytes per step"
    );
    let outside = p100.high_water as f64 - 100.0 * slope;
    // With checkpointing: independent of the steps, and bounded.
    assert_eq!(
        c100.high_water, c1000.high_water,
        "the checkpointed adjoint's peak depends on the number of steps"
    );
    let bound = outside + ((S + 2) as u64 * state) as f64 + slope;
    for c in [c100, c1000] {
        assert!(
            (c.high_water as f64) <= bound,
            "peak {} bytes above the bound {bound:.0} = tape outside the loop {outside:.0} + (S+2) x state {state} + one iteration {slope:.0}",
            c.high_water
        );
    }
    assert!(
        c1000.high_water * 10 < p1000.high_water,
        "checkpointing saves less than expected: {} vs {} bytes",
        c1000.high_water,
        p1000.high_water
    );
    // The schedule's optimal recomputation.
    assert_eq!(c100.forward_steps, optimal_forward_steps(100, S as u64));
    assert_eq!(c1000.forward_steps, optimal_forward_steps(1000, S as u64));
    assert_eq!(p1000.forward_steps, 0);
}

#[test]
fn optimal_forward_steps_formula() {
    // T(l, 1) = l(l-1)/2; T(l, s) = l - 1 for s >= l - 1.
    assert_eq!(optimal_forward_steps(10, 1), 45);
    assert_eq!(optimal_forward_steps(5, 4), 4);
    assert_eq!(optimal_forward_steps(1, 3), 0);
    // beta(2, 2) = 6: six iterations with two snapshots, each run plainly
    // at most twice: 2*6 - C(4, 3) = 8.
    assert_eq!(optimal_forward_steps(6, 2), 8);
}

/// What the adjoint cannot checkpoint is refused in `-m rs` and `-m rj`
/// (exit 1, the diagnostic at the user's line and column, nothing
/// written), while the tangent modes, which ignore the pragma, accept the
/// same program.
#[test]
fn adjoint_refusals_name_the_place_and_tangent_ignores_the_pragma() {
    // (name, body of the loop, text the diagnostic's position starts at,
    // words of the message)
    let cases = [
        (
            "exit",
            "    u = u * x(2)\n    if (u > 1.0d9) exit\n",
            "do t = 1, 5",
            "leaves the loop",
        ),
        (
            "read",
            "    u = u * x(2)\n    read(*, *, end=1) n\n1   continue\n",
            "read(*",
            "changes 'n'",
        ),
        (
            "derived",
            "    u = u * x(2)\n    call bump(c)\n",
            "do t = 1, 5",
            "changes 'c'",
        ),
        (
            "derived_read",
            "    u = u * x(2) + c%n\n",
            "do t = 1, 5",
            "reads the local 'c'",
        ),
    ];
    let openad = openad_program().expect("openad binary");
    let work = tempfile::tempdir().unwrap();
    for (name, body, at, words) in cases {
        let text = format!(
            "module m_{name}\n  type counter\n    integer :: n\n  end type counter\ncontains\n  subroutine bump(c)\n    type(counter) :: c\n    c%n = c%n + 1\n  end subroutine bump\nend module m_{name}\n\nsubroutine head(x, y)\n  use m_{name}\n  implicit none\n  double precision :: x(2), y(1), u\n  integer :: t, n\n  type(counter) :: c\n  !$openad INDEPENDENT(x)\n  u = x(1)\n  n = 0\n  c%n = 0\n  !$openad CHECKPOINT BINOMIAL(snapshots=2)\n  do t = 1, 5\n{body}  end do\n  y(1) = u + n\n  !$openad DEPENDENT(y)\nend subroutine head\n"
        );
        let source = work.path().join(format!("{name}.f90"));
        fs::write(&source, &text).unwrap();
        let offset = text.find(at).unwrap();
        let line_start = text[..offset].rfind('\n').map_or(0, |p| p + 1);
        let line = text[..offset].matches('\n').count() + 1;
        let column = offset - line_start + 1;
        for mode in ["f", "fv", "rs", "rj"] {
            let out_dir = work.path().join(format!("{name}_{mode}"));
            let out = Command::new(&openad)
                .args(["-m", mode, "-o"])
                .arg(&out_dir)
                .arg(&source)
                .output()
                .unwrap();
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert!(
                !stderr.contains("unknown $openad pragma"),
                "{name} -m {mode}: the pragma is known: {stderr}"
            );
            if mode.starts_with('f') {
                assert!(out.status.success(), "{name} -m {mode}: {stderr}");
                continue;
            }
            assert_eq!(out.status.code(), Some(1), "{name} -m {mode}: {stderr}");
            let place = format!("{name}.f90:{line}:{column}: error: ");
            assert!(
                stderr.contains(&place)
                    && stderr.contains("CHECKPOINT BINOMIAL")
                    && stderr.contains(words),
                "{name} -m {mode}: expected {place}... {words}:\n{stderr}"
            );
            assert!(!out_dir.exists(), "{name} -m {mode}: output left behind");
        }
    }
}
