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

/// The adjoint modes refuse (de)allocation of an active array with a named
/// error (the reverse sweep would read released storage), exit 1 and leave
/// no output directory; the tangent mode differentiates the same program.
#[test]
fn adjoint_refuses_allocatable_active_arrays_by_name() {
    let openad = openad_program().expect("openad binary");
    let example = openad_tests::examples_dir().join("allocatable");
    let source = example.join("head.f90");
    let work = tempfile::tempdir().unwrap();
    for mode in ["rs", "rj"] {
        let out_dir = work.path().join(mode);
        let out = Command::new(&openad)
            .args(["-m", mode, "-o"])
            .arg(&out_dir)
            .arg(&source)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{mode}: {stderr}");
        assert!(
            stderr.contains("unsupported construct in adjoint mode")
                && stderr.contains("allocate of the active array"),
            "{mode}: {stderr}"
        );
        assert!(!out_dir.exists(), "{mode}: output left behind");
    }
    let out_dir = work.path().join("f");
    let out = Command::new(&openad)
        .args(["-m", "f", "-o"])
        .arg(&out_dir)
        .arg(&source)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Joint mode re-runs a callee from a checkpoint that must hold every
/// module variable its call tree can see; a private module variable cannot
/// be named outside its module, so `-m rj` refuses by name (exit 1, no
/// output, the call and its source line named) while `-m rs` (no re-run)
/// and `-m f` differentiate the program.
#[test]
fn joint_adjoint_refuses_uncheckpointable_private_module_state() {
    const SOURCE: &str = "\
module counter
  implicit none
  double precision, private :: state = 1.0d0
contains
  subroutine scale_by_state(a)
    double precision :: a
    a = a * state
    state = state + 0.5d0
  end subroutine scale_by_state
end module counter

subroutine middle(a)
  use counter, only: scale_by_state
  implicit none
  double precision :: a
  call scale_by_state(a)
end subroutine middle

subroutine head(x, y)
  implicit none
  double precision :: x(1), y(1)
  !$openad INDEPENDENT(x)
  y(1) = x(1)
  call middle(y(1))
  call middle(y(1))
  !$openad DEPENDENT(y)
end subroutine head
";
    let openad = openad_program().expect("openad binary");
    let work = tempfile::tempdir().unwrap();
    let source = work.path().join("private_state.f90");
    fs::write(&source, SOURCE).unwrap();
    let run = |mode: &str| {
        let out_dir = work.path().join(mode);
        let out = Command::new(&openad)
            .args(["-m", mode, "-o"])
            .arg(&out_dir)
            .arg(&source)
            .output()
            .unwrap();
        (out, out_dir)
    };
    let (out, out_dir) = run("rj");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("unsupported construct in joint adjoint mode")
            && stderr.contains("module variable 'state'")
            && stderr.contains("private to module 'counter'")
            && stderr.contains("source line 24"),
        "{stderr}"
    );
    assert!(
        stderr.lines().next().is_some_and(|l| {
            let mut f = l.splitn(4, ':');
            f.next().is_some_and(|p| p.ends_with(".xaif"))
                && f.next().is_some_and(|n| n.parse::<u32>().is_ok())
                && f.next().is_some_and(|n| n.parse::<u32>().is_ok())
        }),
        "no file:line:column: {stderr}"
    );
    assert!(!out_dir.exists(), "output left behind");
    for mode in ["rs", "f"] {
        let (out, out_dir) = run(mode);
        assert!(
            out.status.success() && out_dir.join("private_state.oad.f90").exists(),
            "{mode}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}
