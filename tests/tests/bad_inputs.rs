//! Rejected input: openad exits 1, names `file:line:column` on stderr and
//! leaves no output directory behind. Each case is a file in
//! `tests/bad-inputs/` whose first line says where the error is
//! (`! error-at: LINE` or `! error-at: any`); cases that do not behave yet
//! are listed in `tests/examples/EXPECTED_FAILURES` with mode `bad`.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use openad_tests::{bad_inputs_dir, openad_program, parallel_map, report, LegResult};

/// The line the diagnostic must name, from the case's first line; `None` for any line.
fn expected_line(case: &Path) -> Option<u32> {
    let text = fs::read_to_string(case)
        .or_else(|_| fs::read_to_string(case.join("README")))
        .unwrap_or_default();
    let spec = text.split("error-at:").nth(1)?;
    let word = spec
        .split(|c: char| !c.is_ascii_alphanumeric())
        .find(|w| !w.is_empty())?;
    word.parse().ok()
}

/// Is there `NAME:LINE:COLUMN` in `stderr` (LINE as expected, if given)?
fn names_position(stderr: &str, file_name: &str, line: Option<u32>) -> bool {
    stderr.match_indices(file_name).any(|(at, _)| {
        let rest = &stderr[at + file_name.len()..];
        let mut fields = rest.splitn(3, ':');
        let (Some(""), Some(l), Some(c)) = (fields.next(), fields.next(), fields.next()) else {
            return false;
        };
        let column_ok = c.chars().next().is_some_and(|ch| ch.is_ascii_digit());
        let line_ok = match (l.parse::<u32>(), line) {
            (Ok(found), Some(want)) => found == want,
            (Ok(_), None) => true,
            (Err(_), _) => false,
        };
        column_ok && line_ok
    })
}

fn check_case(case: &PathBuf) -> LegResult {
    let name = case
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let outcome = (|| {
        let openad = openad_program()?;
        let work = tempfile::tempdir().map_err(|e| e.to_string())?;
        let out = work.path().join("out");
        let output = Command::new(&openad)
            .arg("-o")
            .arg(&out)
            .arg(case)
            .output()
            .map_err(|e| e.to_string())?;
        let stderr = String::from_utf8_lossy(&output.stderr);
        if output.status.code() != Some(1) {
            return Err(format!("exit status {} instead of 1", output.status));
        }
        let file_name = case.file_name().unwrap_or_default().to_string_lossy();
        let line = expected_line(case);
        if !names_position(&stderr, &file_name, line) {
            let want = line.map_or("LINE".to_string(), |l| l.to_string());
            return Err(format!(
                "stderr lacks `{file_name}:{want}:COLUMN`: {}",
                stderr.lines().next().unwrap_or("(empty)")
            ));
        }
        if out.exists() {
            return Err("the output directory was created".into());
        }
        Ok(0.0)
    })();
    LegResult {
        name,
        mode: "bad".into(),
        outcome,
        note: String::new(),
    }
}

#[test]
fn rejected_input_names_file_line_column_and_writes_nothing() {
    let mut cases: Vec<PathBuf> = fs::read_dir(bad_inputs_dir())
        .expect("tests/bad-inputs")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .collect();
    cases.sort();
    assert!(cases.len() >= 5, "expected at least five bad-input cases");
    let results = parallel_map(&cases, check_case);
    let complaints = report("bad input", &results);
    assert!(complaints.is_empty(), "{}", complaints.join("\n\n"));
}

#[test]
fn position_matching() {
    let err = "/tmp/a/syntax_error.f90:6:15: error: expected expression";
    assert!(names_position(err, "syntax_error.f90", Some(6)));
    assert!(names_position(err, "syntax_error.f90", None));
    assert!(!names_position(err, "syntax_error.f90", Some(7)));
    assert!(!names_position(
        "syntax_error.f90: error",
        "syntax_error.f90",
        None
    ));
}

/// What is still refused about allocation in the adjoint modes: in joint
/// mode (`rj`), (de)allocating an active array whose allocation outlives
/// the call (dummy argument, module variable), because a routine re-run in
/// the reverse sweep would find it still allocated. Named error, exit 1,
/// no output directory; the split mode differentiates the same program
/// (its gradient is checked by the `alloc_persistent` example).
#[test]
fn joint_adjoint_refuses_persistent_allocation_by_name() {
    let openad = openad_program().expect("openad binary");
    let work = tempfile::tempdir().unwrap();
    let cases = [
        (
            "dummy",
            "module m\ncontains\n  subroutine make(a, x)\n    double precision, allocatable :: a(:)\n    double precision :: x\n    allocate(a(2))\n    a(1) = x * x\n    a(2) = x\n  end subroutine make\nend module m\nsubroutine head(x, y)\n  use m\n  double precision :: x(1), y(1)\n  double precision, allocatable :: g(:)\n  !$openad INDEPENDENT(x)\n  call make(g, x(1))\n  y(1) = g(1) * g(2)\n  deallocate(g)\n  !$openad DEPENDENT(y)\nend subroutine head\n",
            "'a', a dummy argument",
        ),
        (
            "module",
            "module m\n  double precision, allocatable :: f(:)\nend module m\nsubroutine head(x, y)\n  use m\n  double precision :: x(1), y(1)\n  !$openad INDEPENDENT(x)\n  allocate(f(1))\n  f(1) = x(1) * x(1)\n  y(1) = f(1)\n  deallocate(f)\n  !$openad DEPENDENT(y)\nend subroutine head\n",
            "'f', a module or host variable",
        ),
    ];
    for (name, text, what) in cases {
        let source = work.path().join(format!("{name}.f90"));
        fs::write(&source, text).unwrap();
        let out_dir = work.path().join(format!("{name}_rj"));
        let out = Command::new(&openad)
            .args(["-m", "rj", "-o"])
            .arg(&out_dir)
            .arg(&source)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{name}: {stderr}");
        assert!(
            stderr.contains("unsupported construct in joint adjoint mode")
                && stderr.contains("allocate of the active array")
                && stderr.contains(what)
                && stderr.contains(": error: "),
            "{name}: {stderr}"
        );
        assert!(!out_dir.exists(), "{name}: output left behind");
        let out_dir = work.path().join(format!("{name}_rs"));
        let out = Command::new(&openad)
            .args(["-m", "rs", "-o"])
            .arg(&out_dir)
            .arg(&source)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{name} rs: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}
