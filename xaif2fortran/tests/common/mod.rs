//! Shared helpers: run the binary, compile its output with gfortran and a
//! driver, run the driver.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

pub fn xaif2fortran() -> Command {
    Command::new(env!("CARGO_BIN_EXE_xaif2fortran"))
}

/// The declaration attributes of canonical fixture `canon`
/// (`NAME.canon.f90` → `NAME.decl`), as `--declarations` arguments.
pub fn declarations_of(canon: &str) -> Vec<PathBuf> {
    let decl = fixture(&canon.replace(".canon.f90", ".decl"));
    if decl.exists() {
        vec!["--declarations".into(), decl]
    } else {
        Vec::new()
    }
}

/// Runs `xaif2fortran -m MODE --canon NAME.canon.f90 [--declarations
/// NAME.decl] -o OUT NAME.xb.xaif`.
pub fn differentiate(name: &str, canon: &str, mode: &str, out: &Path, extra: &[&str]) -> Output {
    xaif2fortran()
        .args(["-m", mode, "--canon"])
        .arg(fixture(canon))
        .args(declarations_of(canon))
        .args(extra)
        .arg("-o")
        .arg(out)
        .arg(fixture(&format!("{name}.xb.xaif")))
        .output()
        .expect("xaif2fortran runs")
}

/// Compiles the files listed in DIR/SOURCES plus the driver, runs the
/// program, returns its standard output.
pub fn compile_and_run(dir: &Path, driver: &Path) -> String {
    let sources = std::fs::read_to_string(dir.join("SOURCES")).expect("SOURCES written");
    let mut cmd = Command::new("gfortran");
    cmd.current_dir(dir);
    for s in sources.lines() {
        cmd.arg(s);
    }
    cmd.arg(driver).arg("-o").arg("driver");
    let out = cmd.output().expect("gfortran runs");
    assert!(
        out.status.success(),
        "gfortran failed:\n{}\nprogram:\n{}",
        String::from_utf8_lossy(&out.stderr),
        program_text(dir)
    );
    let run = Command::new(dir.join("driver"))
        .current_dir(dir)
        .output()
        .expect("driver runs");
    assert!(
        run.status.success(),
        "driver failed: {}",
        String::from_utf8_lossy(&run.stderr)
    );
    String::from_utf8_lossy(&run.stdout).to_string()
}

/// The generated program(s) in DIR, for failure messages.
pub fn program_text(dir: &Path) -> String {
    let mut s = String::new();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        if e.file_name().to_string_lossy().ends_with(".oad.f90") {
            s.push_str(&std::fs::read_to_string(e.path()).unwrap());
        }
    }
    s
}

/// Differentiates, compiles with the driver, checks the driver says OK.
pub fn check_case(name: &str, mode: &str, driver: &str) -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let out = differentiate(name, &format!("{name}.canon.f90"), mode, dir.path(), &[]);
    assert!(
        out.status.success(),
        "xaif2fortran failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = compile_and_run(dir.path(), &fixture(driver));
    assert!(
        stdout.contains("OK") && !stdout.contains("FAIL"),
        "driver output:\n{stdout}\nprogram:\n{}",
        program_text(dir.path())
    );
    (dir, stdout)
}
