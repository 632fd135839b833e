//! Routines without source (black boxes, `openad --black-box FILE` and
//! `!$openad BLACK-BOX PASSIVE`): the warning at each call of a passive
//! one, and the errors for wrong declarations, each at its file, line and
//! column, with exit status 1 and no output left behind. The derivatives
//! themselves are checked by the corpus examples `black_box_lapack` and
//! `black_box_passive` in every mode.

use std::fs;
use std::path::Path;
use std::process::Command;

use openad_tests::{examples_dir, openad_program};

/// Runs `openad -m rs -o DIR/out ARGS` in `dir`: exit code and stderr.
fn openad(dir: &Path, args: &[&str]) -> (Option<i32>, String) {
    let openad = openad_program().unwrap_or_else(|e| panic!("{e}"));
    let output = Command::new(openad)
        .current_dir(dir)
        .args(["-m", "rs", "-o"])
        .arg(dir.join("out"))
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot run openad: {e}"));
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// 1-based line and column of the first occurrence of `needle` in `file`.
fn position_of(file: &Path, needle: &str) -> (usize, usize) {
    let text = fs::read_to_string(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    for (k, line) in text.lines().enumerate() {
        if let Some(c) = line.find(needle) {
            return (k + 1, c + 1);
        }
    }
    panic!("`{needle}` not in {}", file.display())
}

#[test]
fn passive_black_boxes_warn_at_each_call() {
    let example = examples_dir().join("black_box_passive");
    let work = tempfile::tempdir().unwrap();
    for f in ["head.f90", "monitor.bb"] {
        fs::copy(example.join(f), work.path().join(f)).unwrap();
    }
    let (code, stderr) = openad(work.path(), &["--black-box", "monitor.bb", "head.f90"]);
    assert_eq!(code, Some(0), "{stderr}");
    let head = work.path().join("head.f90");
    for (call, routine, dropped) in [
        ("call monitor_tracer", "monitor_tracer", "mass"),
        (
            "call record_extremes",
            "record_extremes",
            "argument 3, argument 4",
        ),
    ] {
        let (line, column) = position_of(&head, call);
        let expected = format!(
            "head.f90:{line}:{column}: warning: call of passive black box '{routine}': derivatives through it are dropped (real outputs without derivative: {dropped})"
        );
        assert_eq!(
            stderr.matches(&expected).count(),
            1,
            "expected once: {expected}\nstderr:\n{stderr}"
        );
    }
    assert!(work.path().join("out/head.oad.f90").is_file());
}

const LIBRARY: &str = "\
subroutine solve(n, a, b, info)
  tangent solve_d
  adjoint solve_b
  integer, intent(in) :: n
  real(8), intent(in), active :: a(n, n)
  real(8), intent(inout), active :: b(n)
  integer, intent(out) :: info
end subroutine
";

/// A model calling `solve` (`CALL` replaced) under the declaration `LIBRARY`.
fn model(call: &str) -> String {
    format!(
        "subroutine head(x, y)\n  real(8), intent(in) :: x(2)\n  real(8), intent(out) :: y(2)\n  real(8) :: a(2, 2), b(2)\n  integer :: info\n  !$openad INDEPENDENT(x)\n  a = 1.0d0\n  a(1, 1) = x(1)\n  b = x\n  {call}\n  y = b\n  !$openad DEPENDENT(y)\nend subroutine head\n"
    )
}

/// openad refuses the case: exit 1, `FILE:LINE:COL: error:` with `message`,
/// no output directory.
fn assert_refused(files: &[(&str, &str)], args: &[&str], at: (&str, usize), message: &str) {
    let work = tempfile::tempdir().unwrap();
    for (name, text) in files {
        fs::write(work.path().join(name), text).unwrap();
    }
    let (code, stderr) = openad(work.path(), args);
    assert_eq!(code, Some(1), "{stderr}");
    let first = stderr.lines().next().unwrap_or("");
    let prefix = format!("{}:{}:", at.0, at.1);
    assert!(
        first.starts_with(&prefix) && first.contains(": error: ") && first.contains(message),
        "want `{prefix}COL: error: ...{message}...`, got:\n{stderr}"
    );
    let column = first[prefix.len()..].split(':').next().unwrap_or("");
    assert!(column.parse::<usize>().is_ok(), "no column in {first}");
    assert!(!work.path().join("out").exists(), "output left behind");
}

#[test]
fn a_call_with_the_wrong_number_of_arguments_is_refused_at_the_call() {
    assert_refused(
        &[
            ("m.f90", &model("call solve(2, a, b)")),
            ("lib.bb", LIBRARY),
        ],
        &["--black-box", "lib.bb", "m.f90"],
        ("m.f90", 10),
        "call of black box 'solve' passes 3 argument(s), its declaration at lib.bb:1:1 has 4",
    );
}

#[test]
fn a_routine_both_declared_and_defined_is_refused_at_its_definition() {
    let source = model("call solve(2, a, b, info)")
        + "subroutine solve(n, a, b, info)\n  integer n, info\n  real(8) a(n, n), b(n)\n  b = b / a(1, 1)\n  info = 0\nend subroutine\n";
    assert_refused(
        &[("m.f90", &source), ("lib.bb", LIBRARY)],
        &["--black-box", "lib.bb", "m.f90"],
        ("m.f90", 14),
        "'solve' is defined here and declared as a black box at lib.bb:1:1",
    );
}

#[test]
fn a_pragma_naming_a_routine_the_subroutine_does_not_call_is_refused_at_the_pragma() {
    let source = model("call solve(2, a, b, info)").replace(
        "  y = b\n",
        "  !$openad BLACK-BOX PASSIVE log_state(in, in)\n  y = b\n",
    );
    assert_refused(
        &[("m.f90", &source), ("lib.bb", LIBRARY)],
        &["--black-box", "lib.bb", "m.f90"],
        ("m.f90", 11),
        "BLACK-BOX pragma names 'log_state', which 'head' does not call",
    );
}

#[test]
fn a_pragma_with_the_wrong_number_of_intents_is_refused_at_the_call() {
    let source = model("call log_state(2, b)").replace(
        "  !$openad INDEPENDENT(x)\n",
        "  !$openad INDEPENDENT(x)\n  !$openad BLACK-BOX PASSIVE log_state(in)\n",
    );
    assert_refused(
        &[("m.f90", &source)],
        &["m.f90"],
        ("m.f90", 11),
        "call of black box 'log_state' passes 2 argument(s), its pragma at m.f90:7:",
    );
}

#[test]
fn wrong_declarations_are_refused_in_the_declaration_file() {
    let bad_active = LIBRARY.replace(
        "integer, intent(in) :: n",
        "integer, intent(in), active :: n",
    );
    assert_refused(
        &[
            ("m.f90", &model("call solve(2, a, b, info)")),
            ("lib.bb", &bad_active),
        ],
        &["--black-box", "lib.bb", "m.f90"],
        ("lib.bb", 4),
        "`active` needs a double precision real",
    );
    let no_adjoint = LIBRARY.replace("  adjoint solve_b\n", "");
    assert_refused(
        &[
            ("m.f90", &model("call solve(2, a, b, info)")),
            ("lib.bb", &no_adjoint),
        ],
        &["--black-box", "lib.bb", "m.f90"],
        ("lib.bb", 7),
        "black box 'solve' has no adjoint routine",
    );
}

#[test]
fn arguments_that_do_not_fit_the_declaration_are_refused_at_the_call() {
    assert_refused(
        &[
            ("m.f90", &model("call solve(2, a(1, 1), b, info)")),
            ("lib.bb", LIBRARY),
        ],
        &["--black-box", "lib.bb", "m.f90"],
        ("m.f90", 10),
        "argument 'a' of differentiable black box 'solve' is an array element or section",
    );
    assert_refused(
        &[("m.f90", &model("call solve(2, a, b, 1.5d0)")), ("lib.bb", LIBRARY)],
        &["--black-box", "lib.bb", "m.f90"],
        ("m.f90", 10),
        "argument 'info' of black box 'solve' is declared integer at lib.bb:1:1, the call passes a real(8)",
    );
}

#[test]
fn an_undeclared_routine_getting_real_data_points_to_black_box_declarations() {
    assert_refused(
        &[("m.f90", &model("call solve(2, a, b, info)"))],
        &["m.f90"],
        ("m.f90", 10),
        "declare it as a black box: openad --black-box FILE",
    );
}
