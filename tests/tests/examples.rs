//! Every example in `tests/examples/`, one test per leg: the original
//! program with finite differences, then each derivative mode. Legs listed
//! in `tests/examples/EXPECTED_FAILURES` are run and reported but do not
//! fail the test, unless they pass (then the list is stale).
//!
//! `cargo test -p openad-tests --test examples -- --nocapture` shows the tables;
//! `OPENAD_EXAMPLES=box,heat_1d` restricts the run to some examples.

use openad_tests::{
    example_corpus, parallel_map, report, run_mode_test, run_mode_test_on, LegResult,
};

/// The original programs must compile with gfortran as they are, run, and
/// give finite, non-trivial finite-difference Jacobians: every other leg is
/// compared against them.
#[test]
fn original_programs_and_finite_differences() {
    let corpus = example_corpus();
    assert!(
        corpus.examples.len() >= 60 || std::env::var_os("OPENAD_EXAMPLES").is_some(),
        "the corpus should hold at least 60 examples, found {}",
        corpus.examples.len()
    );
    let results: Vec<LegResult> = parallel_map(&corpus.examples, |entry| LegResult {
        name: entry.example.name.clone(),
        mode: "orig".into(),
        outcome: entry
            .finite_differences()
            .as_ref()
            .map(|_| 0.0)
            .map_err(Clone::clone),
        note: String::new(),
    });
    let complaints = report("original programs + finite differences", &results);
    assert!(complaints.is_empty(), "{}", complaints.join("\n\n"));
}

#[test]
fn tangent_mode_f() {
    run_mode_test("f");
}

#[test]
fn vector_tangent_mode_fv() {
    run_mode_test("fv");
}

#[test]
fn adjoint_split_mode_rs() {
    run_mode_test("rs");
}

#[test]
fn adjoint_joint_mode_rj() {
    run_mode_test("rj");
}

/// Split mode with every flattened run taped as its preaccumulated
/// Jacobian (the default `auto` picks per run; this forces the basic-block
/// form wherever a run has more than one statement).
#[test]
fn adjoint_split_mode_rs_basic_block() {
    run_mode_test("rs-bb");
}

/// Examples whose adjoints exercise recomputed partials where they can go
/// wrong (self-overwriting statements, values overwritten later, joint
/// re-runs, checkpointed loops, call trees, array syntax, derived types,
/// black boxes, MPI calls). The forced legs run on these only, to keep the suite
/// short; `OPENAD_ALL_EXAMPLES=1` runs them on the whole corpus (all pass
/// but the refusals listed in EXPECTED_FAILURES).
const RECOMPUTE_EXAMPLES: &[&str] = &[
    "recompute_cells",
    "recompute_rerun_ckp",
    "hllflux",
    "snapshot_riders",
    "branch_paths_clip",
    "chembox",
    "flux_call_tree",
    "element_checkpoint_rerun",
    "ckp_diffusion",
    "ckp_nested",
    "internal_in_module",
    "derived_module_state",
    "heat_1d",
    "stress_call_chain",
    "sections_time_levels",
    "where_clipping",
    "black_box_lapack",
    "ode_rk4",
    "advection_upwind",
    "alloc_persistent",
    "mpi_nonblocking_diffusion2d",
    "snapshot_shallow_water",
    "cg_leading_exit",
    "stable_index_args",
    "tbr_overwritten_levels",
    "tbr_time_levels",
    "shared_reciprocals",
    "tbp_ice_column",
];

/// Split and joint mode with the partials of every run that allows it
/// recomputed in the reverse sweep from taped values (the default `auto`
/// recomputes only where its cost model says so).
#[test]
fn adjoint_split_mode_rs_recomputed() {
    run_mode_test_on("rs-rc", Some(RECOMPUTE_EXAMPLES));
}

#[test]
fn adjoint_joint_mode_rj_recomputed() {
    run_mode_test_on("rj-rc", Some(RECOMPUTE_EXAMPLES));
}
