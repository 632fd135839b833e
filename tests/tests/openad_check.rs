//! `openad check`: it confirms right derivatives, catches a wrong one (a
//! black-box routine whose hand-written tangent and adjoint are off), and
//! refuses what it cannot drive or judge with a clear message.
//! The whole corpus through `openad check` is a benchmark-length run:
//! `python3 bench/check_corpus.py` (docs/user-guide.md).

use std::fs;
use std::path::Path;
use std::process::{Command, Output};

use openad_tests::openad_program;

fn check(dir: &Path, args: &[&str]) -> Output {
    Command::new(openad_program().expect("openad built"))
        .current_dir(dir)
        .arg("check")
        .args(args)
        .output()
        .expect("openad runs")
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// A small model: a module with an array state, a call inside a time loop,
/// an inout argument that is both independent and dependent, a scalar
/// independent, and a rank-2 dependent with a zero lower bound.
const MODEL: &str = "
module relax
  implicit none
  integer, parameter :: n = 4
contains
  subroutine sweep(u, k)
    real(8), intent(inout) :: u(n)
    real(8), intent(in) :: k
    integer :: i
    do i = 2, n - 1
      u(i) = u(i) + k * (u(i - 1) - 2d0 * u(i) + u(i + 1)) + 0.1d0 * sin(u(i))
    end do
  end subroutine sweep
end module relax

subroutine head(u, k, e)
  use relax
  implicit none
  real(8), intent(inout) :: u(n)
  real(8), intent(in) :: k
  real(8), intent(out) :: e(0:1, 2)
  integer :: step
  !$openad INDEPENDENT(u)
  !$openad INDEPENDENT(k)
  do step = 1, 3
    call sweep(u, k)
  end do
  e(0, 1) = sum(u**2)
  e(1, 1) = u(2) * k
  e(0, 2) = exp(-u(3))
  e(1, 2) = maxval(u)
  !$openad DEPENDENT(u)
  !$openad DEPENDENT(e)
end subroutine head
";

#[test]
fn right_derivatives_pass_in_every_mode_with_a_json_report() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("model.f90"), MODEL).unwrap();
    let o = check(
        dir.path(),
        &[
            "--x0",
            "0.3,0.9,0.5,0.7,0.2",
            "--json",
            "report.json",
            "model.f90",
        ],
    );
    let t = text(&o);
    assert!(o.status.success(), "{t}");
    assert!(
        t.contains("head: 5 independent and 8 dependent values"),
        "{t}"
    );
    assert!(
        t.contains("summary: f pass, fv pass, rs pass, rj pass (every mode agrees)"),
        "{t}"
    );
    assert!(t.contains("dot-product test against the tangent"), "{t}");
    let json = fs::read_to_string(dir.path().join("report.json")).unwrap();
    assert!(json.contains("\"agree\": true"), "{json}");
    assert_eq!(json.matches("\"verdict\": \"pass\"").count(), 4, "{json}");
}

/// y = 2 x through a black box whose hand-written derivatives say 3.
#[test]
fn a_wrong_hand_written_derivative_fails_the_check() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    fs::write(
        p.join("head.f90"),
        "subroutine head(x, y)
  implicit none
  real(8) :: x(2), y(2), t(2)
  !$openad INDEPENDENT(x)
  t = x * x
  call twice(2, t, y)
  !$openad DEPENDENT(y)
end subroutine head
",
    )
    .unwrap();
    fs::write(
        p.join("twice.f90"),
        "subroutine twice(n, a, b)
  integer, intent(in) :: n
  real(8), intent(in) :: a(n)
  real(8), intent(out) :: b(n)
  b = 2d0 * a
end subroutine twice
subroutine twice_d(n, a, ad, b, bd)
  integer, intent(in) :: n
  real(8), intent(in) :: a(n), ad(n)
  real(8), intent(out) :: b(n), bd(n)
  b = 2d0 * a
  bd = 3d0 * ad   ! wrong on purpose
end subroutine twice_d
subroutine twice_b(n, a, ab, b, bb)
  integer, intent(in) :: n
  real(8), intent(in) :: a(n), b(n), bb(n)
  real(8), intent(inout) :: ab(n)
  ab = ab + 3d0 * bb   ! wrong on purpose
end subroutine twice_b
",
    )
    .unwrap();
    fs::write(
        p.join("twice.bb"),
        "subroutine twice(n, a, b)
  tangent twice_d
  adjoint twice_b
  integer, intent(in) :: n
  real(8), intent(in), active :: a(*)
  real(8), intent(out), active :: b(*)
end subroutine
",
    )
    .unwrap();
    let o = check(
        p,
        &[
            "--black-box",
            "twice.bb",
            "--link",
            "twice.f90",
            "--x0",
            "1.5 0.5",
            "head.f90",
        ],
    );
    let t = text(&o);
    assert_eq!(o.status.code(), Some(1), "{t}");
    assert!(t.contains("== -m f: FAIL: relative error 5.0e-1"), "{t}");
    assert!(t.contains("== -m rs: FAIL"), "{t}");
    assert!(t.contains("derivatives not confirmed"), "{t}");
}

#[test]
fn a_kink_at_x0_is_reported_instead_of_blamed_on_a_mode() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(
        dir.path().join("head.f90"),
        "subroutine head(x, y)
  real(8) :: x(2), y(1)
  !$openad INDEPENDENT(x)
  y(1) = abs(x(1) - 1d0) + x(2)
  !$openad DEPENDENT(y)
end subroutine head
",
    )
    .unwrap();
    let o = check(dir.path(), &["-m", "f", "--x0", "1.0,2.0", "head.f90"]);
    let t = text(&o);
    assert_eq!(o.status.code(), Some(1), "{t}");
    assert!(t.contains("x0 sits on a kink (try another --x0)"), "{t}");
    assert!(t.contains("f not checked"), "{t}");
}

#[test]
fn what_cannot_be_driven_or_read_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    fs::write(
        p.join("shape.f90"),
        "subroutine head(x, y)
  real(8) :: x(:), y(1)
  !$openad INDEPENDENT(x)
  y(1) = sum(x**2)
  !$openad DEPENDENT(y)
end subroutine head
",
    )
    .unwrap();
    fs::write(
        p.join("passive.f90"),
        "subroutine head(n, x, y)
  integer :: n
  real(8) :: x(3), y(1)
  !$openad INDEPENDENT(x)
  y(1) = n * sum(x)
  !$openad DEPENDENT(y)
end subroutine head
",
    )
    .unwrap();
    fs::write(
        p.join("nopragma.f90"),
        "subroutine head(x, y)\n  real(8) :: x(1), y(1)\n  y = x\nend subroutine head\n",
    )
    .unwrap();
    let cases: [(&[&str], &str); 5] = [
        (
            &["-m", "f", "shape.f90"],
            "the extents of its argument 'x' of 'head' are not constants",
        ),
        (
            &["-m", "f", "passive.f90"],
            "its argument 'n' of 'head' (integer) is neither INDEPENDENT nor DEPENDENT",
        ),
        (
            &["-m", "f", "nopragma.f90"],
            "no INDEPENDENT or DEPENDENT pragma",
        ),
        (
            &["-m", "f", "--x0", "1,2", "passive.f90"],
            "neither INDEPENDENT",
        ),
        (&["-m", "fz", "shape.f90"], "unknown mode `fz`"),
    ];
    for (args, message) in cases {
        let o = check(p, args);
        let t = text(&o);
        assert!(!o.status.success(), "{args:?}: {t}");
        assert!(
            t.contains(message),
            "{args:?}: expected `{message}` in:\n{t}"
        );
    }
    // Wrong number of values in --x0.
    fs::write(
        p.join("ok.f90"),
        "subroutine head(x, y)\n  real(8) :: x(3), y(1)\n  !$openad INDEPENDENT(x)\n  y(1) = sum(x)\n  !$openad DEPENDENT(y)\nend subroutine head\n",
    )
    .unwrap();
    let o = check(p, &["-m", "f", "--x0", "1,2", "ok.f90"]);
    assert!(
        text(&o).contains("--x0 gives 2 values, 'head' has 3 independent values"),
        "{}",
        text(&o)
    );
}

/// A program the front end refuses is refused once, not once per mode
/// (the front end does not depend on the mode), and the check fails.
#[test]
fn a_front_end_refusal_is_reported_once() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(
        dir.path().join("chars.f90"),
        "subroutine head(x, y)
  real(8) :: x(2), y(1)
  real(8) :: a(2), b(2); equivalence (a, b)
  !$openad INDEPENDENT(x)
  y(1) = x(1) * x(2)
  !$openad DEPENDENT(y)
end subroutine head
",
    )
    .unwrap();
    let o = check(dir.path(), &["chars.f90"]);
    let t = text(&o);
    assert!(!o.status.success(), "{t}");
    assert_eq!(
        t.matches("chars.f90:3:").count(),
        2,
        "one diagnostic (its heading and its `-->` line) expected:\n{t}"
    );
    assert!(t.contains("equivalence"), "{t}");
    assert!(t.contains("could not be differentiated in any mode"), "{t}");
}

/// An MPI program (a corpus example the harness runs on 1, 2 and 4
/// processes) is refused by name, not compiled without MPI and reported
/// as a failing mode.
#[test]
fn an_mpi_program_is_a_named_refusal() {
    let example = openad_tests::workspace_root().join("tests/examples/mpi_scatter_gather");
    let o = check(&example, &["-m", "f,rs", "work_split.f90"]);
    let t = text(&o);
    assert_eq!(o.status.code(), Some(1), "{t}");
    assert!(
        t.contains("openad check cannot drive MPI programs yet (the program calls MPI)"),
        "{t}"
    );
    assert!(
        !t.contains("== -m"),
        "no mode table for a refused program: {t}"
    );
}

/// Module variables among the seeds, and more values than are printed
/// entry by entry: random projections each way.
#[test]
fn module_variables_and_many_values_are_checked_by_projections() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(
        dir.path().join("m.f90"),
        "module state
  implicit none
  real(8) :: g(3), out_total
end module state

subroutine head(x, y)
  use state
  implicit none
  real(8), intent(in) :: x(50)
  real(8), intent(out) :: y(45)
  integer :: i
  !$openad INDEPENDENT(x)
  !$openad INDEPENDENT(g)
  do i = 1, 45
    y(i) = x(i) * x(i + 5) + g(mod(i, 3) + 1) * sin(x(i + 1))
  end do
  out_total = sum(y) * g(2)
  !$openad DEPENDENT(y)
  !$openad DEPENDENT(out_total)
end subroutine head
",
    )
    .unwrap();
    let o = check(dir.path(), &["-m", "f,rs", "--seed", "3", "m.f90"]);
    let t = text(&o);
    assert!(o.status.success(), "{t}");
    assert!(
        t.contains("head: 53 independent and 46 dependent values; three random projections"),
        "{t}"
    );
    assert!(t.contains("(J·ẋ3)(46)"), "{t}");
    assert!(
        t.contains("summary: f pass, rs pass (every mode agrees)"),
        "{t}"
    );
}

/// gfortran missing or refusing the program are openad check's own
/// diagnostics, one JSON object per line under `--error-format json`: a
/// missing gfortran is an input/output error, the original program not
/// compiling a problem of the user's program (semantic), with gfortran's
/// words as notes.
#[test]
fn gfortran_missing_or_failing_is_a_json_diagnostic_of_its_kind() {
    use std::os::unix::fs::PermissionsExt;
    use xaif_schema::diagnostic::{Diagnostic, Kind, Location};
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    fs::write(
        p.join("ok.f90"),
        "subroutine head(x, y)\n  real(8) :: x(3), y(1)\n  !$openad INDEPENDENT(x)\n  y(1) = sum(x)\n  !$openad DEPENDENT(y)\nend subroutine head\n",
    )
    .unwrap();
    let no_tools = p.join("no_tools");
    let failing = p.join("failing_tools");
    fs::create_dir(&no_tools).unwrap();
    fs::create_dir(&failing).unwrap();
    let fake = failing.join("gfortran");
    fs::write(
        &fake,
        "#!/bin/sh\necho 'driver.f90:3:9: Error: refused by a fake gfortran' >&2\nexit 1\n",
    )
    .unwrap();
    fs::set_permissions(&fake, fs::Permissions::from_mode(0o755)).unwrap();
    for (path, kind, words) in [
        (&no_tools, Kind::InputOutput, "cannot run gfortran"),
        (&failing, Kind::Semantic, "gfortran failed"),
    ] {
        let o = Command::new(openad_program().expect("openad built"))
            .current_dir(p)
            .env("PATH", path)
            .args(["check", "--error-format", "json", "-m", "f", "ok.f90"])
            .output()
            .expect("openad runs");
        assert_eq!(o.status.code(), Some(1), "{}", text(&o));
        let stderr = String::from_utf8_lossy(&o.stderr);
        let diags: Vec<Diagnostic> = stderr
            .lines()
            .map(|l| Diagnostic::from_json(l).unwrap_or_else(|| panic!("not JSON: {l}")))
            .collect();
        assert_eq!(diags.len(), 1, "{stderr}");
        let d = &diags[0];
        assert_eq!(d.kind, kind, "{d:?}");
        assert_eq!(d.location, Location::program("openad check"), "{d:?}");
        assert!(d.message.contains(words), "{d:?}");
        if kind == Kind::Semantic {
            assert!(
                d.notes
                    .iter()
                    .any(|n| n.contains("refused by a fake gfortran")),
                "{d:?}"
            );
        }
    }
}
