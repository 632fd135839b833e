//! Command-line behaviour of `openad`. The pipeline mechanics are checked
//! with small shell scripts standing in for the three stage programs, so
//! these tests do not depend on the state of the real stages.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use assert_cmd::Command;
use xaif_schema::diagnostic::{Diagnostic, Kind, Location, Severity};

fn openad() -> Command {
    Command::cargo_bin("openad").expect("openad binary")
}

fn stdout_of(output: &std::process::Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr_of(output: &std::process::Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// Writes an executable shell script `dir/name`.
fn script(dir: &Path, name: &str, body: &str) {
    let path = dir.join(name);
    fs::write(&path, format!("#!/bin/sh\n{body}")).unwrap();
    fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).unwrap();
}

/// Fake stages: the front end and booster copy their input, the back end
/// writes a runtime module, the "differentiated" program and SOURCES.
/// Each records its command line in `dir/log`.
fn fake_stages(dir: &Path, failing_booster: bool) {
    let log = dir.join("log");
    let log = log.display();
    script(
        dir,
        "fortran2xaif",
        &format!(
            r#"echo "fortran2xaif $*" >> {log}
while [ $# -gt 0 ]; do
  case "$1" in
    -o) out="$2"; shift 2;;
    --canon) canon="$2"; shift 2;;
    --locations) locations="$2"; shift 2;;
    --declarations) declarations="$2"; shift 2;;
    --interface) interface="$2"; shift 2;;
    --activity) activity="$2"; shift 2;;
    *) last="$1"; shift;;
  esac
done
cat "$last" > "$out"; cat "$last" > "$canon"; echo '# openad source locations 1' > "$locations"
echo '# openad declarations 2' > "$declarations"
echo '# openad driver interface 1' > "$interface"
echo '# openad activity 1' > "$activity"
"#
        ),
    );
    let booster_body = if failing_booster {
        format!("echo \"xaif-booster $*\" >> {log}\necho 'head.f90:3:7: error: unsupported construct' >&2\nexit 1\n")
    } else {
        format!(
            r#"echo "xaif-booster $*" >> {log}
while [ $# -gt 0 ]; do
  case "$1" in
    -o) out="$2"; shift 2;;
    -m|--locations) shift 2;;
    *) in="$1"; shift;;
  esac
done
cp "$in" "$out"
"#
        )
    };
    script(dir, "xaif-booster", &booster_body);
    script(
        dir,
        "xaif2fortran",
        &format!(
            r#"echo "xaif2fortran $*" >> {log}
while [ $# -gt 0 ]; do
  case "$1" in
    -o) out="$2"; shift 2;;
    -m|--canon|--template|--locations) shift 2;;
    *) shift;;
  esac
done
mkdir -p "$out"
echo 'module OAD_active' > "$out/OAD_active.f90"
echo 'subroutine head' > "$out/head.oad.f90"
echo 'not listed' > "$out/scratch.txt"
printf 'OAD_active.f90\nhead.oad.f90\n' > "$out/SOURCES"
"#
        ),
    );
}

fn dir_entries(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

#[test]
fn no_input_file_is_a_usage_error() {
    openad().assert().code(2);
}

#[test]
fn unknown_mode_is_a_usage_error() {
    let output = openad()
        .args(["-m", "backward", "head.f90"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr_of(&output).contains("backward"));
}

#[test]
fn unknown_elimination_is_a_usage_error() {
    openad()
        .args(["--elimination", "sideways", "head.f90"])
        .assert()
        .code(2);
}

#[test]
fn help_explains_the_modes() {
    let output = openad().arg("--help").output().unwrap();
    assert!(output.status.success());
    let text = stdout_of(&output);
    for word in [
        "tangent",
        "vector",
        "split",
        "joint",
        "INDEPENDENT",
        "SOURCES",
    ] {
        assert!(text.contains(word), "--help lacks `{word}`:\n{text}");
    }
}

#[test]
fn dry_run_prints_the_stage_commands_for_each_mode() {
    let cases = [
        ("f", "tangent", "f"),
        ("tangent", "tangent", "f"),
        ("fv", "tangent", "fv"),
        ("vector", "tangent", "fv"),
        ("tangent-vector", "tangent", "fv"),
        ("rs", "adjoint", "rs"),
        ("split", "adjoint", "rs"),
        ("adjoint-split", "adjoint", "rs"),
        ("rj", "adjoint", "rj"),
        ("joint", "adjoint", "rj"),
        ("adjoint-joint", "adjoint", "rj"),
    ];
    let out = tempfile::tempdir().unwrap();
    let target = out.path().join("never");
    for (mode, booster_mode, back_end_mode) in cases {
        let output = openad()
            .args(["-n", "-m", mode, "-o"])
            .arg(&target)
            .args(["model.f90", "head.f90"])
            .output()
            .unwrap();
        assert!(output.status.success(), "mode {mode}");
        let text = stdout_of(&output);
        let line = |stage: &str| {
            text.lines()
                .find(|l| l.contains(stage) && !l.starts_with('#'))
                .unwrap_or_else(|| panic!("no {stage} line in:\n{text}"))
                .to_string()
        };
        let front = line("fortran2xaif");
        assert!(front.contains("-o \"$T/model.xaif\""), "{front}");
        assert!(front.contains("--canon \"$T/model.canon.f90\""), "{front}");
        // The source locations travel from the front end to the later stages.
        let locations = "--locations \"$T/model.loc\"";
        assert!(front.contains(locations), "{front}");
        assert!(front.ends_with("model.f90 head.f90"), "{front}");
        let booster = line("xaif-booster");
        assert!(
            booster.contains(&format!("-m {booster_mode} ")),
            "{booster}"
        );
        assert!(
            booster.ends_with("-o \"$T/model.xb.xaif\" \"$T/model.xaif\""),
            "{booster}"
        );
        assert!(booster.contains(locations), "{booster}");
        let back = line("xaif2fortran");
        assert!(back.contains(&format!("-m {back_end_mode} ")), "{back}");
        assert!(
            back.ends_with("-o \"$T/out\" \"$T/model.xb.xaif\""),
            "{back}"
        );
        assert!(back.contains(locations), "{back}");
        // So do the declarations' attributes, from the front end to the
        // back end only.
        let declarations = "--declarations \"$T/model.decl\"";
        assert!(front.contains(declarations), "{front}");
        assert!(back.contains(declarations), "{back}");
        assert!(!booster.contains(declarations), "{booster}");
    }
    assert!(
        !target.exists(),
        "a dry run must not create the output directory"
    );
}

#[test]
fn dry_run_passes_stage_options_through() {
    let output = openad()
        .args([
            "-n",
            "--form",
            "fixed",
            "--preaccumulation",
            "basic-block",
            "--elimination",
            "face",
            "--heuristic",
            "markowitz,reverse",
            "--stats",
            "--dot",
            "graphs",
            "--intrinsics",
            "cat.xaif",
            "--template",
            "split.f90",
            "--black-box",
            "lapack.bb",
            "--black-box",
            "mine.bb",
            "m.f",
        ])
        .output()
        .unwrap();
    assert!(output.status.success());
    let text = stdout_of(&output);
    let front = text.lines().find(|l| l.contains("fortran2xaif")).unwrap();
    assert!(front.contains("--form fixed"), "{front}");
    assert!(
        front.contains("--black-box lapack.bb --black-box mine.bb"),
        "{front}"
    );
    let booster = text.lines().find(|l| l.contains("xaif-booster")).unwrap();
    for option in [
        "--preaccumulation basic-block",
        "--elimination face",
        "--heuristic markowitz,reverse",
        "--stats",
        "--dot graphs",
        "--intrinsics cat.xaif",
    ] {
        assert!(booster.contains(option), "{option} missing: {booster}");
    }
    let back = text.lines().find(|l| l.contains("xaif2fortran")).unwrap();
    assert!(back.contains("--template split.f90"), "{back}");
}

#[test]
fn dry_run_passes_preprocessor_and_kind_options_to_the_front_end_only() {
    let output = openad()
        .args([
            "-n",
            "-DPHYS_B",
            "-D",
            "NZ=40",
            "-UDEBUG",
            "-I",
            "include",
            "--no-cpp",
            "--cpp",
            "--default-real-8",
            "m.F90",
        ])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr_of(&output));
    let text = stdout_of(&output);
    let front = text.lines().find(|l| l.contains("fortran2xaif")).unwrap();
    for option in [
        "-DPHYS_B",
        "-DNZ=40",
        "-UDEBUG",
        "-I include",
        "--default-real-8",
    ] {
        assert!(front.contains(option), "{option} missing: {front}");
    }
    // The later of --no-cpp / --cpp wins.
    assert!(
        front.contains("--cpp") && !front.contains("--no-cpp"),
        "{front}"
    );
    for stage in ["xaif-booster", "xaif2fortran"] {
        let line = text.lines().find(|l| l.contains(stage)).unwrap();
        assert!(
            !line.contains("-DPHYS_B") && !line.contains("--default-real-8"),
            "{line}"
        );
    }
}

#[test]
fn missing_input_file_names_the_file_and_writes_nothing() {
    let work = tempfile::tempdir().unwrap();
    let out = work.path().join("out");
    let output = openad()
        .arg("-o")
        .arg(&out)
        .arg(work.path().join("no_such_model.f90"))
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let err = stderr_of(&output);
    assert!(err.contains("no_such_model.f90:1:1"), "{err}");
    assert!(!out.exists());
}

#[test]
fn missing_stage_program_is_a_clear_error() {
    let work = tempfile::tempdir().unwrap();
    let source = work.path().join("head.f90");
    fs::write(&source, "subroutine head(x, y)\nend\n").unwrap();
    let empty = work.path().join("bin");
    fs::create_dir(&empty).unwrap();
    let out = work.path().join("out");
    let output = openad()
        .env("OPENAD_BIN_DIR", &empty)
        .arg("-o")
        .arg(&out)
        .arg(&source)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let err = stderr_of(&output);
    assert!(
        err.contains("fortran2xaif") && err.contains("not found"),
        "{err}"
    );
    assert!(!out.exists());
}

#[test]
fn results_listed_in_sources_are_copied() {
    let work = tempfile::tempdir().unwrap();
    let bin = work.path().join("bin");
    fs::create_dir(&bin).unwrap();
    fake_stages(&bin, false);
    let source = work.path().join("head.f90");
    fs::write(&source, "subroutine head(x, y)\nend\n").unwrap();
    let out = work.path().join("new").join("out");
    openad()
        .env("OPENAD_BIN_DIR", &bin)
        .args(["-m", "rj", "-o"])
        .arg(&out)
        .arg(&source)
        .assert()
        .success();
    assert_eq!(
        dir_entries(&out),
        ["OAD_active.f90", "SOURCES", "head.oad.f90"]
    );
    let log = fs::read_to_string(bin.join("log")).unwrap();
    assert!(log.contains("xaif-booster -m adjoint"), "{log}");
    assert!(log.contains("xaif2fortran -m rj"), "{log}");
}

#[test]
fn keep_also_copies_the_intermediate_files() {
    let work = tempfile::tempdir().unwrap();
    let bin = work.path().join("bin");
    fs::create_dir(&bin).unwrap();
    fake_stages(&bin, false);
    let source = work.path().join("head.f90");
    fs::write(&source, "subroutine head(x, y)\nend\n").unwrap();
    let out = work.path().join("out");
    openad()
        .env("OPENAD_BIN_DIR", &bin)
        .args(["-k", "-o"])
        .arg(&out)
        .arg(&source)
        .assert()
        .success();
    assert_eq!(
        dir_entries(&out),
        [
            "OAD_active.f90",
            "SOURCES",
            "head.act",
            "head.canon.f90",
            "head.decl",
            "head.iface",
            "head.loc",
            "head.oad.f90",
            "head.xaif",
            "head.xb.xaif"
        ]
    );
}

#[test]
fn stage_failure_forwards_the_diagnostic_and_writes_nothing() {
    let work = tempfile::tempdir().unwrap();
    let bin = work.path().join("bin");
    fs::create_dir(&bin).unwrap();
    fake_stages(&bin, true);
    let source = work.path().join("head.f90");
    fs::write(&source, "subroutine head(x, y)\nend\n").unwrap();
    let out = work.path().join("out");
    let output = openad()
        .env("OPENAD_BIN_DIR", &bin)
        .args(["-k", "-o"])
        .arg(&out)
        .arg(&source)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert!(stderr_of(&output).contains("head.f90:3:7: error: unsupported construct"));
    assert!(!out.exists());
    let log = fs::read_to_string(bin.join("log")).unwrap();
    assert!(
        !log.contains("xaif2fortran"),
        "the back end must not run: {log}"
    );
}

#[test]
fn results_go_to_the_current_directory_by_default() {
    let work = tempfile::tempdir().unwrap();
    let bin = work.path().join("bin");
    fs::create_dir(&bin).unwrap();
    fake_stages(&bin, false);
    let run_dir = work.path().join("run");
    fs::create_dir(&run_dir).unwrap();
    fs::write(run_dir.join("head.f90"), "subroutine head(x, y)\nend\n").unwrap();
    openad()
        .env("OPENAD_BIN_DIR", &bin)
        .current_dir(&run_dir)
        .arg("head.f90")
        .assert()
        .success();
    assert_eq!(
        dir_entries(&run_dir),
        ["OAD_active.f90", "SOURCES", "head.f90", "head.oad.f90"]
    );
}

#[test]
fn a_stage_that_writes_nothing_is_an_error() {
    let work = tempfile::tempdir().unwrap();
    let bin = work.path().join("bin");
    fs::create_dir(&bin).unwrap();
    fake_stages(&bin, false);
    // A front end that exits 0 without writing its output.
    script(&bin, "fortran2xaif", "exit 0\n");
    let source = work.path().join("head.f90");
    fs::write(&source, "subroutine head(x, y)\nend\n").unwrap();
    let out = work.path().join("out");
    let output = openad()
        .env("OPENAD_BIN_DIR", &bin)
        .arg("-o")
        .arg(&out)
        .arg(&source)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr_of(&output).contains("did not write"),
        "{}",
        stderr_of(&output)
    );
    assert!(!out.exists());
}

#[test]
fn unreadable_input_is_rejected_before_any_stage_runs() {
    let work = tempfile::tempdir().unwrap();
    let bin = work.path().join("bin");
    fs::create_dir(&bin).unwrap();
    fake_stages(&bin, false);
    // A directory where a source file is expected cannot be read.
    let not_a_file = work.path().join("model.f90");
    fs::create_dir(&not_a_file).unwrap();
    let out = work.path().join("out");
    let output = openad()
        .env("OPENAD_BIN_DIR", &bin)
        .arg("-o")
        .arg(&out)
        .arg(&not_a_file)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr_of(&output).contains("model.f90:1:1"),
        "{}",
        stderr_of(&output)
    );
    assert!(!bin.join("log").exists(), "no stage may run");
    assert!(!out.exists());
}

/// The rows of the `--timings` table: (stage, wall, CPU, peak RSS in MiB).
fn timings_rows(stderr: &str) -> Vec<(String, f64, f64, f64)> {
    let table = stderr
        .split("openad: timings\n")
        .nth(1)
        .unwrap_or_else(|| panic!("no timings table in {stderr}"));
    table
        .lines()
        .skip(1)
        .map(|line| {
            let cells: Vec<&str> = line.split_whitespace().collect();
            assert_eq!(cells.len(), 4, "{line}");
            let number = |cell: &str| cell.parse::<f64>().unwrap_or_else(|_| panic!("{line}"));
            (
                cells[0].to_string(),
                number(cells[1]),
                number(cells[2]),
                number(cells[3]),
            )
        })
        .collect()
}

#[test]
fn timings_reports_each_stage_and_no_progress_bar_off_a_terminal() {
    let work = tempfile::tempdir().unwrap();
    let bin = work.path().join("bin");
    fs::create_dir(&bin).unwrap();
    fake_stages(&bin, false);
    // The booster stand-in also fills 40 MiB of memory: its row must show it.
    let booster = bin.join("xaif-booster");
    let body = fs::read_to_string(&booster).unwrap().replace(
        "cp \"$in\" \"$out\"",
        "cp \"$in\" \"$out\"\ndd if=/dev/zero of=/dev/null bs=40M count=1 status=none\nsleep 2.2",
    );
    fs::write(&booster, body).unwrap();
    let source = work.path().join("head.f90");
    fs::write(&source, "subroutine head(x, y)\nend\n").unwrap();
    let output = openad()
        .env("OPENAD_BIN_DIR", &bin)
        .args(["--timings", "-o"])
        .arg(work.path().join("out"))
        .arg(&source)
        .output()
        .unwrap();
    assert!(output.status.success());
    let stderr = stderr_of(&output);
    let rows = timings_rows(&stderr);
    let names: Vec<&str> = rows.iter().map(|r| r.0.as_str()).collect();
    assert_eq!(
        names,
        ["fortran2xaif", "xaif-booster", "xaif2fortran", "openad"]
    );
    let (_, booster_wall, _, booster_rss) = rows[1];
    assert!(booster_wall >= 2.2, "{stderr}");
    assert!(booster_rss >= 40.0, "{stderr}");
    assert!(rows[0].3 < 40.0 && rows[2].3 < 40.0, "{stderr}");
    let (_, total_wall, _, total_rss) = rows[3];
    assert!(
        total_wall >= booster_wall && total_rss == booster_rss,
        "{stderr}"
    );
    // More than two seconds, but stderr is a pipe: no bar, no escape codes.
    assert!(
        !stderr.contains('\u{1b}') && !stderr.contains('\r'),
        "{stderr:?}"
    );
}

#[test]
fn timings_of_a_failed_run_stop_at_the_failing_stage() {
    let work = tempfile::tempdir().unwrap();
    let bin = work.path().join("bin");
    fs::create_dir(&bin).unwrap();
    fake_stages(&bin, true);
    let source = work.path().join("head.f90");
    fs::write(&source, "subroutine head(x, y)\nend\n").unwrap();
    let output = openad()
        .env("OPENAD_BIN_DIR", &bin)
        .args(["--timings", "-o"])
        .arg(work.path().join("out"))
        .arg(&source)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let stderr = stderr_of(&output);
    assert!(
        stderr.contains("head.f90:3:7: error: unsupported construct"),
        "{stderr}"
    );
    let names: Vec<String> = timings_rows(&stderr).into_iter().map(|r| r.0).collect();
    assert_eq!(names, ["fortran2xaif", "xaif-booster", "openad"]);
}

/// The diagnostics on stderr under `--error-format json`: every line must
/// be one diagnostic object (nothing else is printed in that format).
fn json_diagnostics(output: &std::process::Output) -> Vec<Diagnostic> {
    let err = stderr_of(output);
    let diags: Vec<Diagnostic> = err
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| Diagnostic::from_json(l).unwrap_or_else(|| panic!("not a JSON diagnostic: {l}")))
        .collect();
    assert!(!diags.is_empty(), "no diagnostic on stderr");
    diags
}

/// The only diagnostic of a failed run, checked to be an error of `kind`
/// from the program `program` (at no place in a file).
fn only_program_error(output: &std::process::Output, program: &str, kind: Kind) -> Diagnostic {
    let diags = json_diagnostics(output);
    assert_eq!(diags.len(), 1, "{diags:?}");
    let d = diags.into_iter().next().unwrap();
    assert_eq!((d.kind, d.severity), (kind, Severity::Error), "{d:?}");
    assert_eq!(d.location, Location::program(program), "{d:?}");
    d
}

#[test]
fn json_bad_options_are_usage_diagnostics() {
    let output = openad()
        .args(["--error-format", "json", "-m", "backward", "head.f90"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let d = only_program_error(&output, "openad", Kind::Usage);
    assert!(d.message.contains("backward"), "{d:?}");
    assert!(
        d.notes.iter().any(|n| n.contains("possible values")),
        "{d:?}"
    );
    // The format is found even when given after the refused option.
    let output = openad()
        .args(["--elimination", "sideways", "--error-format=json", "h.f90"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    only_program_error(&output, "openad", Kind::Usage);
    for sub in ["check", "explore"] {
        let output = openad()
            .args([sub, "--error-format", "json", "--seed"])
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(2), "{sub}");
        only_program_error(&output, &format!("openad {sub}"), Kind::Usage);
    }
}

#[test]
fn json_missing_stage_and_unreadable_input_are_input_output_errors() {
    let work = tempfile::tempdir().unwrap();
    let source = work.path().join("head.f90");
    fs::write(&source, "subroutine head(x, y)\nend\n").unwrap();
    let empty = work.path().join("bin");
    fs::create_dir(&empty).unwrap();
    let output = openad()
        .env("OPENAD_BIN_DIR", &empty)
        .args(["--error-format", "json"])
        .arg(&source)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let d = only_program_error(&output, "openad", Kind::InputOutput);
    assert!(d.message.contains("fortran2xaif"), "{d:?}");

    let missing = work.path().join("nowhere.f90");
    let output = openad()
        .env("OPENAD_BIN_DIR", &empty)
        .args(["--error-format", "json"])
        .arg(&missing)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let diags = json_diagnostics(&output);
    assert_eq!(diags.len(), 1, "{diags:?}");
    assert_eq!(diags[0].kind, Kind::InputOutput);
    assert_eq!(diags[0].location, Location::start_of(&missing));
}

/// Runs openad with `--error-format json` on a one-routine file with the
/// fake stages in `bin` (after `adjust` replaced some), output into `out`.
fn run_json(work: &Path, adjust: impl Fn(&Path), out: &Path) -> std::process::Output {
    let bin = work.join("bin");
    fs::create_dir_all(&bin).unwrap();
    fake_stages(&bin, false);
    adjust(&bin);
    let source = work.join("head.f90");
    fs::write(&source, "subroutine head(x, y)\nend\n").unwrap();
    openad()
        .env("OPENAD_BIN_DIR", &bin)
        .args(["--error-format", "json", "-o"])
        .arg(out)
        .arg(&source)
        .output()
        .unwrap()
}

#[test]
fn json_killed_or_silent_stage_is_an_internal_error_naming_no_scratch_file() {
    let work = tempfile::tempdir().unwrap();
    let out = work.path().join("out");
    let killed = run_json(
        work.path(),
        |bin| script(bin, "xaif-booster", "kill -9 $$\n"),
        &out,
    );
    assert_eq!(killed.status.code(), Some(1));
    let d = only_program_error(&killed, "openad", Kind::Internal);
    assert!(d.message.contains("xaif-booster") && d.message.contains("signal"));
    assert!(!out.exists());

    let silent = run_json(
        work.path(),
        |bin| script(bin, "fortran2xaif", "exit 0\n"),
        &out,
    );
    assert_eq!(silent.status.code(), Some(1));
    let d = only_program_error(&silent, "openad", Kind::Internal);
    assert!(d.message.contains("did not write"), "{d:?}");
    // The scratch directory (openad.XXXX in the temporary directory) is
    // gone when the user reads this: the message must not send them there.
    let scratch = std::env::temp_dir().display().to_string();
    assert!(
        !d.message.contains(&scratch) && !d.message.contains("openad."),
        "{d:?}"
    );
    assert!(!out.exists());
}

#[test]
fn json_unwritable_output_directory_is_an_input_output_error() {
    let work = tempfile::tempdir().unwrap();
    // The output "directory" is below a plain file.
    let blocker = work.path().join("file");
    fs::write(&blocker, "").unwrap();
    let output = run_json(work.path(), |_| {}, &blocker.join("out"));
    assert_eq!(output.status.code(), Some(1));
    let d = only_program_error(&output, "openad", Kind::InputOutput);
    assert!(d.message.contains("cannot write the results"), "{d:?}");
}

#[test]
fn a_stage_diagnostic_in_an_intermediate_file_does_not_name_the_scratch_directory() {
    let work = tempfile::tempdir().unwrap();
    let out = work.path().join("out");
    // A booster that refuses its input at a position in that (scratch) file.
    let booster = r#"for a; do last="$a"; done
echo "$last:3:1: error: refused here" >&2
printf '{"severity":"error","kind":"unsupported","file":"%s","line":3,"column":1,"message":"m","notes":[]}\n' "$last" >&2
exit 1
"#;
    let output = run_json(
        work.path(),
        |bin| script(bin, "xaif-booster", booster),
        &out,
    );
    assert_eq!(output.status.code(), Some(1));
    let err = stderr_of(&output);
    let temp = std::env::temp_dir().display().to_string();
    assert!(!err.contains(&temp) && !err.contains("openad."), "{err}");
    assert!(err.contains("head.xaif:3:1: error: refused here"), "{err}");
    let json = Diagnostic::from_json(err.lines().nth(1).unwrap()).expect("JSON line");
    assert_eq!(json.location, Location::new("head.xaif", 3, 1));
    assert!(!out.exists());
}
