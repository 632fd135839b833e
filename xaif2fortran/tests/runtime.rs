//! The Fortran runtime support library, compiled with gfortran and
//! exercised by small drivers.

mod common;

use common::*;
use xaif2fortran::{runtime::runtime_files, Mode};

fn run_with_runtime(mode: Mode, driver: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    let mut sources = String::new();
    for (name, text) in runtime_files(mode) {
        std::fs::write(dir.path().join(name), text).unwrap();
        sources.push_str(name);
        sources.push('\n');
    }
    std::fs::write(dir.path().join("SOURCES"), sources).unwrap();
    compile_and_run(dir.path(), &fixture(driver))
}

#[test]
fn tapes_grow_and_pop_back_in_reverse_order() {
    let out = run_with_runtime(Mode::AdjointSplit, "runtime_tape.driver.f90");
    assert!(out.contains("OK") && !out.contains("FAIL"), "{out}");
}

#[test]
fn array_snapshots_come_back_with_their_bounds() {
    let out = run_with_runtime(Mode::AdjointSplit, "runtime_array_snapshots.driver.f90");
    assert!(out.contains("OK") && !out.contains("FAIL"), "{out}");
}

#[test]
fn reserving_room_ahead_keeps_entries_and_order() {
    let out = run_with_runtime(Mode::AdjointSplit, "runtime_grow_to.driver.f90");
    assert!(out.contains("OK") && !out.contains("FAIL"), "{out}");
}

#[test]
fn running_out_of_memory_names_the_stack_and_the_size() {
    let dir = tempfile::tempdir().unwrap();
    let mut sources = Vec::new();
    for (name, text) in runtime_files(Mode::AdjointSplit) {
        std::fs::write(dir.path().join(name), text).unwrap();
        sources.push(name.to_string());
    }
    let built = std::process::Command::new("gfortran")
        .current_dir(dir.path())
        .args(&sources)
        .arg(fixture("runtime_oom.driver.f90"))
        .args(["-o", "driver"])
        .output()
        .expect("gfortran runs");
    assert!(
        built.status.success(),
        "{}",
        String::from_utf8_lossy(&built.stderr)
    );
    let run = std::process::Command::new(dir.path().join("driver"))
        .output()
        .expect("driver runs");
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(!run.status.success(), "{stderr}");
    assert!(!String::from_utf8_lossy(&run.stdout).contains("FAIL"));
    assert!(
        stderr.contains("out of memory growing stack oad_dt to 1152921504606846976 entries"),
        "{stderr}"
    );
}

/// The snapshot slots of checkpointed loops (`OAD_snapshots`), driven as
/// the generated adjoint drives them: states at every turn, turn order,
/// balanced stacks, slots above the caller's data, pointers back at the
/// base, the optimal number of plain iterations (0 to 300 steps, 1 to 64
/// snapshots).
#[test]
fn snapshot_slots_reverse_a_loop() {
    let out = run_with_runtime(Mode::AdjointSplit, "runtime_snapshots.driver.f90");
    assert!(out.contains("OK") && !out.contains("FAIL"), "{out}");
}

/// The trip count the back end reserves tape room for before a counted
/// loop equals the number of iterations gfortran runs, for positive and
/// negative steps, empty loops and bounds that are expressions.
#[test]
fn reserved_trip_count_matches_the_do_loop() {
    let cases = [
        ("1", "n", "1"),
        ("0", "n + 1", "1"),
        ("n", "1", "1"),
        ("2", "n - 1", "3"),
        ("n", "1", "-1"),
        ("n + 2", "-n", "-4"),
        ("1", "n", "-1"),
        ("-3", "n*2", "n"),
        ("5", "5", "7"),
    ];
    let mut prog = String::from(
        "program trips\n  implicit none\n  integer :: i, n, cnt, m\n  integer(8) :: want\n  logical :: ok\n  ok = .true.\n  do m = -3, 9\n    n = m\n",
    );
    for (lo, hi, step) in cases {
        let trips = xaif2fortran::codegen::push_runs::trip_count(lo, hi, step);
        let header = if step == "1" {
            format!("do i = {lo}, {hi}")
        } else {
            format!("do i = {lo}, {hi}, {step}")
        };
        if step.starts_with('n') {
            // a zero step is not a loop
            prog.push_str("    if (n == 0) n = 1\n");
        }
        prog.push_str(&format!(
            "    want = {trips}\n    cnt = 0\n    {header}\n      cnt = cnt + 1\n    end do\n    if (cnt /= want) then\n      print *, 'FAIL', n, '{header}', cnt, want\n      ok = .false.\n    end if\n    n = m\n"
        ));
    }
    prog.push_str("  end do\n  if (ok) print *, 'OK'\nend program trips\n");
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("SOURCES"), "").unwrap();
    let driver = dir.path().join("trips.f90");
    std::fs::write(&driver, prog).unwrap();
    let out = compile_and_run(dir.path(), &driver);
    assert!(out.contains("OK") && !out.contains("FAIL"), "{out}");
}

#[test]
fn vector_active_type_has_at_least_100_directions() {
    let out = run_with_runtime(Mode::VectorTangent, "runtime_vector.driver.f90");
    assert!(out.contains("OK") && !out.contains("FAIL"), "{out}");
}
