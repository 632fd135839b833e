//! The newcomer example `examples/box/`: its hand-written drivers compile
//! against openad's output and find no mismatch with finite differences
//! (each driver exits 1 on a mismatch). The same steps as
//! `examples/box/run.sh`, with the binaries of this build. Legs that do
//! not work yet are listed as `examples_box MODE` in EXPECTED_FAILURES.
//! And what `examples/box/run.sh` (the README's first command) runs after
//! installing and building: `openad check` on the model, every mode.

use std::fs;
use std::path::PathBuf;
use std::process::Command;

use openad_tests::{openad_program, parallel_map, report, workspace_root, LegResult};

fn run(mode: &str, driver: &str) -> Result<f64, String> {
    let box_dir = workspace_root().join("examples").join("box");
    let work = tempfile::tempdir().map_err(|e| e.to_string())?;
    let out = work.path().join(mode);
    let status = Command::new(openad_program()?)
        .args(["-m", mode, "-o"])
        .arg(&out)
        .arg(box_dir.join("head.f90"))
        .output()
        .map_err(|e| e.to_string())?;
    if !status.status.success() {
        return Err(format!(
            "openad: {}",
            String::from_utf8_lossy(&status.stderr)
                .lines()
                .next()
                .unwrap_or("")
        ));
    }
    let listing = fs::read_to_string(out.join("SOURCES")).map_err(|e| e.to_string())?;
    let sources: Vec<PathBuf> = listing
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| out.join(l.trim()))
        .collect();
    let exe = work.path().join("driver");
    let compiled = Command::new("gfortran")
        .current_dir(work.path())
        .args(&sources)
        .arg(box_dir.join(driver))
        .arg("-o")
        .arg(&exe)
        .output()
        .map_err(|e| e.to_string())?;
    if !compiled.status.success() {
        return Err(format!(
            "gfortran: {}",
            String::from_utf8_lossy(&compiled.stderr)
                .lines()
                .find(|l| l.contains("Error"))
                .unwrap_or("failed")
        ));
    }
    let ran = Command::new("timeout")
        .arg("60")
        .arg(&exe)
        .output()
        .map_err(|e| e.to_string())?;
    let stdout = String::from_utf8_lossy(&ran.stdout);
    if !ran.status.success() {
        return Err(format!(
            "driver: {}",
            stdout.lines().last().unwrap_or("failed")
        ));
    }
    // The driver's last-but-one line: `worst relative error: X`.
    stdout
        .lines()
        .find_map(|l| l.strip_prefix("worst relative error:"))
        .and_then(|v| v.trim().parse::<f64>().ok())
        .ok_or_else(|| "driver printed no worst relative error".to_string())
}

#[test]
fn shipped_box_example_drivers_agree_with_finite_differences() {
    let legs = [("f", "driver_tangent.f90"), ("rs", "driver_adjoint.f90")];
    let results = parallel_map(&legs, |(mode, driver)| LegResult {
        name: "examples_box".into(),
        mode: mode.to_string(),
        outcome: run(mode, driver),
        note: String::new(),
    });
    let complaints = report("examples/box", &results);
    assert!(complaints.is_empty(), "{}", complaints.join("\n\n"));
}

#[test]
fn run_sh_checks_every_mode_of_the_box_model_with_openad_check() {
    let script = fs::read_to_string(workspace_root().join("examples/box/run.sh")).unwrap();
    assert!(
        script.contains("\"$openad\" check -m \"${1:-f,fv,rs,rj}\" \"$here/head.f90\""),
        "run.sh no longer runs openad check: update this test"
    );
    let o = Command::new(openad_program().expect("openad built"))
        .args(["check", "-m", "f,fv,rs,rj"])
        .arg(workspace_root().join("examples/box/head.f90"))
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success(),
        "{out}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    for mode in ["f", "fv", "rs", "rj"] {
        assert!(out.contains(&format!("== -m {mode}: pass")), "{out}");
    }
    // Every entry of the 2 x 6 Jacobian next to finite differences.
    assert!(
        out.contains("J(2,6)") && out.contains("finite differences"),
        "{out}"
    );
    assert!(
        out.contains("summary: f pass, fv pass, rs pass, rj pass (every mode agrees)"),
        "{out}"
    );
}
