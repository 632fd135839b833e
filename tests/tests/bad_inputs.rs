//! Rejected input: openad exits 1, names `file:line:column` on stderr and
//! leaves no output directory behind. Each case is a file in
//! `tests/bad-inputs/` whose first line says where the error is
//! (`! error-at: LINE` or `! error-at: any`); cases that do not behave yet
//! are listed in `tests/examples/EXPECTED_FAILURES` with mode `bad`.
//!
//! `tests/bad-inputs/later-stages/` holds programs the front end accepts
//! and the booster or the back end refuses (run with options, below):
//! openad must report those at the user's file, line and column too, and
//! the stages run by hand on XAIF must report the XAIF position.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use xaif_schema::diagnostic::{Diagnostic as JsonDiagnostic, Kind};

use openad_tests::{
    bad_inputs_dir, bin_dir, openad_program, parallel_map, report, workspace_root, LegResult,
};

/// Subdirectory of the cases refused after the front end (not generic cases).
const LATER_STAGES: &str = "later-stages";

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

/// The diagnostic kind the case says openad reports (`error-kind: KIND`,
/// a [`Kind::name`]), if it says one.
fn expected_kind(case: &Path) -> Option<String> {
    let text = fs::read_to_string(case)
        .or_else(|_| fs::read_to_string(case.join("README")))
        .unwrap_or_default();
    let spec = text.split("error-kind:").nth(1)?;
    let word = spec
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
        .find(|w| !w.is_empty())?;
    Some(word.to_string())
}

/// With `--error-format json` every line on stderr is one diagnostic; the
/// first error must be of the case's kind, at its line, in its file.
fn check_json_diagnostics(
    openad: &Path,
    case: &Path,
    out: &Path,
    line: Option<u32>,
) -> Result<(), String> {
    let output = Command::new(openad)
        .args(["--error-format", "json", "-o"])
        .arg(out)
        .arg(case)
        .output()
        .map_err(|e| e.to_string())?;
    if output.status.code() != Some(1) {
        return Err(format!("json: exit status {} instead of 1", output.status));
    }
    let stderr = String::from_utf8_lossy(&output.stderr);
    let mut diagnostics = Vec::new();
    for text in stderr.lines().filter(|l| !l.trim().is_empty()) {
        let d = JsonDiagnostic::from_json(text)
            .ok_or_else(|| format!("json: a stderr line is not a diagnostic: {text}"))?;
        diagnostics.push(d);
    }
    let first = diagnostics
        .iter()
        .find(|d| d.is_error())
        .ok_or_else(|| format!("json: no error among {} diagnostics", diagnostics.len()))?;
    if first.location.file.file_name() != case.file_name() {
        return Err(format!("json: error in {}", first.location.file.display()));
    }
    if line.is_some_and(|l| first.location.line != l as usize) {
        return Err(format!("json: error at line {}", first.location.line));
    }
    match expected_kind(case) {
        Some(kind) if first.kind.name() != kind => Err(format!(
            "json: kind {} instead of {kind}: {}",
            first.kind.name(),
            first.message
        )),
        _ => Ok(()),
    }
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
        check_json_diagnostics(&openad, case, &out, line)?;
        if out.exists() {
            return Err("the output directory was created (json)".into());
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
        .filter(|p| !p.ends_with(LATER_STAGES))
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

/// A routine that releases a module array it did not allocate, called
/// from the top-level routine: refused in joint mode (the top-level
/// routine's own `deallocate` of a module array is differentiated: the
/// `alloc_persistent` example).
const RERUN_RELEASES_MODULE_ARRAY: &str = "module m\n  double precision, allocatable :: f(:)\ncontains\n  subroutine release(s)\n    double precision :: s\n    s = f(1) * f(2)\n    deallocate(f)\n  end subroutine release\nend module m\nsubroutine head(x, y)\n  use m\n  double precision :: x(1), y(1)\n  integer :: i\n  !$openad INDEPENDENT(x)\n  allocate(f(2))\n  do i = 1, 2\n    f(i) = x(1) ** i\n  end do\n  call release(y(1))\n  !$openad DEPENDENT(y)\nend subroutine head\n";

/// What is still refused about allocation in the adjoint modes: in joint
/// mode (`rj`), deallocating an active array whose allocation outlives
/// the call (dummy argument, module variable) in a routine whose tape
/// section is re-run in the reverse sweep, because the reverse sweep
/// would find it released. (An
/// `allocate` of one is allocated again only where it is not allocated:
/// the `setup_*` examples.) Named error, exit 1, no output directory; the
/// split mode differentiates the same program (its gradient is checked by
/// the `alloc_persistent` example).
#[test]
fn joint_adjoint_refuses_persistent_allocation_by_name() {
    let openad = openad_program().expect("openad binary");
    let work = tempfile::tempdir().unwrap();
    let cases = [
        (
            "dummy",
            "module m\ncontains\n  subroutine consume(a, s)\n    double precision, allocatable :: a(:)\n    double precision :: s\n    integer :: i\n    s = 0\n    do i = 1, 2\n      s = s + a(i) ** 2\n    end do\n    deallocate(a)\n  end subroutine consume\nend module m\nsubroutine head(x, y)\n  use m\n  double precision :: x(1), y(1)\n  double precision, allocatable :: g(:)\n  !$openad INDEPENDENT(x)\n  allocate(g(2))\n  g(1) = x(1)\n  g(2) = 2 * x(1)\n  call consume(g, y(1))\n  !$openad DEPENDENT(y)\nend subroutine head\n",
            "'a', a dummy argument",
        ),
        (
            "module",
            RERUN_RELEASES_MODULE_ARRAY,
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
                && stderr.contains("deallocate of the active array")
                && stderr.contains(what)
                && stderr.contains(": error: "),
            "{name}: {stderr}"
        );
        assert!(!out_dir.exists(), "{name}: output left behind");
        // The back end refuses it and names the allocate in the user's file.
        let (line, column) = position_of(text, "deallocate(");
        let d = first_diagnostic(&stderr).unwrap_or_else(|| panic!("{name}: {stderr}"));
        assert_eq!(
            (d.file_name(), d.line, d.column),
            (format!("{name}.f90").as_str(), line, column),
            "{name}: {stderr}"
        );
        // Programs tell a refusal from other errors by its kind.
        let json = Command::new(&openad)
            .args(["--error-format", "json", "-m", "rj", "-o"])
            .arg(&out_dir)
            .arg(&source)
            .output()
            .unwrap();
        let json_stderr = String::from_utf8_lossy(&json.stderr);
        let refusal = json_stderr
            .lines()
            .find_map(JsonDiagnostic::from_json)
            .unwrap_or_else(|| panic!("{name}: no JSON diagnostic: {json_stderr}"));
        assert_eq!(refusal.kind, Kind::Unsupported, "{name}: {json_stderr}");
        assert_eq!(refusal.location.line, line, "{name}: {json_stderr}");
        let stages = work.path().join(format!("{name}_stages"));
        fs::create_dir_all(&stages).unwrap();
        backend_alone_reports_the_xaif_position(&source, &stages);
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

/// 1-based line and column of the first occurrence of `marker` in `text`.
fn position_of(text: &str, marker: &str) -> (usize, usize) {
    let at = text
        .find(marker)
        .unwrap_or_else(|| panic!("`{marker}` not in the source"));
    let line_start = text[..at].rfind('\n').map_or(0, |p| p + 1);
    (text[..at].matches('\n').count() + 1, at - line_start + 1)
}

/// The first `PATH:LINE:COLUMN: error: MESSAGE` line of `stderr`.
#[derive(Debug)]
struct Diagnostic {
    path: String,
    line: usize,
    column: usize,
    message: String,
}

impl Diagnostic {
    fn file_name(&self) -> &str {
        self.path.rsplit('/').next().unwrap_or(&self.path)
    }
}

fn first_diagnostic(stderr: &str) -> Option<Diagnostic> {
    stderr.lines().find_map(|l| {
        let (place, message) = l.split_once(": error: ")?;
        let mut parts = place.rsplitn(3, ':');
        let column = parts.next()?.parse().ok()?;
        let line = parts.next()?.parse().ok()?;
        Some(Diagnostic {
            path: parts.next()?.to_string(),
            line,
            column,
            message: message.to_string(),
        })
    })
}

/// The built-in intrinsics catalogue without its `tanh_scal` entry.
fn catalogue_without_tanh(dir: &Path) -> PathBuf {
    let builtin = workspace_root().join("xaif-booster/data/intrinsics.xaif");
    let text = fs::read_to_string(&builtin).expect("built-in catalogue");
    let start = text
        .find(r#"<xaifii:InlinableIntrinsic name="tanh_scal""#)
        .expect("tanh_scal in the catalogue");
    let close = "</xaifii:InlinableIntrinsic>";
    let end = start + text[start..].find(close).expect("end of tanh_scal") + close.len();
    let path = dir.join("no_tanh.xaif");
    fs::write(&path, format!("{}{}", &text[..start], &text[end..])).unwrap();
    path
}

fn later_stages_dir() -> PathBuf {
    bad_inputs_dir().join(LATER_STAGES)
}

/// The booster refuses `tanh` when the catalogue lacks it; openad reports
/// the statement at its place in the user's file (free form, fixed form
/// with a continuation line, a statement in an included file), in every
/// mode, exits 1 and writes nothing. The same programs differentiate with
/// the built-in catalogue.
#[test]
fn later_stage_refusals_name_the_users_file_line_and_column() {
    // (input, modes, file that holds the statement, text starting it)
    let cases = [
        (
            "intrinsic.f90",
            &["f", "fv", "rs", "rj"][..],
            "intrinsic.f90",
            "y(2) = tanh",
        ),
        (
            "intrinsic_fixed.f",
            &["f", "rs"][..],
            "intrinsic_fixed.f",
            "y(2) = x(2) +",
        ),
        (
            "intrinsic_include.f90",
            &["f", "rj"][..],
            "intrinsic_body.inc",
            "y(2) = tanh",
        ),
    ];
    let openad = openad_program().expect("openad binary");
    let work = tempfile::tempdir().unwrap();
    let catalogue = catalogue_without_tanh(work.path());
    for (input, modes, holder, marker) in cases {
        let source = later_stages_dir().join(input);
        let text = fs::read_to_string(later_stages_dir().join(holder)).unwrap();
        let (line, column) = position_of(&text, marker);
        for mode in modes {
            let out_dir = work.path().join(format!("{input}-{mode}"));
            let out = Command::new(&openad)
                .args(["-m", mode, "--intrinsics"])
                .arg(&catalogue)
                .arg("-o")
                .arg(&out_dir)
                .arg(&source)
                .output()
                .unwrap();
            let stderr = String::from_utf8_lossy(&out.stderr);
            let what = format!("{input} -m {mode}: {stderr}");
            assert_eq!(out.status.code(), Some(1), "{what}");
            let d = first_diagnostic(&stderr).unwrap_or_else(|| panic!("{what}"));
            assert_eq!(
                (d.file_name(), d.line, d.column),
                (holder, line, column),
                "{what}"
            );
            assert!(
                d.message.contains("tanh_scal") && d.message.contains("catalogue"),
                "{what}"
            );
            assert!(!stderr.contains(".xaif:"), "points into XAIF: {what}");
            assert!(!out_dir.exists(), "output left behind: {what}");
        }
        let out_dir = work.path().join(format!("{input}-builtin"));
        let out = Command::new(&openad)
            .arg("-o")
            .arg(&out_dir)
            .arg(&source)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{input} with the built-in catalogue: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

fn stage(name: &str) -> Command {
    let dir = bin_dir().expect("stage programs");
    Command::new(dir.join(format!("{name}{}", std::env::consts::EXE_SUFFIX)))
}

/// Runs a stage that must refuse its input; returns its first diagnostic.
fn refused(command: &mut Command) -> Diagnostic {
    let out = command.output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{command:?}: {stderr}");
    first_diagnostic(&stderr).unwrap_or_else(|| panic!("{command:?}: {stderr}"))
}

fn succeeded(command: &mut Command) {
    let out = command.output().unwrap();
    assert!(
        out.status.success(),
        "{command:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The stages run by hand on XAIF (no `--locations`) report positions in
/// the XAIF they read; with the front end's locations, in the Fortran.
#[test]
fn standalone_stages_report_positions_in_their_xaif_input() {
    let work = tempfile::tempdir().unwrap();
    let catalogue = catalogue_without_tanh(work.path());
    let source = later_stages_dir().join("intrinsic.f90");
    let xaif = work.path().join("intrinsic.xaif");
    let locations = work.path().join("intrinsic.loc");
    succeeded(
        stage("fortran2xaif")
            .arg("-o")
            .arg(&xaif)
            .arg("--canon")
            .arg(work.path().join("intrinsic.canon.f90"))
            .arg("--locations")
            .arg(&locations)
            .arg(&source),
    );
    // The refused statement's element: the last assignment opened before
    // the first use of tanh.
    let text = fs::read_to_string(&xaif).unwrap();
    let tanh = text.find("\"tanh_scal\"").expect("tanh in the XAIF");
    let element = text[..tanh].rfind("<xaif:Assignment ").expect("assignment");
    let line = text[..element].matches('\n').count() + 1;
    for mode in ["tangent", "adjoint"] {
        let booster = || {
            let mut c = stage("xaif-booster");
            c.args(["-m", mode, "--intrinsics"])
                .arg(&catalogue)
                .arg("-o")
                .arg(work.path().join("intrinsic.xb.xaif"))
                .arg(&xaif);
            c
        };
        let d = refused(&mut booster());
        assert_eq!(
            (d.path.as_str(), d.line),
            (xaif.to_str().unwrap(), line),
            "{mode}"
        );
        let d = refused(booster().arg("--locations").arg(&locations));
        let (line, column) = position_of(&fs::read_to_string(&source).unwrap(), "y(2) = tanh");
        assert_eq!(
            (d.path.as_str(), d.line, d.column),
            (source.to_str().unwrap(), line, column),
            "{mode}"
        );
        assert!(!work.path().join("intrinsic.xb.xaif").exists(), "{mode}");
    }
}

/// The back end run by hand (`-m rj`) on the booster's output, without the
/// front end's locations, reports the refused allocation at its marker in
/// the XAIF: the first element whose annotation names the canonical
/// `deallocate(...)` statement (tagged `!$oad stmt ID`).
fn backend_alone_reports_the_xaif_position(source: &Path, work: &Path) {
    let canon = work.join("head.canon.f90");
    let declarations = work.join("head.decl");
    let xaif = work.join("head.xaif");
    let boosted = work.join("head.xb.xaif");
    succeeded(
        stage("fortran2xaif")
            .arg("-o")
            .arg(&xaif)
            .arg("--canon")
            .arg(&canon)
            .arg("--declarations")
            .arg(&declarations)
            .arg(source),
    );
    succeeded(
        stage("xaif-booster")
            .args(["-m", "adjoint", "-o"])
            .arg(&boosted)
            .arg(&xaif),
    );
    let canon_text = fs::read_to_string(&canon).unwrap();
    let lines: Vec<&str> = canon_text.lines().collect();
    let id = lines
        .windows(2)
        .find_map(|w| {
            let id = w[0].trim().strip_prefix("!$oad stmt ")?;
            w[1].trim_start().starts_with("deallocate(").then_some(id)
        })
        .expect("tagged deallocate in the canonical source");
    let text = fs::read_to_string(&boosted).unwrap();
    let (line, _) = position_of(&text, &format!("annotation=\"canon:{id}\""));
    let d = refused(
        stage("xaif2fortran")
            .args(["-m", "rj", "--canon"])
            .arg(&canon)
            .arg("--declarations")
            .arg(&declarations)
            .arg("-o")
            .arg(work.join("out"))
            .arg(&boosted),
    );
    assert_eq!((d.path.as_str(), d.line), (boosted.to_str().unwrap(), line));
    assert!(!work.join("out").exists(), "back end output left behind");
}

/// A module procedure re-run in `-m rj` whose call tree reads a module
/// variable its own local hides cannot save that variable (a module cannot
/// `use` itself to rename it): refused by name at the local's declaration
/// in the user's file, never at a temporary XAIF file. Module *constants*
/// shadowed the same way are fine (corpus example `shadowed_module_names`).
#[test]
fn joint_adjoint_refuses_module_variable_hidden_by_a_local_at_the_local() {
    const SOURCE: &str = "\
module relaxation
  implicit none
  double precision :: c = 0.25d0
contains
  subroutine kick(a)
    double precision :: a
    a = a + c * sin(a)
    c = c * 0.9d0
  end subroutine kick
  subroutine sweep(a)
    double precision :: a
    double precision :: c
    integer :: k
    c = 2.0d0
    do k = 1, 3
      call kick(a)
      a = a * c
    end do
  end subroutine sweep
end module relaxation

subroutine head(x, y)
  use relaxation
  implicit none
  double precision :: x(1), y(1)
  !$openad INDEPENDENT(x)
  y(1) = x(1)
  call sweep(y(1))
  !$openad DEPENDENT(y)
end subroutine head
";
    refused_in_joint_mode_at(
        SOURCE,
        "hidden_state.f90",
        "double precision :: c\n",
        &["module variable 'c'", "shadowed"],
    );
}

/// An internal procedure re-run in `-m rj` whose sibling reads a host
/// variable that the re-run procedure's own local hides cannot save it:
/// refused by name at the local's declaration (without the local the host
/// variable is saved: corpus example `internal_in_module`).
#[test]
fn joint_adjoint_refuses_host_variable_hidden_by_a_local_at_the_local() {
    const SOURCE: &str = "\
subroutine head(x, y)
  implicit none
  double precision :: x(2), y(1)
  double precision :: u(2), scale
  integer :: k
  !$openad INDEPENDENT(x)
  u = x
  scale = 0.5d0
  do k = 1, 2
    call sweep()
  end do
  y(1) = u(1) * u(2)
  !$openad DEPENDENT(y)
contains
  subroutine sweep()
    double precision :: scale
    integer :: j
    scale = 2.0d0
    do j = 1, 2
      call bump(j)
      u(j) = u(j) * scale
    end do
  end subroutine sweep
  subroutine bump(j)
    integer :: j
    u(j) = u(j) + scale * sin(u(j))
  end subroutine bump
end subroutine head
";
    refused_in_joint_mode_at(
        SOURCE,
        "hidden_host.f90",
        "    double precision :: scale\n",
        &["'scale'", "same name"],
    );
}

/// `openad -m rj` on `source` (written as `file_name`) exits 1, with its
/// first diagnostic at the line of `marker` in the user's file (never in
/// a temporary XAIF file), the message holding every text of `says`, and
/// no output directory left behind.
fn refused_in_joint_mode_at(source: &str, file_name: &str, marker: &str, says: &[&str]) {
    let openad = openad_program().expect("openad binary");
    let work = tempfile::tempdir().unwrap();
    let path = work.path().join(file_name);
    fs::write(&path, source).unwrap();
    let out_dir = work.path().join("rj");
    let out = Command::new(&openad)
        .args(["-m", "rj", "-o"])
        .arg(&out_dir)
        .arg(&path)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(says.iter().all(|t| stderr.contains(t)), "{stderr}");
    let (line, _) = position_of(source, marker);
    let expected = format!("{}:{line}:", path.display());
    assert!(
        stderr
            .lines()
            .next()
            .is_some_and(|l| l.starts_with(&expected)),
        "not at {expected}: {stderr}"
    );
    assert!(!stderr.contains(".xaif:"), "points into XAIF: {stderr}");
    assert!(!out_dir.exists(), "output left behind");
}

/// A part of a passive pointer passed to a routine the joint reverse sweep
/// re-runs: the call site can restore a whole pointer's association (the
/// `pointer_coefficient_switch` example) but not a section's, so `-m rj`
/// refuses it by name at the call (kind `unsupported`, nothing written),
/// while `-m rs` (no re-run) differentiates the program.
#[test]
fn joint_adjoint_refuses_a_section_of_a_passive_pointer_at_the_call() {
    const SOURCE: &str = "\
module reaction_tables
  implicit none
  real(8), target :: day_rates(4) = (/ 0.1d0, 0.2d0, 0.3d0, 0.4d0 /)
  real(8), target :: night_rates(4) = (/ 0.5d0, 0.1d0, 0.7d0, 0.2d0 /)
contains
  subroutine react(u, rates)
    real(8), intent(inout) :: u(3)
    real(8), intent(in) :: rates(3)
    integer :: i, k
    do k = 1, 2
      do i = 2, 3
        u(i) = u(i) - rates(i) * u(i) * u(i-1)
      end do
    end do
  end subroutine react
end module reaction_tables

subroutine head(x, y)
  use reaction_tables
  implicit none
  real(8), intent(in) :: x(4)
  real(8), intent(out) :: y(1)
  real(8) :: u(4)
  real(8), pointer :: rates(:)
  integer :: hour
  !$openad INDEPENDENT(x)
  u = x
  rates => day_rates
  do hour = 1, 4
    call react(u(1:3), rates(2:4))
    if (mod(hour, 2) == 1) then
      rates => night_rates
    else
      rates => day_rates
    end if
  end do
  y(1) = sum(u**2)
  !$openad DEPENDENT(y)
end subroutine head
";
    let openad = openad_program().expect("openad binary");
    let work = tempfile::tempdir().unwrap();
    let source = work.path().join("pointer_section.f90");
    fs::write(&source, SOURCE).unwrap();
    let out_dir = work.path().join("rj");
    let out = Command::new(&openad)
        .args(["--error-format", "json", "-m", "rj", "-o"])
        .arg(&out_dir)
        .arg(&source)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(!out_dir.exists(), "output left behind");
    let d = stderr
        .lines()
        .find_map(JsonDiagnostic::from_json)
        .unwrap_or_else(|| panic!("no JSON diagnostic: {stderr}"));
    assert_eq!(d.kind, Kind::Unsupported, "{stderr}");
    assert!(d.message.contains("passive pointer 'rates'"), "{stderr}");
    let (line, column) = position_of(SOURCE, "call react(");
    assert_eq!(
        (d.location.line, d.location.column),
        (line, column),
        "{stderr}"
    );
    assert_eq!(d.location.file.file_name(), source.file_name());
    let rs = Command::new(&openad)
        .args(["-m", "rs", "-o"])
        .arg(work.path().join("rs"))
        .arg(&source)
        .output()
        .unwrap();
    assert!(
        rs.status.success(),
        "{}",
        String::from_utf8_lossy(&rs.stderr)
    );
}

/// The named refusals of MPI calls on real data (docs/frontend.md,
/// "Rejected, with a named error"): exit 1, the diagnostic at the
/// offending call or argument of the user's file with what and why, no
/// output directory.
#[test]
fn mpi_refusals_are_named_at_the_call() {
    let openad = openad_program().expect("openad binary");
    let work = tempfile::tempdir().unwrap();
    // (case, the offending statement, where the error points in it,
    // what the message must say)
    let cases = [
        (
            "routine",
            "call mpi_alltoall(x, 1, mpi_double_precision, y, 1, mpi_double_precision, mpi_comm_world, ierr)",
            "call mpi_alltoall",
            "MPI routine 'mpi_alltoall' on real data is not supported",
        ),
        (
            "in_place",
            "call mpi_gather(mpi_in_place, 4, mpi_double_precision, y, 4, mpi_double_precision, 0, mpi_comm_world, ierr)",
            "mpi_in_place,",
            "mpi_in_place in a call of MPI routine 'mpi_gather'",
        ),
        (
            "strided",
            "call mpi_allreduce(x(1:4:2), y, 2, mpi_double_precision, mpi_sum, mpi_comm_world, ierr)",
            "x(1:4:2)",
            "strided section as buffer of MPI routine 'mpi_allreduce'",
        ),
        (
            "single",
            "call mpi_bcast(single, 4, mpi_real, 0, mpi_comm_world, ierr)",
            "single,",
            "buffer of MPI routine 'mpi_bcast' must be a real(8) variable",
        ),
        (
            "keyword",
            "call mpi_bcast(buffer=y, count=4, datatype=mpi_double_precision, root=0, comm=mpi_comm_world, ierror=ierr)",
            "y, count",
            "keyword argument in a call of MPI routine 'mpi_bcast'",
        ),
        (
            "count",
            "call mpi_send(y, 4, mpi_double_precision, 0, 1, mpi_comm_world)",
            "call mpi_send",
            "call of MPI routine 'mpi_send' passes 6 argument(s); its Fortran binding has 7",
        ),
        (
            "request_free",
            "call mpi_request_free(request, ierr)",
            "call mpi_request_free",
            "MPI routine 'mpi_request_free' is not supported (complete nonblocking calls with mpi_wait, mpi_test or their kin",
        ),
        (
            "real_tag",
            "call mpi_isend(y, 4, mpi_double_precision, 0, x(1), mpi_comm_world, request, ierr)",
            "x(1), mpi_comm_world",
            "real value as a passive argument of MPI routine 'mpi_isend'",
        ),
    ];
    for (name, statement, marker, what) in cases {
        let text = format!(
            "subroutine head(x, y)\n  use mpi\n  implicit none\n  real(8), intent(in) :: x(4)\n  real(8), intent(out) :: y(4)\n  real(4) :: single(4)\n  integer :: ierr, request\n  logical :: flag\n  !$openad INDEPENDENT(x)\n  y = x\n  {statement}\n  !$openad DEPENDENT(y)\nend subroutine head\n"
        );
        let source = work.path().join(format!("mpi_{name}.f90"));
        fs::write(&source, &text).unwrap();
        let out_dir = work.path().join(format!("mpi_{name}_out"));
        let out = Command::new(&openad)
            .args(["-m", "rs", "-o"])
            .arg(&out_dir)
            .arg(&source)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{name}: {stderr}");
        assert!(!out_dir.exists(), "{name}: output left behind");
        let d = first_diagnostic(&stderr).unwrap_or_else(|| panic!("{name}: {stderr}"));
        let (line, column) = position_of(&text, marker);
        assert_eq!(
            (d.file_name(), d.line, d.column),
            (format!("mpi_{name}.f90").as_str(), line, column),
            "{name}: {stderr}"
        );
        assert!(d.message.contains(what), "{name}: {stderr}");
    }
}

/// Runs `openad -m MODE [options] FILES` in `dir` (files named relative to
/// it, so that nothing of the user's is under the temporary directory),
/// human and JSON, and checks the refusal: exit 1, the first error in one
/// of `files`, and neither output naming openad's scratch directory or
/// anything in the temporary directory (it is gone when the user reads
/// the message). Returns the JSON diagnostic's kind.
fn refusal_names_no_scratch_file(
    dir: &Path,
    files: &[String],
    mode: &str,
    options: &[String],
) -> Kind {
    let openad = openad_program().expect("openad binary");
    let work = tempfile::tempdir().unwrap();
    let temp = std::env::temp_dir().display().to_string();
    let what = format!("{} -m {mode}", dir.display());
    let mut kind = None;
    for json in [false, true] {
        let out_dir = work.path().join(format!("out-{json}"));
        let mut command = Command::new(&openad);
        command.current_dir(dir).args(["-m", mode]).args(options);
        if json {
            command.args(["--error-format", "json"]);
        }
        let out = command
            .arg("-o")
            .arg(&out_dir)
            .args(files)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        let what = format!("{what} (json: {json}): {stderr}");
        assert_eq!(out.status.code(), Some(1), "{what}");
        assert!(
            !stderr.contains(&temp) && !stderr.contains("openad."),
            "names the scratch directory: {what}"
        );
        assert!(!out_dir.exists(), "output left behind: {what}");
        let first = if json {
            let d = stderr
                .lines()
                .map(|l| JsonDiagnostic::from_json(l).unwrap_or_else(|| panic!("{what}")))
                .find(|d| d.is_error())
                .unwrap_or_else(|| panic!("no error: {what}"));
            kind = Some(d.kind);
            d.location.file.display().to_string()
        } else {
            first_diagnostic(&stderr)
                .unwrap_or_else(|| panic!("no diagnostic: {what}"))
                .path
        };
        assert!(
            files.contains(&first) && dir.join(&first).is_file(),
            "first error in {first}, not in the user's files: {what}"
        );
    }
    kind.expect("JSON run")
}

/// Refusals made after the front end, in every mode: the booster's (an
/// intrinsic outside the catalogue, in f, fv, rs and rj) and the back
/// end's (a re-run routine's `deallocate` in rj, and any named refusal
/// EXPECTED_FAILURES lists) point at the user's files, never into
/// openad's scratch directory, in human and JSON output; and they are
/// refusals by kind (unsupported).
#[test]
fn later_stage_refusals_never_name_a_scratch_file() {
    let work = tempfile::tempdir().unwrap();
    let catalogue = catalogue_without_tanh(work.path());
    let options = vec!["--intrinsics".to_string(), catalogue.display().to_string()];
    for mode in ["f", "fv", "rs", "rj"] {
        let kind = refusal_names_no_scratch_file(
            &later_stages_dir(),
            &["intrinsic.f90".to_string()],
            mode,
            &options,
        );
        assert_eq!(kind, Kind::Unsupported, "booster refusal in -m {mode}");
    }
    // The back end's refusal of a re-run routine's `deallocate`, and any
    // named refusal the corpus lists.
    let rerun = tempfile::tempdir().unwrap();
    fs::write(rerun.path().join("rerun.f90"), RERUN_RELEASES_MODULE_ARRAY).unwrap();
    let kind = refusal_names_no_scratch_file(rerun.path(), &["rerun.f90".to_string()], "rj", &[]);
    assert_eq!(kind, Kind::Unsupported, "back end refusal in -m rj");
    for ((name, leg), reason) in openad_tests::expected_failures() {
        let plain_mode = ["f", "fv", "rs", "rj"].contains(&leg.as_str());
        if !plain_mode || !reason.starts_with("openad: named error") {
            continue;
        }
        let dir = openad_tests::examples_dir().join(&name);
        let manifest = openad_tests::manifest::Manifest::read(&dir.join("example.toml"))
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let kind =
            refusal_names_no_scratch_file(&dir, &manifest.files, &leg, &manifest.openad_options);
        assert_eq!(kind, Kind::Unsupported, "{name} -m {leg}: {reason}");
    }
}

/// Type-bound procedures and abstract interfaces are devirtualised where
/// every object's dynamic type is its declared type; what needs run-time
/// dispatch is refused by name (docs/frontend.md, "Rejected, with a named
/// error"): exit 1, the diagnostic at the construct in the user's file,
/// no output directory.
#[test]
fn run_time_polymorphism_is_refused_by_name_at_the_construct() {
    let openad = openad_program().expect("openad binary");
    let work = tempfile::tempdir().unwrap();
    let module = "module cols\n  implicit none\n  type :: column\n    double precision :: h\n  contains\n    procedure :: relax\n    BINDING\n  end type column\n  TYPES\ncontains\n  subroutine relax(self, w)\n    class(column), intent(inout) :: self\n    double precision, intent(in) :: w\n    self%h = w * self%h\n  end subroutine relax\nend module cols\n";
    let head = "subroutine head(x, y)\n  use cols\n  implicit none\n  double precision :: x(1), y(1)\n  DECL\n  !$openad INDEPENDENT(x)\n  c%h = x(1)\n  STMT\n  y(1) = c%h\n  !$openad DEPENDENT(y)\nend subroutine head\n";
    // (case, binding, types, declarations, statement, where the error
    // points, what the message must say)
    let cases = [
        (
            "overriding",
            "",
            "type, extends(column) :: deep\n  contains\n    procedure :: relax => relax_deep\n  end type deep",
            "type(column) :: c",
            "call c%relax(0.5d0)",
            "procedure :: relax => relax_deep",
            "binding 'relax' of type 'deep' overrides the binding of its parent type 'column'",
        ),
        (
            "extended_class",
            "",
            "type, extends(column) :: deep\n  end type deep",
            "type(column) :: c",
            "",
            "class(column), intent(inout) :: self",
            "class(column) of a type that type 'deep' extends",
        ),
        (
            "select_type",
            "",
            "",
            "type(column) :: c",
            "select type (c)\n  type is (column)\n    c%h = 2 * c%h\n  end select",
            "select type (c)",
            "unsupported construct: select type",
        ),
        (
            "deferred",
            "procedure(relax_iface), deferred :: twice",
            "",
            "type(column) :: c",
            "",
            "procedure(relax_iface), deferred",
            "unsupported construct: deferred type-bound procedure",
        ),
        (
            "final",
            "final :: relax",
            "",
            "type(column) :: c",
            "",
            "final :: relax",
            "unsupported construct: final procedure",
        ),
        (
            "operator",
            "generic :: operator(+) => relax",
            "",
            "type(column) :: c",
            "",
            "generic :: operator(+)",
            "unsupported construct: type-bound operator(+) of type 'column'",
        ),
        (
            "procedure_pointer",
            "",
            "",
            "type(column) :: c\n  procedure(), pointer :: p => null()",
            "",
            "procedure(), pointer",
            "unsupported construct: procedure pointer",
        ),
        (
            "import",
            "",
            "abstract interface\n    subroutine relax_iface(a)\n      import :: column\n      type(column) :: a\n    end subroutine relax_iface\n  end interface",
            "type(column) :: c",
            "",
            "import :: column",
            "unsupported construct: import in an interface body",
        ),
        (
            "unlimited",
            "",
            "",
            "type(column) :: c\n  class(*), allocatable :: anything",
            "",
            "class(*)",
            "unsupported construct: unlimited polymorphic class(*)",
        ),
    ];
    for (name, binding, types, decl, statement, marker, what) in cases {
        let text = format!(
            "{}{}",
            module.replace("BINDING", binding).replace("TYPES", types),
            head.replace("DECL", decl).replace("STMT", statement)
        );
        let source = work.path().join(format!("tbp_{name}.f90"));
        fs::write(&source, &text).unwrap();
        let out_dir = work.path().join(format!("tbp_{name}_out"));
        let out = Command::new(&openad)
            .args(["-m", "rs", "-o"])
            .arg(&out_dir)
            .arg(&source)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{name}: {stderr}");
        assert!(!out_dir.exists(), "{name}: output left behind");
        let d = first_diagnostic(&stderr).unwrap_or_else(|| panic!("{name}: {stderr}"));
        let (line, column) = position_of(&text, marker);
        assert_eq!(
            (d.file_name(), d.line, d.column),
            (format!("tbp_{name}.f90").as_str(), line, column),
            "{name}: {stderr}"
        );
        assert!(d.message.contains(what), "{name}: {stderr}");
    }
}
