//! Template expansion for the adjoint modes, with a hand-written
//! ReplacementList (plain, taping and adjoint sections of y = sin(x)*x);
//! the drivers compare x%d with the exact derivative.

mod common;

use common::*;

#[test]
fn split_template_runs_tape_then_adjoint_sweeps() {
    let (dir, _) = check_case("adjoint", "rs", "adjoint.split_driver.f90");
    let program = std::fs::read_to_string(dir.path().join("adjoint.oad.f90")).unwrap();
    // push_real / pop_real are inlined.
    assert!(program.contains("oad_dt(oad_dt_ptr) = oad_p1"), "{program}");
    assert!(!program.contains("call push_real"));
}

#[test]
fn joint_template_runs_both_sweeps_in_one_call() {
    check_case("adjoint", "rj", "adjoint.joint_driver.f90");
}

#[test]
fn user_template_replaces_the_default() {
    let dir = tempfile::tempdir().unwrap();
    let template = fixture("custom_template.f90");
    let out = differentiate(
        "adjoint",
        "adjoint.canon.f90",
        "rs",
        dir.path(),
        &["--template", template.to_str().unwrap()],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let program = std::fs::read_to_string(dir.path().join("adjoint.oad.f90")).unwrap();
    assert!(program.contains("oad_custom_calls = 1"), "{program}");
    assert!(!program.contains("our_rev_mode%plain"), "{program}");
    // Still a working split adjoint (tape and adjoint sections present).
    let stdout = compile_and_run(dir.path(), &fixture("adjoint.split_driver.f90"));
    assert!(stdout.contains("OK"), "{stdout}");
}

#[test]
fn split_adjoint_through_a_call() {
    check_case("adjoint_calls", "rs", "adjoint_calls.split_driver.f90");
}

/// The callee calls nothing with an adjoint: by default it gets the
/// joint leaf template, is taped in its caller's forward sweep and is not
/// checkpointed or re-run.
#[test]
fn joint_adjoint_tapes_a_leaf_callee_in_the_callers_sweeps() {
    let (dir, _) = check_case("adjoint_calls", "rj", "adjoint_calls.joint_driver.f90");
    let program = std::fs::read_to_string(dir.path().join("adjoint_calls.oad.f90")).unwrap();
    assert!(!program.contains("oad_cdt(oad_cdt_ptr) = u%v"), "{program}");
    assert!(
        program.contains("if (our_rev_mode%arg_store .or. (our_rev_mode%tape"),
        "{program}"
    );
}

/// With the joint template given for every unit, the callee is
/// checkpointed on entry and re-run in the reverse sweep.
#[test]
fn joint_adjoint_checkpoints_and_reruns_the_callee() {
    let program = rerun_everything("adjoint_calls", "adjoint_calls.joint_driver.f90");
    assert!(program.contains("oad_cdt(oad_cdt_ptr) = u%v"), "{program}");
}

/// The booster output with `template_name` set, written to a temporary
/// directory.
fn xaif_with_template_name(dir: &std::path::Path, name: &str) -> std::path::PathBuf {
    let text = std::fs::read_to_string(fixture("adjoint.xb.xaif")).unwrap();
    let text = text.replace("template_name=\"\"", &format!("template_name=\"{name}\""));
    let path = dir.join("named.xb.xaif");
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn template_named_by_the_subroutine_is_found_next_to_the_canonical_source() {
    let work = tempfile::tempdir().unwrap();
    let xaif = xaif_with_template_name(work.path(), "custom_template");
    let out_dir = work.path().join("out");
    let out = xaif2fortran()
        .args(["-m", "rs", "--canon"])
        .arg(fixture("adjoint.canon.f90"))
        .args(declarations_of("adjoint.canon.f90"))
        .arg("-o")
        .arg(&out_dir)
        .arg(&xaif)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let program = std::fs::read_to_string(out_dir.join("adjoint.oad.f90")).unwrap();
    assert!(program.contains("oad_custom_calls = 1"), "{program}");
}

#[test]
fn missing_named_template_is_an_error() {
    let work = tempfile::tempdir().unwrap();
    let xaif = xaif_with_template_name(work.path(), "no_such_template");
    let out_dir = work.path().join("out");
    let out = xaif2fortran()
        .args(["-m", "rj", "--canon"])
        .arg(fixture("adjoint.canon.f90"))
        .args(declarations_of("adjoint.canon.f90"))
        .arg("-o")
        .arg(&out_dir)
        .arg(&xaif)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("template 'no_such_template' not found"),
        "{stderr}"
    );
    assert!(!out_dir.exists());
}

#[test]
fn labelled_opaque_statements_repeated_in_two_sections_compile() {
    let (dir, stdout) = check_case("adjoint", "rs", "adjoint.split_driver.f90");
    assert!(stdout.contains(" y =  0.4510"), "{stdout}");
    let program = std::fs::read_to_string(dir.path().join("adjoint.oad.f90")).unwrap();
    assert_eq!(
        program.matches("100 format(a, f8.4)").count(),
        1,
        "{program}"
    );
    assert_eq!(
        program.matches("write(*, 100) ' y =', y%v").count(),
        2,
        "{program}"
    );
    assert!(!program.contains("20 write"), "{program}");
}

/// With the joint template for every unit (the callee is re-run), its
/// checkpoint holds the module variable it reads; by default the callee,
/// a leaf, is taped in its caller's sweeps and needs none.
#[test]
fn joint_checkpoints_cover_module_variables() {
    check_case("joint_module", "rj", "joint_module.driver.f90");
    let program = rerun_everything("joint_module", "joint_module.driver.f90");
    assert!(program.contains("oad_cdt(oad_cdt_ptr) = g"), "{program}");
}

/// Case `name` in joint mode with the built-in joint template given
/// explicitly (`--template`), so that every unit, leaves too, is
/// checkpointed and re-run; compiled and run with `driver`, which must
/// print OK. The generated program's text.
fn rerun_everything(name: &str, driver: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    let template = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("templates/joint.f90");
    let out = differentiate(
        name,
        &format!("{name}.canon.f90"),
        "rj",
        dir.path(),
        &["--template", template.to_str().unwrap()],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let program = std::fs::read_to_string(dir.path().join(format!("{name}.oad.f90"))).unwrap();
    let stdout = compile_and_run(dir.path(), &fixture(driver));
    assert!(
        stdout.contains("OK") && !stdout.contains("FAIL"),
        "{stdout}\n{program}"
    );
    program
}
