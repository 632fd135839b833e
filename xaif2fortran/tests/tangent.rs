//! Tangent (and vector tangent) code from hand-written booster output,
//! compiled with gfortran and checked against exact hand derivatives
//! (tolerance 1e-12) by the drivers in fixtures/.

mod common;

use common::*;

#[test]
fn sin_x_times_x_with_opaque_print_and_initialised_active_local() {
    let (dir, stdout) = check_case("sinx", "f", "sinx.driver.f90");
    // The print statement (a marker) sees the value, not the type.
    assert!(stdout.contains("y =  0.4510"), "{stdout}");
    let program = std::fs::read_to_string(dir.path().join("sinx.oad.f90")).unwrap();
    assert!(program.contains("print '(a, f8.4)', ' y =', y%v"));
    assert!(program.contains("type(active), save :: scale = active(1.0d0)"));
    assert!(!program.contains("!$oad"));
}

#[test]
fn counted_loop_if_else_and_active_array() {
    let (dir, _) = check_case("loop_if", "f", "loop_if.driver.f90");
    let program = std::fs::read_to_string(dir.path().join("loop_if.oad.f90")).unwrap();
    assert!(program.contains("do i = 1, 3"), "{program}");
    assert!(program.contains("type(active) :: x(3)"), "{program}");
}

#[test]
fn vector_mode_propagates_all_directions_at_once() {
    check_case("loop_if", "fv", "loop_if.vector_driver.f90");
}

#[test]
fn calls_convert_between_active_and_passive_arguments() {
    let (dir, stdout) = check_case("calls", "f", "calls.driver.f90");
    assert!(stdout.contains("show  1.6900"), "{stdout}");
    let program = std::fs::read_to_string(dir.path().join("calls.oad.f90")).unwrap();
    // sq's scalar dummies take the split layout (`split_interface.rs`):
    // the caller's type(active) scalars are passed as their components.
    assert!(
        program.contains("call sq_oad_s(x%v, x%d, t%v, t%d)"),
        "{program}"
    );
    assert!(program.contains("call show(t%v)"));
    assert!(program.contains("call sq_oad_s(oad_ctmp1%v, oad_ctmp1%d, oad_ctmp2%v, oad_ctmp2%d)"));
    // The array temporary takes the split layout, and so does sumsq's
    // dummy it is passed to, under the name `sumsq_oad_s`; `sumsq`
    // itself keeps its type(active) interface.
    assert!(
        program.contains("allocate(oad_v_oad_ctmp3(size(c3, 1)), oad_d_oad_ctmp3(size(c3, 1)))"),
        "{program}"
    );
    assert!(
        program.contains(
            "call sumsq_oad_s(oad_v_oad_ctmp3, oad_d_oad_ctmp3, oad_ctmp4%v, oad_ctmp4%d)"
        ),
        "{program}"
    );
    assert!(
        program.contains("subroutine sumsq_oad_s(oad_v_v, oad_d_v, oad_v_r, oad_d_r)")
            && program.contains("call sumsq_oad_s(v%v, v%d, r%v, r%d)"),
        "{program}"
    );
}

#[test]
fn unstructured_graphs_become_gotos() {
    let (dir, stdout) = check_case("goto", "f", "goto.driver.f90");
    assert!(
        stdout.contains("iterations: 6") && stdout.contains("iterations: 11"),
        "{stdout}"
    );
    let program = std::fs::read_to_string(dir.path().join("goto.oad.f90")).unwrap();
    // head's backward goto stays a goto; head2's loop with an exit edge
    // nests and comes out as a do loop with exit.
    assert!(program.contains("goto"), "{program}");
    assert!(program.contains("do i = 1, 10"), "{program}");
    assert!(program.contains("      exit"), "{program}");
}

#[test]
fn sources_lists_runtime_first() {
    let (dir, _) = check_case("sinx", "f", "sinx.driver.f90");
    let sources = std::fs::read_to_string(dir.path().join("SOURCES")).unwrap();
    assert_eq!(
        sources.lines().collect::<Vec<_>>(),
        vec![
            "OAD_active.f90",
            "OAD_rev.f90",
            "OAD_tape.f90",
            "sinx.oad.f90"
        ]
    );
}

#[test]
fn select_case_while_and_post_test_loops_with_active_module_variable() {
    let (dir, _) = check_case("constructs", "f", "constructs.driver.f90");
    let program = std::fs::read_to_string(dir.path().join("constructs.oad.f90")).unwrap();
    assert!(program.contains("case (1, 2)"), "{program}");
    assert!(program.contains("do while (n < 2)"), "{program}");
    assert!(
        program.contains("type(active) :: g = active(2.0d0)"),
        "{program}"
    );
    assert!(!program.contains("goto"), "{program}");
}

#[test]
fn paths_that_do_not_nest_are_lowered_with_gotos() {
    let (dir, _) = check_case("constructs_goto", "f", "constructs_goto.driver.f90");
    let program = std::fs::read_to_string(dir.path().join("constructs_goto.oad.f90")).unwrap();
    assert!(program.contains("goto"), "{program}");
    assert!(!program.contains("do while ("), "{program}");
}

#[test]
fn downward_counted_loop_keeps_its_negative_step() {
    let (dir, _) = check_case("loop_down", "f", "loop_down.driver.f90");
    let program = std::fs::read_to_string(dir.path().join("loop_down.oad.f90")).unwrap();
    assert!(program.contains("do i = 3, 1, -1"), "{program}");
}

#[test]
fn active_common_block_becomes_a_module_with_renames() {
    let (dir, _) = check_case("common", "f", "common.driver.f90");
    let program = std::fs::read_to_string(dir.path().join("common.oad.f90")).unwrap();
    assert!(
        program.contains("use oad_common_cb, only: q => p, m => n"),
        "{program}"
    );
    assert!(!program.contains("common /cb/"), "{program}");
}

#[test]
fn exits_from_nested_loops_are_named_and_early_exits_return() {
    let (dir, _) = check_case("jumps", "f", "jumps.driver.f90");
    let program = std::fs::read_to_string(dir.path().join("jumps.oad.f90")).unwrap();
    assert!(program.contains(": do i = 1, 3"), "{program}");
    assert!(program.contains("exit oad_loop"), "{program}");
    assert!(program.contains("return"), "{program}");
    assert!(!program.contains("goto"), "{program}");
}

#[test]
fn use_renamed_module_variable_and_interface_body() {
    let (dir, stdout) = check_case("modules", "f", "modules.driver.f90");
    assert!(stdout.contains("friction  0.8000"), "{stdout}");
    let program = std::fs::read_to_string(dir.path().join("modules.oad.f90")).unwrap();
    assert!(program.contains("friction%v = 0.5d0*x%v"), "{program}");
    assert!(program.contains("call sq(friction, y)"), "{program}");
    // The interface body follows the subroutine, not its own (passive) scope.
    assert!(program.contains("      type(active) :: u"), "{program}");
}
