//! What the joint adjoint (`-m rj`) stores and re-runs, read off the
//! generated code (the corpus checks the numbers; these check the cost
//! model of docs/adjoint.md, which a change could break without changing
//! a single derivative):
//! - a loop-free routine gets the leaf template and a plain copy, and is
//!   neither checkpointed nor re-run;
//! - a re-run routine that touches an array argument only at elements its
//!   call fixes checkpoints those elements, not the array;
//! - a loop index passed to a re-run routine is restored at the call site;
//! - a routine with loops whose tape per call is at most twice its
//!   checkpoint is taped in its caller like a loop-free one; one whose
//!   tape grows with a loop that subscripts nothing, or that calls a
//!   routine, is re-run.

use std::fs;
use std::path::Path;

use openad_tests::{examples_dir, generated_code, work_root};

/// `openad -m rj` on `source` (written to a fresh directory named `name`);
/// the generated program's text.
fn joint_code(name: &str, source: &str) -> String {
    let dir = work_root().join("joint-structure").join(name);
    let _ = fs::remove_dir_all(&dir);
    generated_code(&dir, "head.f90", source, "rj")
}

/// The text of subroutine `name` in `code`: the body the program runs,
/// `NAME_oad_s` when its dummies are split (`NAME` is then the user's
/// wrapper around it).
fn routine<'a>(code: &'a str, name: &str) -> &'a str {
    let split = format!("{name}_oad_s");
    let name = if code.contains(&format!("subroutine {split}(")) {
        split.as_str()
    } else {
        name
    };
    let start = code
        .find(&format!("subroutine {name}("))
        .unwrap_or_else(|| panic!("no subroutine {name} in\n{code}"));
    let end = code[start..]
        .find(&format!("end subroutine {name}"))
        .unwrap_or_else(|| panic!("no end of {name}"));
    &code[start..start + end]
}

#[test]
fn loop_free_routine_is_taped_in_its_callers_sweeps_and_copied_for_plain_runs() {
    let source = fs::read_to_string(Path::new(&examples_dir()).join("flux_call_tree/head.f90"))
        .expect("flux_call_tree example");
    let code = joint_code("flux_call_tree", &source);
    let flux = routine(&code, "flux");
    assert!(!flux.contains("oad_cdt"), "flux is checkpointed:\n{flux}");
    assert!(
        flux.contains("if (our_rev_mode%arg_store .or. (our_rev_mode%tape"),
        "flux does not have the leaf template:\n{flux}"
    );
    assert!(
        code.contains("subroutine oad_plain_flux(oad_v_u, oad_d_u, i, oad_v_f, oad_d_f)"),
        "{code}"
    );
    let step = routine(&code, "step");
    assert!(
        step.contains("call oad_plain_flux(oad_v_u, oad_d_u, i, fl%v, fl%d)"),
        "{step}"
    );
    // Not re-run: no call-site restore of the loop index.
    assert!(!step.contains("oad_cit"), "{step}");
}

#[test]
fn rerun_routine_checkpoints_the_elements_it_touches_and_the_caller_restores_the_index() {
    // `relax` has a loop, so it is re-run from its checkpoint; it touches
    // `u` only at u(i) and u(i+1).
    let source =
        fs::read_to_string(Path::new(&examples_dir()).join("element_checkpoint_rerun/head.f90"))
            .expect("element_checkpoint_rerun example");
    let code = joint_code("element_checkpoint", &source);
    let relax = routine(&code, "relax");
    assert!(
        relax.contains("oad_cdt(oad_cdt_ptr) = oad_v_u(i)"),
        "{relax}"
    );
    assert!(
        relax.contains("oad_cdt(oad_cdt_ptr) = oad_v_u(i + 1)"),
        "{relax}"
    );
    assert!(
        !relax.contains("size(oad_v_u)"),
        "whole u checkpointed:\n{relax}"
    );
    let sweep = routine(&code, "sweep");
    assert!(sweep.contains("oad_cit(oad_cit_ptr) = i"), "{sweep}");
    assert!(
        sweep.contains("if (i /= oad_cit(oad_cit_ptr)) i = oad_cit(oad_cit_ptr)"),
        "{sweep}"
    );
}

/// Whether routine `name` has the leaf template (taped in its caller's
/// sweeps) rather than the joint one (checkpointed and re-run).
fn taped_in_caller(code: &str, name: &str) -> bool {
    let text = routine(code, name);
    let leaf = text.contains("if (our_rev_mode%arg_store .or. (our_rev_mode%tape");
    let joint = text.contains("if (our_rev_mode%arg_store) then");
    assert!(leaf != joint, "{name}: neither or both templates:\n{text}");
    leaf
}

#[test]
fn routines_with_loops_are_taped_in_the_caller_when_their_tape_is_within_twice_the_checkpoint() {
    let source = fs::read_to_string(Path::new(&examples_dir()).join("taped_loop_callees/head.f90"))
        .expect("taped_loop_callees example");
    let code = joint_code("taped_loop_callees", &source);
    // Tape: a snapshot of t and kappa (or both vectors); checkpoint: the
    // same arrays.
    assert!(taped_in_caller(&code, "diffuse"));
    assert!(taped_in_caller(&code, "oad_s_dot"));
    // nsub sub-steps over the column: tape 4 x the checkpoint.
    assert!(!taped_in_caller(&code, "react"));
    // An iteration to convergence; a routine calling it; the step.
    assert!(!taped_in_caller(&code, "clip_level"));
    assert!(!taped_in_caller(&code, "settle"));
    assert!(!taped_in_caller(&code, "column_step"));
    let step = routine(&code, "column_step");
    assert!(
        step.contains(
            "call oad_plain_diffuse(oad_v_t, oad_d_t, oad_v_kappa, oad_d_kappa, oad_v_tn, oad_d_tn)"
        ),
        "{step}"
    );
    assert!(!routine(&code, "diffuse").contains("oad_cdt"));
}

#[test]
fn a_time_step_updating_its_whole_state_is_taped_in_the_time_loop() {
    // bench/programs/assoc_plain: step's tape is a snapshot of h (plus
    // loop counters), its checkpoint h itself (hn is written first).
    let source = fs::read_to_string(
        Path::new(&examples_dir()).join("../../bench/programs/assoc_plain/head.f90"),
    )
    .expect("assoc_plain benchmark");
    let code = joint_code("assoc_plain", &source);
    assert!(taped_in_caller(&code, "step"));
}

#[test]
fn a_rerun_routine_checkpoints_the_globals_its_call_tree_reads_not_those_it_only_sees() {
    // `timestep` is re-run; it and the routines it calls read `forcing`
    // and `clock` (module `column_state`) and `kappa`, `drag` (common
    // `/mixing/`, declared only two calls down); it sees `archive` and
    // `archived_steps` (it uses the whole module) and declares common
    // `/diagnostics/`, but nothing it reaches reads them.
    let source = fs::read_to_string(Path::new(&examples_dir()).join("ckpt_read_sets/head.f90"))
        .expect("ckpt_read_sets example");
    let code = joint_code("ckpt_read_sets", &source);
    let step = routine(&code, "timestep");
    for restored in ["clock = oad_cdt(oad_cdt_ptr)", "forcing%v = oad_cdt("] {
        assert!(step.contains(restored), "no '{restored}' in\n{step}");
    }
    // `/mixing/` is declared only in `exchange`: `timestep` names its
    // members through renaming `use` lines of the module it becomes.
    for member in ["kappa", "drag"] {
        let local = step
            .lines()
            .find_map(|l| l.trim().strip_suffix(&format!(" => {member}")))
            .and_then(|l| l.rsplit("only: ").next())
            .unwrap_or_else(|| panic!("/mixing/ member {member} not made visible:\n{step}"));
        assert!(
            step.contains(&format!("oad_cdt(oad_cdt_ptr) = {local}")),
            "{member} (as {local}) not stored:\n{step}"
        );
    }
    assert!(!step.contains("archive"), "{step}");
    // Integers go to the integer checkpoint stack (`oad_cit`).
    for unread in ["steps_done", "warnings"] {
        assert!(
            !step.contains(&format!(") = {unread}\n")),
            "{unread} is stored:\n{step}"
        );
    }
    // The deepest routine is re-run too: it reads `forcing` and `clock`
    // by the names it uses, and nothing of `archive`.
    let exchange = routine(&code, "exchange");
    assert!(
        exchange.contains("clock = oad_cdt(oad_cdt_ptr)"),
        "{exchange}"
    );
    assert!(!exchange.contains("archive"), "{exchange}");
}
