//! Rejected input: a named diagnostic `file:line:column: error: ...`,
//! exit status 1 (2 for usage errors), and no output files.

mod common;

use common::*;

fn assert_rejected(out: &std::process::Output, dir: &std::path::Path, needle: &str) -> String {
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains(needle), "{stderr}");
    assert!(stderr.contains(": error: "), "{stderr}");
    let left: Vec<_> = std::fs::read_dir(dir)
        .map(|d| d.flatten().map(|e| e.file_name()).collect())
        .unwrap_or_default();
    assert!(left.is_empty(), "files left behind: {left:?}");
    stderr
}

#[test]
fn missing_canonical_source() {
    let dir = tempfile::tempdir().unwrap();
    let out = differentiate("sinx", "nonexistent.canon.f90", "f", dir.path(), &[]);
    assert_rejected(&out, dir.path(), "cannot read canonical source");
}

#[test]
fn unit_tag_not_in_canonical_source() {
    let dir = tempfile::tempdir().unwrap();
    let out = differentiate("bad_unit", "sinx.canon.f90", "f", dir.path(), &[]);
    let stderr = assert_rejected(&out, dir.path(), "unit 'nosuch'");
    assert!(stderr.contains("bad_unit.xb.xaif:17:"), "{stderr}");
}

#[test]
fn unknown_intrinsic() {
    let dir = tempfile::tempdir().unwrap();
    let out = differentiate("bad_intrinsic", "sinx.canon.f90", "f", dir.path(), &[]);
    let stderr = assert_rejected(&out, dir.path(), "unknown intrinsic 'frobnicate_scal'");
    assert!(stderr.contains("bad_intrinsic.xb.xaif:23:41:"), "{stderr}");
}

#[test]
fn active_parameter() {
    let dir = tempfile::tempdir().unwrap();
    let out = differentiate("sinx", "bad_parameter.canon.f90", "f", dir.path(), &[]);
    let stderr = assert_rejected(&out, dir.path(), "declared as a parameter");
    assert!(stderr.contains("bad_parameter.canon.f90:8:3:"), "{stderr}");
}

#[test]
fn usage_errors_exit_2() {
    let out = xaif2fortran().args(["-m", "zz"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let out = xaif2fortran().output().unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn missing_xaif_file() {
    let dir = tempfile::tempdir().unwrap();
    let out = differentiate("no_such", "sinx.canon.f90", "f", dir.path(), &[]);
    assert_rejected(&out, dir.path(), "cannot read XAIF file");
}

#[test]
fn malformed_xaif_is_reported_with_its_position() {
    let work = tempfile::tempdir().unwrap();
    let bad = work.path().join("bad.xb.xaif");
    std::fs::write(
        &bad,
        "<?xml version=\"1.0\"?>\n<xaif:CallGraph xmlns:xaif=\"http://www.mcs.anl.gov/XAIF\">\n  <xaif:Nonsense/>\n</xaif:CallGraph>\n",
    )
    .unwrap();
    let out_dir = work.path().join("out");
    let out = xaif2fortran()
        .args(["-m", "f", "--canon"])
        .arg(fixture("sinx.canon.f90"))
        .args(declarations_of("sinx.canon.f90"))
        .arg("-o")
        .arg(&out_dir)
        .arg(&bad)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("bad.xb.xaif:3:"), "{stderr}");
    assert!(stderr.contains(": error: "), "{stderr}");
    assert!(!out_dir.exists());
}

/// Every mode reads the declarations' attributes, the units' headers,
/// `use` and `common` statements from `P.decl`, never from the canonical
/// Fortran: without it the back end refuses to start, naming the option.
#[test]
fn every_mode_without_declarations_is_a_usage_error() {
    for mode in ["f", "fv", "rs", "rj"] {
        let work = tempfile::tempdir().unwrap();
        let out_dir = work.path().join("out");
        let out = xaif2fortran()
            .args(["-m", mode, "--error-format", "json", "--canon"])
            .arg(fixture("adjoint.canon.f90"))
            .arg("-o")
            .arg(&out_dir)
            .arg(fixture("adjoint.xb.xaif"))
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "-m {mode}: {stderr}");
        let d = xaif_schema::diagnostic::Diagnostic::from_json(stderr.lines().next().unwrap())
            .expect("one JSON diagnostic");
        assert_eq!(d.kind, xaif_schema::diagnostic::Kind::Usage);
        assert!(d.message.contains("--declarations"), "{stderr}");
        assert!(!out_dir.exists());
    }
}

#[test]
fn malformed_declarations_are_reported_at_their_line() {
    let work = tempfile::tempdir().unwrap();
    let decl = work.path().join("adjoint.decl");
    std::fs::write(&decl, "# openad declarations 2\ndecl head x sideways\n").unwrap();
    let out_dir = work.path().join("out");
    let out = xaif2fortran()
        .args(["-m", "rs", "--canon"])
        .arg(fixture("adjoint.canon.f90"))
        .arg("--declarations")
        .arg(&decl)
        .arg("-o")
        .arg(&out_dir)
        .arg(fixture("adjoint.xb.xaif"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("adjoint.decl:2:"), "{stderr}");
    assert!(stderr.contains("sideways"), "{stderr}");
    assert!(!out_dir.exists());
}
