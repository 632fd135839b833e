//! Which runs the adjoint recomputes (`--partials`, docs/adjoint.md
//! "Recomputed partials"), read off `openad --stats` on corpus examples
//! (the corpus legs rs, rj, rs-rc and rj-rc check the numbers; these check
//! the choice, which a change to the cost model could break without
//! changing a derivative):
//! - on the HLL flux block (24 statements, 6 inputs, 24 taped partials)
//!   the default recomputes, and tapes fewer reals than `--partials taped`;
//! - `--partials taped` recomputes nothing;
//! - on the chemistry box (85 partials but 24 `exp` to replay per cell) the
//!   default keeps the partials taped;
//! - `--partials recomputed` recomputes wherever a run allows it;
//! - the HLL face's replay divides by each density once (shared
//!   reciprocals).

use std::fs;
use std::process::Command;

use openad_tests::{examples_dir, generated_code, openad_program, work_root};

/// The `total` line of `openad -m MODE --stats` on example `name`: reals,
/// integers and runs recomputed per execution of every block, summed.
fn totals(name: &str, mode: &str, extra: &[&str]) -> (usize, usize, usize) {
    // A directory of its own per call: tests running in parallel ask for
    // the same example, mode and options.
    let tag = format!("{name}-{mode}-{}-", extra.join("-"));
    let parent = work_root().join("recompute-choice");
    fs::create_dir_all(&parent).unwrap();
    let scratch = tempfile::Builder::new()
        .prefix(&tag)
        .tempdir_in(&parent)
        .unwrap();
    let dir = scratch.path();
    let source = fs::read_to_string(examples_dir().join(name).join("head.f90")).unwrap();
    fs::write(dir.join("head.f90"), source).unwrap();
    let out = Command::new(openad_program().unwrap())
        .current_dir(dir)
        .args(["-m", mode, "--stats"])
        .args(extra)
        .args(["-o", "out", "head.f90"])
        .output()
        .expect("openad runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let line = stdout
        .lines()
        .find(|l| l.starts_with("total - "))
        .unwrap_or_else(|| panic!("no total line in\n{stdout}"));
    let n: Vec<usize> = line["total - ".len()..]
        .split_whitespace()
        .map(|v| v.parse().unwrap())
        .collect();
    assert_eq!(n.len(), 3, "{line}");
    (n[0], n[1], n[2])
}

#[test]
fn hll_flux_block_is_recomputed_by_default_and_tapes_fewer_reals() {
    for mode in ["rs", "rj"] {
        let (auto_reals, auto_ints, auto_runs) = totals("hllflux", mode, &[]);
        let (taped_reals, taped_ints, taped_runs) =
            totals("hllflux", mode, &["--partials", "taped"]);
        assert!(auto_runs >= 1, "{mode}: nothing recomputed");
        assert_eq!(taped_runs, 0, "{mode}: --partials taped recomputes");
        assert_eq!(auto_ints, taped_ints, "{mode}: integers differ");
        // The flux block tapes its 6 state values instead of 24 entries.
        assert!(
            auto_reals + 15 <= taped_reals,
            "{mode}: {auto_reals} reals recomputed against {taped_reals} taped"
        );
    }
}

#[test]
fn chemistry_block_keeps_its_partials_taped_by_default() {
    let (_, _, runs) = totals("chembox", "rs", &[]);
    assert_eq!(runs, 0, "chembox's exp-heavy block was recomputed");
    let (_, _, forced) = totals("chembox", "rs", &["--partials", "recomputed"]);
    assert!(
        forced >= 1,
        "--partials recomputed did not recompute chembox"
    );
}

#[test]
fn forced_recomputation_reaches_reruns_and_checkpointed_loops() {
    let (_, _, runs) = totals("recompute_rerun_ckp", "rj", &["--partials", "recomputed"]);
    // faces and update (re-run routines) and the head's runs.
    assert!(runs >= 3, "only {runs} runs recomputed");
}

/// The generated adjoint of example `name` in `mode` with default options.
fn adjoint_source(name: &str, mode: &str) -> String {
    let parent = work_root().join("recompute-choice");
    fs::create_dir_all(&parent).unwrap();
    let scratch = tempfile::Builder::new()
        .prefix(&format!("{name}-{mode}-source-"))
        .tempdir_in(&parent)
        .unwrap();
    let source = fs::read_to_string(examples_dir().join(name).join("head.f90")).unwrap();
    generated_code(scratch.path(), "head.f90", &source, mode)
}

/// Array snapshots (docs/adjoint.md): the cell loops of
/// `snapshot_shallow_water` only read `h`, `q`, `bed` and `c`, so by default
/// their runs are recomputed from copies of those arrays pushed once per
/// loop execution, which leaves fewer reals per execution than taping the
/// partials; arrays a run reads through one reference (`q(i)/h(i)` in the
/// transport) and the assumed-size dummies of `drag` are not snapshot.
#[test]
fn cell_loops_recompute_from_array_snapshots() {
    for mode in ["rs", "rj"] {
        let (auto_reals, _, auto_runs) = totals("snapshot_shallow_water", mode, &[]);
        let (taped_reals, _, _) = totals("snapshot_shallow_water", mode, &["--partials", "taped"]);
        assert!(auto_runs >= 2, "{mode}: only {auto_runs} runs recomputed");
        assert!(
            auto_reals + 5 <= taped_reals,
            "{mode}: {auto_reals} reals per execution with snapshots against {taped_reals} taped"
        );
        let code = adjoint_source("snapshot_shallow_water", mode);
        for pushed in ["h%v", "q%v", "bed", "c%v"] {
            assert!(
                code.contains(&format!("call oad_snap_push({pushed}, ")),
                "{mode}: no snapshot of {pushed}"
            );
        }
        assert!(
            !code.contains("oad_snap_push(hh") && !code.contains("oad_snap_push(qq"),
            "{mode}: an assumed-size dummy was snapshot"
        );
        // The transport reads q and h once per cell: taped per cell.
        assert_eq!(code.matches("call oad_snap_push(").count(), 4, "{mode}");
        assert!(code.contains("real(8), pointer, contiguous :: oad_snap_1(:)"));
        assert!(code.contains(":: oad_snap_") && code.contains("(:, :)"));
    }
}

/// Snapshot riders (docs/adjoint.md, "Array snapshots"): the HLL face
/// reads `q1(i)` and `q1(ip)` (and the same of `q2`, `q3`); `q1(ip)` does
/// not mention the face index, but rides on the copy `q1(i)` justifies, so
/// the face tapes none of its 6 state values (before: all 6 per face), and
/// the three arrays are pushed once per face loop.
#[test]
fn periodic_neighbours_ride_on_the_snapshot_of_their_array() {
    for mode in ["rs", "rj"] {
        let (auto_reals, _, _) = totals("hllflux", mode, &[]);
        let (taped_reals, _, _) = totals("hllflux", mode, &["--partials", "taped"]);
        // 24 entries taped against none: the rest are the other blocks'.
        assert!(
            auto_reals + 24 <= taped_reals,
            "{mode}: {auto_reals} reals with riders against {taped_reals} taped"
        );
        let code = adjoint_source("hllflux", mode);
        for q in ["q1", "q2", "q3"] {
            assert!(
                code.contains(&format!("call oad_snap_push(oad_v_{q}, ")),
                "{mode}: no snapshot of {q}"
            );
        }
    }
}

/// Shared reciprocals (docs/adjoint.md, "Recomputed partials"): the HLL
/// face's replay divides by each density once (`1/rl`, `1/rr`, shared by
/// the velocities, the sound speeds' `g*p/r` and their partials); with
/// `1/(sr - sl)` (written in its value and its partial, one quotient the
/// compiler computes once, so left as it is) and the two `0.5/sqrt(...)`
/// of the sound speeds' partials that is 5 divisions on 6 lines. Before,
/// 16 lines divided (`ml/rl`, `1/rl`, `g*pl/rl` written out wherever
/// used: 9 distinct divisions after the compiler's common
/// subexpressions); the test fails on those binaries.
#[test]
fn hll_face_replay_divides_by_each_density_once() {
    for mode in ["rs", "rj"] {
        let code = adjoint_source("hllflux", mode);
        let divisions: Vec<&str> = code
            .lines()
            .filter(|l| l.contains("oad_rv_") && l.contains('/'))
            .collect();
        assert_eq!(divisions.len(), 6, "{mode}: {divisions:#?}");
        let reciprocals = divisions
            .iter()
            .filter(|l| l.contains("= 1.0d0/oad_rv_"))
            .count();
        assert_eq!(reciprocals, 2, "{mode}: {divisions:#?}");
        assert!(
            !code.contains("oad_rv_2/oad_rv_1"),
            "{mode}: the velocity is still divided"
        );
    }
}
