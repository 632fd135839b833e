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
fn vector_active_type_has_at_least_100_directions() {
    let out = run_with_runtime(Mode::VectorTangent, "runtime_vector.driver.f90");
    assert!(out.contains("OK") && !out.contains("FAIL"), "{out}");
}
