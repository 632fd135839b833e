//! The split layout of active local arrays (back end `active_layout.rs`):
//! which arrays of the corpus example `active_layout_mixed` get two
//! `real(8)` arrays and which stay `type(active)`, per mode and with
//! `--active-layout aos|locals`; across calls (`split_interface.rs`): the
//! dummy of `advance` and the array head passes to it. The derivatives themselves are checked by the
//! corpus (finite differences and the dot-product test, every mode).

use std::process::Command;

use openad_tests::{examples_dir, openad_program};

/// The generated program of `openad -m MODE [EXTRA] head.f90`.
fn generated(mode: &str, extra: &[&str]) -> String {
    let openad = openad_program().unwrap_or_else(|e| panic!("{e}"));
    let work = tempfile::tempdir().unwrap();
    let out = work.path().join("out");
    let output = Command::new(openad)
        .args(["-m", mode, "-o"])
        .arg(&out)
        .args(extra)
        .arg(examples_dir().join("active_layout_mixed").join("head.f90"))
        .output()
        .unwrap_or_else(|e| panic!("cannot run openad: {e}"));
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    std::fs::read_to_string(out.join("head.oad.f90")).unwrap()
}

const SPLIT: [&str; 15] = [
    "real(8), allocatable :: oad_v_flux(:), oad_d_flux(:)",
    "real(8) :: oad_v_grad(n, 2), oad_d_grad(n, 2)",
    "real(8), allocatable :: oad_v_hist(:), oad_d_hist(:)",
    "real(8) :: oad_v_lap(n), oad_d_lap(n)",
    // Across the call: advance's dummy, head's allocatable passed to it;
    // the split routine under its own name, the user's `advance` keeping
    // its interface beside it (CONTRACT.md).
    "subroutine advance_oad_s(oad_v_u, oad_d_u, oad_v_c, oad_d_c, dt)",
    "call advance_oad_s(oad_v_u, oad_d_u, x(3)%v, x(3)%d, 0.02d0)",
    "subroutine advance(u, c, dt)",
    "call advance_oad_s(u%v, u%d, c%v, c%d, dt)",
    "call relax_oad_s(a%v, a%d, k)",
    "real(8) :: oad_v_u(n), oad_d_u(n)",
    "real(8), allocatable :: oad_v_u(:), oad_d_u(:)",
    // relax's dummy (bounding a local's declaration through `size`), and
    // the arrays passed to it.
    "real(8) :: oad_v_a(:), oad_d_a(:)",
    "real(8) :: oad_v_tmp(size(oad_v_a)), oad_d_tmp(size(oad_v_a))",
    "real(8) :: oad_v_work(0:n + 1), oad_d_work(0:n + 1)",
    "real(8) :: oad_v_s(n), oad_d_s(n)",
];

/// A module variable.
const KEPT: [&str; 1] = ["type(active) :: eta(n)"];

#[test]
fn locals_seen_only_by_their_routine_are_split_in_f_rs_rj() {
    for mode in ["f", "rs", "rj"] {
        let text = generated(mode, &[]);
        for want in SPLIT.iter().chain(KEPT.iter()) {
            assert!(text.contains(want), "-m {mode}: no `{want}`");
        }
        assert!(!text.contains("type(active) :: lap"), "-m {mode}");
    }
}

#[test]
fn vector_mode_and_the_aos_switch_keep_type_active() {
    for (mode, extra) in [("fv", &[][..]), ("rs", &["--active-layout", "aos"][..])] {
        let text = generated(mode, extra);
        assert!(!text.contains("oad_v_"), "-m {mode} {extra:?}");
        assert!(
            text.contains("type(active), allocatable :: flux(:)"),
            "-m {mode} {extra:?}"
        );
    }
}

#[test]
fn the_locals_switch_keeps_every_dummy_type_active() {
    let text = generated("rs", &["--active-layout", "locals"]);
    for want in [
        "subroutine advance(u, c, dt)",
        "type(active) :: u(n)",
        "type(active), allocatable :: u(:)",
        "type(active) :: work(0:n + 1)",
        "type(active) :: s(n)",
        "type(active) :: a(:)",
        "real(8) :: oad_v_tmp(size(a)), oad_d_tmp(size(a))",
        "real(8) :: oad_v_lap(n), oad_d_lap(n)",
    ] {
        assert!(text.contains(want), "no `{want}`");
    }
}
