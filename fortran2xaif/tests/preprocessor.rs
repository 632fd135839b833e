//! `fortran2xaif` with the C preprocessor (`gfortran -E -cpp`): which files
//! are preprocessed, `-D`/`-U`/`-I`, `--cpp`/`--no-cpp`, and that errors,
//! the preprocessor's own included, name the user's file and line (a
//! header's line for code from an `#include`), exit 1 and leave nothing.
//! These tests need gfortran and fail when it is missing.

use assert_cmd::Command;
use std::path::Path;
use std::process;

fn write(dir: &Path, name: &str, text: &str) {
    let path = dir.join(name);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn run(dir: &Path, args: &[&str]) -> process::Output {
    Command::cargo_bin("fortran2xaif")
        .unwrap()
        .current_dir(dir)
        .args([
            "-o",
            "p.xaif",
            "--canon",
            "p.canon.f90",
            "--locations",
            "p.loc",
        ])
        .args(args)
        .output()
        .unwrap()
}

fn stderr(out: &process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Exit 1, the first line of stderr starts with `at` and says `what`, and
/// no output file was written.
fn assert_rejected(dir: &Path, out: &process::Output, at: &str, what: &str) {
    let err = stderr(out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    let first = err.lines().next().unwrap_or("");
    assert!(first.starts_with(at), "expected `{at}`: {err}");
    assert!(first.contains(": error: ") && first.contains(what), "{err}");
    for output in ["p.xaif", "p.canon.f90", "p.loc"] {
        assert!(!dir.join(output).exists(), "{output} left behind");
    }
}

fn canon(dir: &Path) -> String {
    std::fs::read_to_string(dir.join("p.canon.f90")).unwrap()
}

const MODEL: &str = "\
#include \"sizes.h\"
subroutine head(x, y)
  real(8) :: x(NX), y(1)
  integer :: i
!$openad INDEPENDENT(x)
  y(1) = 0
  do i = 1, NX
#ifdef CUBIC
    y(1) = y(1) + CUBE(x(i))
#else
    y(1) = y(1) + x(i) * SCALE
#endif
  end do
!$openad DEPENDENT(y)
end subroutine
";

const SIZES: &str = "\
#define NX 4
#define SCALE 2.5d0
#define CUBE(a) ((a)*(a)*(a))
";

#[test]
fn capitalised_extension_is_preprocessed_with_defines_and_include_dirs() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "m.F90", MODEL);
    write(dir.path(), "inc/sizes.h", SIZES);
    let out = run(dir.path(), &["-DCUBIC", "-I", "inc", "m.F90"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = canon(dir.path());
    assert!(text.contains("x(4)"), "{text}");
    assert!(text.contains("x(i) * x(i) * x(i)"), "{text}");
    assert!(!text.contains("2.5d0"), "{text}");
    assert!(
        !text.contains('#'),
        "directives left in the canonical source:\n{text}"
    );
    // Statement locations name the user's file and its lines.
    let loc = std::fs::read_to_string(dir.path().join("p.loc")).unwrap();
    assert!(loc.contains("file 1 m.F90"), "{loc}");
    assert!(!loc.contains("<built-in>"), "{loc}");

    let out = run(dir.path(), &["-Iinc", "m.F90"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(canon(dir.path()).contains("x(i) * 2.5d0"));
}

#[test]
fn syntax_error_in_an_included_header_is_reported_at_the_header_line() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "m.F90", MODEL);
    write(
        dir.path(),
        "inc/sizes.h",
        "#define NX 4\n#define SCALE 2.5d0\n\n  real(8), parameter :: w = 2 * * 3\n",
    );
    let out = run(dir.path(), &["-I", "inc", "m.F90"]);
    assert_rejected(dir.path(), &out, "inc/sizes.h:4:", "syntax error");
}

#[test]
fn error_directive_is_passed_on_with_exit_1_and_no_output() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "m.F90",
        "subroutine head(x, y)\n#ifndef PHYSICS\n#error \"choose a physics with -DPHYSICS=1 or 2\"\n#endif\nend\n",
    );
    let out = run(dir.path(), &["m.F90"]);
    assert_rejected(
        dir.path(),
        &out,
        "m.F90:3:",
        "#error \"choose a physics with -DPHYSICS=1 or 2\"",
    );
    assert!(stderr(&out).contains("C preprocessor"), "{}", stderr(&out));
}

#[test]
fn missing_header_is_the_preprocessors_error_at_the_include() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "m.F90", MODEL);
    let out = run(dir.path(), &["m.F90"]);
    assert_rejected(dir.path(), &out, "m.F90:", "sizes.h");
}

#[test]
fn undefine_removes_a_predefined_macro() {
    // gfortran's preprocessor defines __GFORTRAN__; -U takes it away.
    let dir = tempfile::tempdir().unwrap();
    let src = "\
subroutine head(x, y)
  real(8) :: x(1), y(1)
!$openad INDEPENDENT(x)
#ifdef __GFORTRAN__
#error \"__GFORTRAN__ is still defined\"
#endif
  y(1) = 3 * x(1)
!$openad DEPENDENT(y)
end subroutine
";
    write(dir.path(), "m.F90", src);
    let out = run(dir.path(), &["m.F90"]);
    assert_rejected(
        dir.path(),
        &out,
        "m.F90:5:",
        "__GFORTRAN__ is still defined",
    );
    let out = run(dir.path(), &["-U__GFORTRAN__", "m.F90"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let out = run(dir.path(), &["-U", "__GFORTRAN__", "m.F90"]);
    assert!(out.status.success(), "{}", stderr(&out));
}

#[test]
fn no_cpp_leaves_directives_to_the_named_error() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "m.F90", MODEL);
    write(dir.path(), "sizes.h", SIZES);
    let out = run(dir.path(), &["--no-cpp", "m.F90"]);
    assert_rejected(
        dir.path(),
        &out,
        "m.F90:1:1:",
        "preprocessor directive `#include` is not supported",
    );
    // The last of --cpp / --no-cpp counts.
    let out = run(dir.path(), &["--cpp", "--no-cpp", "m.F90"]);
    assert_eq!(out.status.code(), Some(1));
    let out = run(dir.path(), &["--no-cpp", "--cpp", "m.F90"]);
    assert!(out.status.success(), "{}", stderr(&out));
}

#[test]
fn cpp_preprocesses_a_lower_case_file() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "m.f90", MODEL);
    write(dir.path(), "sizes.h", SIZES);
    let out = run(dir.path(), &["m.f90"]);
    assert_rejected(
        dir.path(),
        &out,
        "m.f90:1:1:",
        "`#include` is not supported",
    );
    let out = run(dir.path(), &["--cpp", "-DCUBIC", "m.f90"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(canon(dir.path()).contains("x(i) * x(i) * x(i)"));
}

#[test]
fn line_map_names_the_file_and_header_lines() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "m.F90", MODEL);
    write(dir.path(), "inc/sizes.h", SIZES);
    let options = fortran2xaif::source::LoadOptions {
        preprocessor: fortran2xaif::source::PreprocessOptions {
            include_dirs: vec![dir.path().join("inc")],
            ..Default::default()
        },
        ..Default::default()
    };
    let path = dir.path().join("m.F90");
    let source = fortran2xaif::source::load_with(&path, &options).unwrap();
    let files = source.line_map.files();
    assert_eq!(files.len(), 2, "{files:?}");
    assert_eq!(files[0], path);
    assert!(files[1].ends_with("inc/sizes.h"), "{files:?}");
    let line = source
        .text
        .lines()
        .position(|l| l.contains("x(i) * 2.5d0"))
        .unwrap()
        + 1;
    let at = source.line_map.location(line, 5);
    assert_eq!((at.file, at.line, at.column), (path, 11, 5));
}

#[test]
fn missing_preprocessor_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "m.F90", MODEL);
    let out = Command::cargo_bin("fortran2xaif")
        .unwrap()
        .current_dir(dir.path())
        .env("OPENAD_GFORTRAN", dir.path().join("no-such-gfortran"))
        .args(["-o", "p.xaif", "--canon", "p.canon.f90", "m.F90"])
        .output()
        .unwrap();
    assert_rejected(
        dir.path(),
        &out,
        "m.F90:1:1:",
        "cannot run the C preprocessor",
    );
}

#[test]
fn fixed_form_common_blocks_from_an_included_header() {
    let dir = tempfile::tempdir().unwrap();
    let src = "\
C     Fixed form, preprocessed: the common block comes from a header,
C     a parameter from a Fortran INCLUDE the header itself names.
      SUBROUTINE HEAD(X, Y)
      IMPLICIT NONE
#include \"state.h\"
      DOUBLE PRECISION X(NPTS), Y(1)
      INTEGER I
c$openad INDEPENDENT(x)
      DO 10 I = 1, NPTS
         S(I) = X(I) * X(I)
   10 CONTINUE
      Y(1) = S(1) + S(NPTS)
c$openad DEPENDENT(y)
      END
";
    write(dir.path(), "m.F", src);
    write(
        dir.path(),
        "hdr/state.h",
        "      INCLUDE 'npts.inc'\n      DOUBLE PRECISION S(NPTS)\n      COMMON /STATE/ S\n",
    );
    write(
        dir.path(),
        "hdr/npts.inc",
        "      INTEGER NPTS\n      PARAMETER (NPTS = 3)\n",
    );
    let out = run(dir.path(), &["-Ihdr", "m.F"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = canon(dir.path());
    assert!(
        text.to_ascii_lowercase().contains("common /state/ s"),
        "{text}"
    );
    let loc = std::fs::read_to_string(dir.path().join("p.loc")).unwrap();
    assert!(loc.contains("hdr/state.h"), "{loc}");
}

#[test]
fn warning_directive_is_a_warning_at_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let src = "\
subroutine head(x, y)
  real(8) :: x(1), y(1)
!$openad INDEPENDENT(x)
#warning \"old physics\"
  y(1) = 3 * x(1)
!$openad DEPENDENT(y)
end subroutine
";
    write(dir.path(), "m.F90", src);
    let out = run(dir.path(), &["m.F90"]);
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    assert!(
        err.lines().any(|l| l.starts_with("m.F90:4:")
            && l.contains(": warning: ")
            && l.contains("old physics")),
        "{err}"
    );
    assert!(dir.path().join("p.xaif").exists());
}
