//! Shared helpers for the end-to-end tests: load the example corpus, run
//! the original program for finite differences, run `openad` in every mode,
//! compile the result with a generated driver, compare, and report.
//!
//! Work directories are kept under `<target>/e2e-work/<leg>/<example>/`
//! (generated driver, `openad` output, executable, logs) so a failing leg
//! can be inspected by hand; each run starts from an empty one.
//!
//! Environment:
//! - `OPENAD_BIN_DIR`: take `openad` and the stages from there (no build).
//! - `OPENAD_EXAMPLES=a,b`: run only these examples.

pub mod call_trees;
pub mod drivers;
pub mod manifest;
pub mod mpi;

use std::collections::{BTreeMap, HashSet};
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

use drivers::DotDirections;
use manifest::Manifest;

/// Seconds any compiled program or tool invocation may take.
const RUN_TIMEOUT: Duration = Duration::from_secs(120);
/// Relative agreement required in the dot-product test.
pub const DOT_TOLERANCE: f64 = 1e-12;
/// Relative agreement required between y computed by generated code and by the original.
pub const VALUE_TOLERANCE: f64 = 1e-9;
/// Allowed relative disagreement of one-sided differences at x0.
pub const KINK_TOLERANCE: f64 = 1e-3;
/// Parallel workers per test (the machines have two cores).
pub const WORKERS: usize = 2;

/// Root of the workspace (the parent of this crate).
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")))
}

pub fn examples_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples")
}

pub fn bench_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("bench")
}

pub fn bad_inputs_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("bad-inputs")
}

/// `target/<profile>` of the running test executable (`target/<profile>/deps/NAME-HASH`).
fn profile_dir() -> Result<PathBuf, String> {
    let exe = std::env::current_exe().map_err(|e| format!("current_exe: {e}"))?;
    let deps = exe.parent().ok_or("test executable has no directory")?;
    let profile = if deps.file_name().is_some_and(|n| n == "deps") {
        deps.parent().ok_or("deps has no parent")?
    } else {
        deps
    };
    Ok(profile.to_path_buf())
}

/// Scratch space for the legs, inside the target directory.
pub fn work_root() -> PathBuf {
    profile_dir()
        .ok()
        .and_then(|p| p.parent().map(|t| t.join("e2e-work")))
        .unwrap_or_else(|| std::env::temp_dir().join("openad-e2e-work"))
}

/// Directory holding `openad` and the three stages, built on first use
/// (cargo is quick when they are up to date) unless `OPENAD_BIN_DIR` is set.
pub fn bin_dir() -> Result<PathBuf, String> {
    static BIN_DIR: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    BIN_DIR
        .get_or_init(|| {
            if let Some(dir) = std::env::var_os("OPENAD_BIN_DIR") {
                return Ok(PathBuf::from(dir));
            }
            let profile = profile_dir()?;
            let target = profile.parent().ok_or("profile dir has no parent")?;
            let profile_name = match profile.file_name().and_then(|n| n.to_str()) {
                Some("debug") => "dev".to_string(),
                Some(name) => name.to_string(),
                None => return Err("unnamed profile directory".into()),
            };
            let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
            let output = Command::new(cargo)
                .current_dir(workspace_root())
                .args(["build", "--quiet", "--bins", "--profile", &profile_name])
                .args(["-p", "openad-driver", "-p", "fortran2xaif"])
                .args(["-p", "xaif-booster", "-p", "xaif2fortran"])
                .arg("--target-dir")
                .arg(target)
                .output()
                .map_err(|e| format!("cannot run cargo build: {e}"))?;
            if !output.status.success() {
                return Err(format!(
                    "building openad and the stages failed:\n{}",
                    String::from_utf8_lossy(&output.stderr)
                ));
            }
            Ok(profile)
        })
        .clone()
}

pub fn openad_program() -> Result<PathBuf, String> {
    Ok(bin_dir()?.join(format!("openad{}", std::env::consts::EXE_SUFFIX)))
}

/// `openad -m MODE -o out FILE` run in `dir` on `source` written there as
/// `file`, which must succeed; the generated code (`out/STEM.oad.f90`).
pub fn generated_code(dir: &Path, file: &str, source: &str, mode: &str) -> String {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(dir.join(file), source).unwrap();
    let out = std::process::Command::new(openad_program().unwrap())
        .current_dir(dir)
        .args(["-m", mode, "-o", "out", file])
        .output()
        .expect("openad runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stem = Path::new(file).file_stem().unwrap().to_string_lossy();
    std::fs::read_to_string(dir.join("out").join(format!("{stem}.oad.f90"))).unwrap()
}

/// One example: a directory with `example.toml` and its sources.
#[derive(Debug, Clone)]
pub struct Example {
    pub name: String,
    pub dir: PathBuf,
    pub manifest: Manifest,
}

/// All examples under `root` (sorted by name), or only those named in `OPENAD_EXAMPLES`.
pub fn load_examples(root: &Path) -> Result<Vec<Example>, String> {
    let wanted: Option<HashSet<String>> = std::env::var("OPENAD_EXAMPLES")
        .ok()
        .map(|list| list.split(',').map(|s| s.trim().to_string()).collect());
    let entries = fs::read_dir(root).map_err(|e| format!("{}: {e}", root.display()))?;
    let mut examples = Vec::new();
    for entry in entries.filter_map(Result::ok) {
        let dir = entry.path();
        let manifest_path = dir.join("example.toml");
        if !manifest_path.is_file() {
            continue;
        }
        let name = entry.file_name().to_string_lossy().into_owned();
        if wanted.as_ref().is_some_and(|w| !w.contains(&name)) {
            continue;
        }
        let manifest = Manifest::read(&manifest_path)?;
        for file in manifest
            .files
            .iter()
            .chain(&manifest.data)
            .chain(&manifest.black_box)
            .chain(&manifest.link_sources)
        {
            if !dir.join(file).is_file() {
                return Err(format!("{name}: listed file `{file}` does not exist"));
            }
        }
        examples.push(Example {
            name,
            dir,
            manifest,
        });
    }
    examples.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(examples)
}

/// What a driver printed: y, the Jacobian (ny rows of nx) and the dot-test vector.
#[derive(Debug, Clone, Default)]
pub struct DriverOutput {
    pub values: Vec<f64>,
    pub jacobian: Vec<Vec<f64>>,
    pub dot: Vec<f64>,
    /// Finite differences with a coarser step (original leg only, may be incomplete).
    pub coarse_jacobian: Vec<Vec<f64>>,
    /// Forward and backward differences (original leg only).
    pub forward_jacobian: Vec<Vec<f64>>,
    pub backward_jacobian: Vec<Vec<f64>>,
}

/// Reads the `OAD_*` lines; every entry of J must be present.
pub fn parse_driver_output(text: &str, nx: usize, ny: usize) -> Result<DriverOutput, String> {
    let mut jacobian: Vec<Vec<Option<f64>>> = vec![vec![None; nx]; ny];
    let mut values: BTreeMap<usize, f64> = BTreeMap::new();
    let mut dot: BTreeMap<usize, f64> = BTreeMap::new();
    let mut coarse = vec![vec![f64::NAN; nx]; ny];
    let mut forward = coarse.clone();
    let mut backward = coarse.clone();
    for line in text.lines() {
        let fields: Vec<&str> = line.split_whitespace().collect();
        let index = |i: usize, bound: usize| -> Result<usize, String> {
            let value: usize = fields
                .get(i)
                .and_then(|s| s.parse().ok())
                .ok_or_else(|| format!("bad index in `{line}`"))?;
            if value == 0 || value > bound {
                return Err(format!("index out of range in `{line}`"));
            }
            Ok(value - 1)
        };
        let number = |i: usize| -> Result<f64, String> {
            let text = fields
                .get(i)
                .ok_or_else(|| format!("short line `{line}`"))?;
            // gfortran prints values too large for the exponent field without the `E`.
            text.parse::<f64>()
                .map_err(|_| format!("cannot read number `{text}` in `{line}`"))
        };
        match fields.first() {
            Some(&"OAD_J") => {
                let (k, i) = (index(1, ny)?, index(2, nx)?);
                jacobian[k][i] = Some(number(3)?);
            }
            Some(&"OAD_JC") => {
                let (k, i) = (index(1, ny)?, index(2, nx)?);
                coarse[k][i] = number(3)?;
            }
            Some(&"OAD_JF") => {
                let (k, i) = (index(1, ny)?, index(2, nx)?);
                forward[k][i] = number(3)?;
            }
            Some(&"OAD_JB") => {
                let (k, i) = (index(1, ny)?, index(2, nx)?);
                backward[k][i] = number(3)?;
            }
            Some(&"OAD_Y") => {
                values.insert(index(1, ny)?, number(2)?);
            }
            Some(&"OAD_DOT") => {
                dot.insert(index(1, nx.max(ny))?, number(2)?);
            }
            _ => {}
        }
    }
    let mut complete = Vec::with_capacity(ny);
    for (k, row) in jacobian.into_iter().enumerate() {
        let mut full = Vec::with_capacity(nx);
        for (i, entry) in row.into_iter().enumerate() {
            full.push(entry.ok_or_else(|| format!("driver did not print J({},{})", k + 1, i + 1))?);
        }
        complete.push(full);
    }
    Ok(DriverOutput {
        values: values.into_values().collect(),
        jacobian: complete,
        dot: dot.into_values().collect(),
        coarse_jacobian: coarse,
        forward_jacobian: forward,
        backward_jacobian: backward,
    })
}

/// Worst column-wise relative error of `computed` against `reference`:
/// for column i, max_k |a_ki - f_ki| / max(max_k |f_ki|, floor), with the
/// floor 1e-4 (1 + ‖y‖∞) so that a column that is zero up to finite
/// difference noise does not count as a huge relative error.
pub fn worst_relative_error(computed: &[Vec<f64>], reference: &[Vec<f64>], y: &[f64]) -> f64 {
    let ny = reference.len();
    let nx = reference.first().map_or(0, Vec::len);
    let y_norm = y.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    let floor = 1e-4 * (1.0 + y_norm);
    let mut worst = 0.0f64;
    for i in 0..nx {
        let column_norm = (0..ny).fold(0.0f64, |m, k| m.max(reference[k][i].abs()));
        let scale = column_norm.max(floor);
        for k in 0..ny {
            let diff = (computed[k][i] - reference[k][i]).abs();
            // NaN never compares greater; make it the worst possible error.
            let err = if diff.is_nan() {
                f64::INFINITY
            } else {
                diff / scale
            };
            worst = worst.max(err);
        }
    }
    worst
}

/// Relative difference of two scalars against a given scale (at least tiny).
fn relative(a: f64, b: f64, scale: f64) -> f64 {
    let d = (a - b).abs();
    if d.is_nan() {
        f64::INFINITY
    } else {
        d / scale.max(1e-300)
    }
}

/// Runs `command` with a time limit; returns stdout, or an error with stderr.
fn run_checked(command: &mut Command, what: &str) -> Result<String, String> {
    let output = command
        .output()
        .map_err(|e| format!("{what}: cannot start: {e}"))?;
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    if output.status.success() {
        Ok(stdout)
    } else if output.status.code() == Some(124) {
        Err(format!(
            "{what}: timed out after {}s",
            RUN_TIMEOUT.as_secs()
        ))
    } else {
        let first = stderr
            .lines()
            .chain(stdout.lines())
            .find(|l| !l.trim().is_empty())
            .unwrap_or("")
            .trim()
            .to_string();
        // gfortran puts the location first and the message a few lines below.
        let first = match stderr
            .lines()
            .find(|l| l.trim_start().starts_with("Error:"))
        {
            Some(message) if !first.contains("Error:") => format!("{first} {}", message.trim()),
            _ => first,
        };
        Err(format!(
            "{what}: {first} ({})\n{}{}",
            output.status,
            tail(&stderr, 40),
            tail(&stdout, 10)
        ))
    }
}

/// The last `lines` lines of `text`.
fn tail(text: &str, lines: usize) -> String {
    let all: Vec<&str> = text.lines().collect();
    let start = all.len().saturating_sub(lines);
    all[start..].iter().map(|l| format!("{l}\n")).collect()
}

/// `timeout SECONDS program`, so a hanging program fails its leg instead of the suite.
fn timed(program: &Path) -> Command {
    let mut command = Command::new("timeout");
    command.arg(RUN_TIMEOUT.as_secs().to_string()).arg(program);
    command
}

/// A fresh work directory for one leg of one example.
fn fresh_dir(leg: &str, name: &str) -> Result<PathBuf, String> {
    let dir = work_root().join(leg).join(name);
    if dir.exists() {
        fs::remove_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    Ok(dir)
}

/// Writes a generated example, its sources (`(file name, text)`) and
/// `example.toml`, into a fresh `<work root>/generated/<name>/` and loads it
/// as a corpus example is loaded; the directory stays for inspection.
pub fn write_example(
    name: &str,
    sources: &[(&str, &str)],
    manifest: &str,
) -> Result<Example, String> {
    let dir = fresh_dir("generated", name)?;
    for (file, text) in sources {
        fs::write(dir.join(file), text).map_err(|e| format!("{file}: {e}"))?;
    }
    let manifest_path = dir.join("example.toml");
    fs::write(&manifest_path, manifest).map_err(|e| format!("example.toml: {e}"))?;
    let manifest = Manifest::read(&manifest_path)?;
    Ok(Example {
        name: name.to_string(),
        dir,
        manifest,
    })
}

/// Copies the example's files into `work/src`; with `size`, the line tagged
/// `! bench-size` gets `= size` as its parameter value.
fn copy_sources(example: &Example, work: &Path, size: Option<u64>) -> Result<PathBuf, String> {
    let src = work.join("src");
    fs::create_dir_all(&src).map_err(|e| e.to_string())?;
    let entries = fs::read_dir(&example.dir).map_err(|e| e.to_string())?;
    for entry in entries.filter_map(Result::ok) {
        let path = entry.path();
        if !path.is_file() {
            continue;
        }
        let target = src.join(entry.file_name());
        match size {
            Some(n) => {
                let text = fs::read_to_string(&path).map_err(|e| e.to_string())?;
                let resized: Vec<String> =
                    text.lines().map(|line| set_bench_size(line, n)).collect();
                fs::write(&target, resized.join("\n") + "\n").map_err(|e| e.to_string())?;
            }
            None => {
                fs::copy(&path, &target).map_err(|e| e.to_string())?;
            }
        }
    }
    Ok(src)
}

/// `integer, parameter :: n = 1000 ! bench-size` → `... :: n = SIZE ! bench-size`.
pub fn set_bench_size(line: &str, size: u64) -> String {
    let Some(tag) = line.find("! bench-size") else {
        return line.to_string();
    };
    let Some(eq) = line[..tag].rfind('=') else {
        return line.to_string();
    };
    format!("{}= {size} {}", &line[..eq], &line[tag..])
}

/// Compiles `sources` (then the example's link sources, found in
/// `link_dir`) with `driver` into `exe`, linking the example's libraries;
/// `flags` are the manifest's `fflags` for the original sources, none for
/// generated code.
fn gfortran(
    build: &Path,
    flags: &[String],
    sources: &[PathBuf],
    driver: &Path,
    exe: &Path,
    m: &Manifest,
    link_dir: &Path,
) -> Result<(), String> {
    // MPI programs build with the MPI compiler wrapper (gfortran inside).
    let compiler = if m.mpi_procs.is_empty() {
        "gfortran"
    } else {
        mpi::COMPILER
    };
    let mut command = Command::new(compiler);
    command
        .current_dir(build)
        .args(flags)
        .args(sources)
        .args(m.link_sources.iter().map(|f| link_dir.join(f)))
        .arg(driver)
        .arg("-o")
        .arg(exe)
        .args(m.libraries.iter().map(|l| format!("-l{l}")));
    run_checked(&mut command, compiler).map(|_| ())
}

/// A driver as written for `m`: summing over the ranks for MPI programs.
fn driver_text(m: &Manifest, text: String) -> Result<String, String> {
    if m.mpi_procs.is_empty() {
        Ok(text)
    } else {
        mpi::driver(&text)
    }
}

/// Runs a compiled driver in `dir` and reads what it printed (`what`
/// names it in errors, `log` receives the output). An MPI program runs
/// at each process count of the example; the derivatives (and y) must
/// agree across the counts to `tolerance`, and the output at the largest
/// count is returned.
fn run_driver(
    exe: &Path,
    dir: &Path,
    m: &Manifest,
    what: &str,
    log: &Path,
    tolerance: f64,
) -> Result<DriverOutput, String> {
    if m.mpi_procs.is_empty() {
        let stdout = run_checked(timed(exe).current_dir(dir), what)?;
        let _ = fs::write(log, &stdout);
        return parse_driver_output(&stdout, m.nx, m.ny);
    }
    let mut first: Option<(usize, DriverOutput)> = None;
    let mut last = None;
    for &procs in &m.mpi_procs {
        let run_what = format!("{what} on {procs} processes");
        let run = || {
            run_checked(
                mpi::mpirun(RUN_TIMEOUT.as_secs(), procs, exe).current_dir(dir),
                &run_what,
            )
        };
        // Open MPI, started by two examples at once, can fail to set up
        // its session ("File exists") before the program runs: that start
        // is retried once; any failure of the program itself is not.
        let stdout = match run() {
            Err(e) if e.contains("File exists") => run()?,
            other => other?,
        };
        let _ = fs::write(log.with_extension(format!("np{procs}.txt")), &stdout);
        let out = parse_driver_output(&stdout, m.nx, m.ny)?;
        if let Some((p0, reference)) = &first {
            let flat = |o: &DriverOutput| -> Vec<f64> {
                o.values
                    .iter()
                    .chain(o.jacobian.iter().flatten())
                    .chain(&o.dot)
                    .copied()
                    .collect()
            };
            let (a, b) = (flat(&out), flat(reference));
            if a.len() != b.len() {
                return Err(format!(
                    "{what}: printed {} numbers on {procs} processes, {} on {p0}",
                    a.len(),
                    b.len()
                ));
            }
            let scale = b.iter().fold(1e-300f64, |m, v| m.max(v.abs()));
            let worst = a
                .iter()
                .zip(&b)
                .map(|(x, r)| (x - r).abs() / scale.max(r.abs()))
                .fold(
                    0.0f64,
                    |m, e| if e.is_nan() { f64::INFINITY } else { m.max(e) },
                );
            if worst > tolerance {
                return Err(format!(
                    "{what}: results on {procs} processes differ from those on {p0} by {worst:.1e} (allowed {tolerance:.0e})"
                ));
            }
        } else {
            first = Some((procs, out.clone()));
        }
        last = Some(out);
    }
    last.ok_or_else(|| "`mpi_procs` is empty".to_string())
}

/// `--black-box FILE` for each declaration file of the example.
fn black_box_options(m: &Manifest) -> Vec<String> {
    m.black_box
        .iter()
        .flat_map(|f| ["--black-box".to_string(), f.clone()])
        .collect()
}

/// The original leg: compile the example with the finite-difference driver and run it.
pub fn run_original(example: &Example, size: Option<u64>) -> Result<DriverOutput, String> {
    let m = &example.manifest;
    let work = fresh_dir("original", &example.name)?;
    let src = copy_sources(example, &work, size)?;
    let driver = work.join("fd_driver.f90");
    fs::write(
        &driver,
        driver_text(m, drivers::finite_difference_driver(m))?,
    )
    .map_err(|e| e.to_string())?;
    let sources: Vec<PathBuf> = m.files.iter().map(|f| src.join(f)).collect();
    let exe = work.join("fd_driver");
    gfortran(&work, &m.fflags, &sources, &driver, &exe, m, &src)?;
    // Finite differences at different process counts agree to their own
    // accuracy only (the sums are rounded in another order).
    let out = run_driver(
        &exe,
        &src,
        m,
        "original program",
        &work.join("output.txt"),
        m.tolerance,
    )?;
    if out.values.len() != m.ny {
        return Err(format!("driver printed {} values of y", out.values.len()));
    }
    let all = out.values.iter().chain(out.jacobian.iter().flatten());
    if let Some(bad) = all.clone().find(|v| !v.is_finite()) {
        return Err(format!(
            "non-finite value {bad} in y or the finite differences"
        ));
    }
    if out.jacobian.iter().flatten().all(|v| *v == 0.0) {
        return Err("finite differences are all zero: y does not depend on x".into());
    }
    // Two steps 100 times apart must agree, else y is not smooth near x0
    // (a branch or an integer jumps within the step) and FD prove nothing.
    let disagreement = worst_relative_error(&out.coarse_jacobian, &out.jacobian, &out.values);
    if disagreement > m.tolerance {
        return Err(format!(
            "finite differences with steps h and 100h disagree ({disagreement:.1e}): y is not smooth at x0"
        ));
    }
    // Forward and backward differences differ by h·y'' on smooth functions,
    // by the jump of the slope at a kink.
    let kink = worst_relative_error(&out.forward_jacobian, &out.backward_jacobian, &out.values);
    if kink > KINK_TOLERANCE {
        return Err(format!(
            "forward and backward differences disagree ({kink:.1e}): x0 sits on a kink"
        ));
    }
    Ok(out)
}

/// A leg is a mode (`f`, `fv`, `rs`, `rj`) or a mode with booster options:
/// `rs-bb` is `-m rs --preaccumulation basic-block` (every run of every
/// basic block taped as its preaccumulated Jacobian, where the default
/// `auto` chooses per run); `rs-rc`/`rj-rc` recompute the partials of
/// every run that allows it in the reverse sweep (`--partials recomputed`).
pub fn leg_mode(leg: &str) -> (&str, &'static [&'static str]) {
    match leg {
        "rs-bb" => ("rs", &["--preaccumulation", "basic-block"]),
        "rj-bb" => ("rj", &["--preaccumulation", "basic-block"]),
        "rs-rc" => ("rs", &["--partials", "recomputed"]),
        "rj-rc" => ("rj", &["--partials", "recomputed"]),
        other => (other, &[]),
    }
}

/// A mode leg: `openad -m MODE`, compile `SOURCES` + the generated driver, run.
pub fn run_mode(example: &Example, leg: &str, size: Option<u64>) -> Result<DriverOutput, String> {
    let m = &example.manifest;
    let work = fresh_dir(leg, &example.name)?;
    let (mode, options) = leg_mode(leg);
    let src = copy_sources(example, &work, size)?;
    let out_dir = work.join("out");
    // The driver is written first so it can be read even when openad fails.
    write_driver(&example.name, m, mode, &work)?;
    let openad = openad_program()?;
    let mut command = timed(&openad);
    command
        .current_dir(&src)
        .args(["-m", mode])
        .args(options)
        .args(&m.openad_options)
        .args(black_box_options(m))
        .arg("-o")
        .arg(&out_dir)
        .args(&m.files);
    run_checked(&mut command, "openad")?;
    run_generated(&example.name, m, mode, &out_dir, &work, &src)
}

/// Writes `work/driver_MODE.f90`, the driver for `mode`.
fn write_driver(name: &str, m: &Manifest, mode: &str, work: &Path) -> Result<PathBuf, String> {
    let dirs = DotDirections::for_example(name, m.nx, m.ny);
    let text = match mode {
        "f" => drivers::tangent_driver(m, &dirs),
        "fv" => drivers::vector_driver(m),
        "rs" => drivers::split_driver(m, &dirs),
        "rj" => drivers::joint_driver(m, &dirs),
        other => return Err(format!("unknown mode {other}")),
    };
    let driver = work.join(format!("driver_{mode}.f90"));
    fs::write(&driver, driver_text(m, text)?).map_err(|e| e.to_string())?;
    Ok(driver)
}

/// Compiles `out_dir/SOURCES` with the generated driver for `mode` exactly
/// as CONTRACT.md says, runs it in `run_dir` and reads what it printed.
pub fn run_generated(
    name: &str,
    m: &Manifest,
    mode: &str,
    out_dir: &Path,
    work: &Path,
    run_dir: &Path,
) -> Result<DriverOutput, String> {
    let listing = fs::read_to_string(out_dir.join("SOURCES"))
        .map_err(|e| format!("openad wrote no SOURCES: {e}"))?;
    let sources: Vec<PathBuf> = listing
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(|l| out_dir.join(l))
        .collect();
    let driver = write_driver(name, m, mode, work)?;
    let build = work.join("build");
    fs::create_dir_all(&build).map_err(|e| e.to_string())?;
    let exe = work.join(format!("driver_{mode}"));
    // No flags: the generated code builds as CONTRACT.md promises.
    gfortran(&build, &[], &sources, &driver, &exe, m, run_dir)?;
    // Derivatives at different process counts: equal to rounding.
    run_driver(
        &exe,
        run_dir,
        m,
        "differentiated program",
        &work.join("output.txt"),
        1e-10,
    )
}

/// Seconds for one evaluation in `mode` (`orig`, `f`, `fv`, `rs`, `rj`) at
/// the benchmark size, everything compiled with `-O2`.
pub fn time_leg(example: &Example, mode: &str, size: Option<u64>) -> Result<f64, String> {
    let m = &example.manifest;
    let work = fresh_dir(&format!("timing-{mode}"), &example.name)?;
    let src = copy_sources(example, &work, size)?;
    let sources: Vec<PathBuf> = if mode == "orig" {
        m.files.iter().map(|f| src.join(f)).collect()
    } else {
        let out_dir = work.join("out");
        let mut command = timed(&openad_program()?);
        command
            .current_dir(&src)
            .args(["-m", mode])
            .args(&m.openad_options)
            .args(black_box_options(m))
            .arg("-o")
            .arg(&out_dir)
            .args(&m.files);
        run_checked(&mut command, "openad")?;
        let listing = fs::read_to_string(out_dir.join("SOURCES"))
            .map_err(|e| format!("openad wrote no SOURCES: {e}"))?;
        listing
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| out_dir.join(l.trim()))
            .collect()
    };
    let driver = work.join("timing_driver.f90");
    fs::write(&driver, drivers::timing_driver(m, mode)).map_err(|e| e.to_string())?;
    let exe = work.join("timing_driver");
    let mut command = Command::new("gfortran");
    if mode == "orig" {
        command.args(&m.fflags);
    }
    command
        .current_dir(&work)
        .arg("-O2")
        .args(&sources)
        .args(m.link_sources.iter().map(|f| src.join(f)))
        .arg(&driver)
        .arg("-o")
        .arg(&exe)
        .args(m.libraries.iter().map(|l| format!("-l{l}")));
    run_checked(&mut command, "gfortran -O2")?;
    let stdout = run_checked(timed(&exe).current_dir(&src), "timing run")?;
    stdout
        .lines()
        .find_map(|l| l.trim().strip_prefix("OAD_TIME"))
        .and_then(|t| t.trim().parse::<f64>().ok())
        .ok_or_else(|| "timing driver printed no OAD_TIME".to_string())
}

/// `NAME MODE reason` lines of `tests/examples/EXPECTED_FAILURES`.
pub fn expected_failures() -> BTreeMap<(String, String), String> {
    let path = examples_dir().join("EXPECTED_FAILURES");
    let text = fs::read_to_string(path).unwrap_or_default();
    let mut map = BTreeMap::new();
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let mut parts = line.splitn(3, char::is_whitespace);
        let (Some(name), Some(mode)) = (parts.next(), parts.next()) else {
            continue;
        };
        let reason = parts.next().unwrap_or("").trim().to_string();
        map.insert((name.to_string(), mode.to_string()), reason);
    }
    map
}

/// The examples with the results every mode needs, computed once per test process.
pub struct Corpus {
    pub examples: Vec<CorpusEntry>,
}

pub struct CorpusEntry {
    pub example: Example,
    pub size: Option<u64>,
    finite_differences: OnceLock<Result<DriverOutput, String>>,
    tangent: OnceLock<Result<DriverOutput, String>>,
}

impl CorpusEntry {
    pub fn new(example: Example, size: Option<u64>) -> Self {
        CorpusEntry {
            example,
            size,
            finite_differences: OnceLock::new(),
            tangent: OnceLock::new(),
        }
    }

    pub fn finite_differences(&self) -> &Result<DriverOutput, String> {
        self.finite_differences
            .get_or_init(|| run_original(&self.example, self.size))
    }

    pub fn tangent(&self) -> &Result<DriverOutput, String> {
        self.tangent
            .get_or_init(|| run_mode(&self.example, "f", self.size))
    }
}

/// The corpus of `tests/examples`, shared by all tests of one test executable.
pub fn example_corpus() -> &'static Corpus {
    static CORPUS: OnceLock<Corpus> = OnceLock::new();
    CORPUS.get_or_init(|| {
        let examples = load_examples(&examples_dir()).unwrap_or_else(|e| panic!("{e}"));
        Corpus {
            examples: examples
                .into_iter()
                .map(|e| CorpusEntry::new(e, None))
                .collect(),
        }
    })
}

/// Runs `job` on every item with `WORKERS` threads; results in item order.
pub fn parallel_map<T: Sync, R: Send>(items: &[T], job: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<R>>> = Mutex::new((0..items.len()).map(|_| None).collect());
    std::thread::scope(|scope| {
        for _ in 0..WORKERS.min(items.len().max(1)) {
            scope.spawn(|| loop {
                let index = next.fetch_add(1, Ordering::SeqCst);
                let Some(item) = items.get(index) else { break };
                let result = job(item);
                if let Ok(mut slots) = results.lock() {
                    slots[index] = Some(result);
                }
            });
        }
    });
    results
        .into_inner()
        .unwrap_or_default()
        .into_iter()
        .map(|r| r.expect("every item was processed"))
        .collect()
}

/// How one leg of one example ended.
#[derive(Debug, Clone)]
pub struct LegResult {
    pub name: String,
    pub mode: String,
    pub outcome: Result<f64, String>,
    /// Extra information shown in the table (dot-product test).
    pub note: String,
}

/// One leg of a mode test: differentiate, run, compare with finite
/// differences and (adjoints) with the tangent by the dot-product test.
pub fn check_leg(entry: &CorpusEntry, leg: &str) -> LegResult {
    let example = &entry.example;
    let (mode, _) = leg_mode(leg);
    let outcome = (|| {
        let fd = entry
            .finite_differences()
            .as_ref()
            .map_err(|e| format!("original program failed: {e}"))?;
        let ad = if mode == "f" {
            entry.tangent().clone()?
        } else {
            run_mode(example, leg, entry.size)?
        };
        let tangent = if mode == "rs" || mode == "rj" {
            entry.tangent().as_ref().ok()
        } else {
            None
        };
        compare_with_references(&example.name, &example.manifest, mode, fd, &ad, tangent)
    })();
    let (outcome, note) = match outcome {
        Ok((worst, note)) => (Ok(worst), note),
        Err(e) => (Err(e), String::new()),
    };
    LegResult {
        name: example.name.clone(),
        mode: leg.to_string(),
        outcome,
        note,
    }
}

/// Checks a leg's output: y against the original program (not in joint
/// mode, where y%v after the call is not specified), J against finite
/// differences, and for adjoints the dot-product test against `tangent`.
/// Returns the worst relative error and a note for the table.
pub fn compare_with_references(
    name: &str,
    m: &Manifest,
    mode: &str,
    fd: &DriverOutput,
    ad: &DriverOutput,
    tangent: Option<&DriverOutput>,
) -> Result<(f64, String), String> {
    if mode != "rj" {
        if ad.values.len() != m.ny {
            return Err(format!("driver printed {} values of y", ad.values.len()));
        }
        let y_norm = fd.values.iter().fold(0.0f64, |a, v| a.max(v.abs()));
        for (k, (a, f)) in ad.values.iter().zip(&fd.values).enumerate() {
            let err = relative(*a, *f, f.abs().max(1e-6 * (1.0 + y_norm)));
            if err > VALUE_TOLERANCE {
                return Err(format!(
                    "y({}) = {a:e} differs from the original program's {f:e}",
                    k + 1
                ));
            }
        }
    }
    let worst = worst_relative_error(&ad.jacobian, &fd.jacobian, &fd.values);
    if worst > m.tolerance {
        return Err(format!(
            "worst relative error {worst:.2e} against finite differences exceeds {:.0e}",
            m.tolerance
        ));
    }
    let note = if mode == "rs" || mode == "rj" {
        match tangent {
            Some(tangent) => dot_product_test(name, m, tangent, ad)?,
            None => "dot test skipped: tangent leg fails".to_string(),
        }
    } else {
        String::new()
    };
    Ok((worst, note))
}

/// Entries of Jacobian `computed` that differ from `reference` by more
/// than `tolerance` relative to the largest |entry| of the reference's
/// row (NaN always differs), and a line if the shapes differ: for
/// comparing two AD legs with each other, far tighter than against
/// finite differences.
pub fn differing_entries(
    computed: &[Vec<f64>],
    reference: &[Vec<f64>],
    tolerance: f64,
) -> Vec<String> {
    let mut out = Vec::new();
    for (k, (row, reference_row)) in computed.iter().zip(reference).enumerate() {
        let scale = reference_row
            .iter()
            .fold(0.0f64, |m, v| m.max(v.abs()))
            .max(1e-300);
        for (i, (a, b)) in row.iter().zip(reference_row).enumerate() {
            let diff = (a - b).abs();
            if diff.is_nan() || diff / scale > tolerance {
                out.push(format!(
                    "J({},{}) = {a:.16e} vs {b:.16e} (relative {:.1e})",
                    k + 1,
                    i + 1,
                    diff / scale
                ));
            }
        }
    }
    if computed.len() != reference.len()
        || computed
            .iter()
            .zip(reference)
            .any(|(a, b)| a.len() != b.len())
    {
        out.push("the Jacobians have different shapes".into());
    }
    out
}

/// ⟨ẏ, ȳ⟩ with ẏ = J·ẋ from the tangent leg against ⟨ẋ, x̄⟩ with x̄ = Jᵀ·ȳ
/// from the adjoint leg.
pub fn dot_product_test(
    name: &str,
    m: &Manifest,
    tangent: &DriverOutput,
    adjoint: &DriverOutput,
) -> Result<String, String> {
    let dirs = DotDirections::for_example(name, m.nx, m.ny);
    if tangent.dot.len() != m.ny || adjoint.dot.len() != m.nx {
        return Err("driver did not print the dot-product test vectors".into());
    }
    let lhs: Vec<f64> = tangent
        .dot
        .iter()
        .zip(&dirs.ybar)
        .map(|(a, b)| a * b)
        .collect();
    let rhs: Vec<f64> = dirs
        .xdot
        .iter()
        .zip(&adjoint.dot)
        .map(|(a, b)| a * b)
        .collect();
    let (sum_l, sum_r): (f64, f64) = (lhs.iter().sum(), rhs.iter().sum());
    let scale = lhs
        .iter()
        .map(|v| v.abs())
        .sum::<f64>()
        .max(rhs.iter().map(|v| v.abs()).sum::<f64>());
    let err = relative(sum_l, sum_r, scale);
    if err > DOT_TOLERANCE {
        return Err(format!(
            "dot-product test: <J xdot, ybar> = {sum_l:e} but <xdot, J^T ybar> = {sum_r:e} (relative {err:.1e})"
        ));
    }
    Ok(format!("dot {err:.1e}"))
}

/// Tallies results against EXPECTED_FAILURES, prints the table to stderr
/// (uncaptured, so it shows on success too) and returns the complaints.
pub fn report(title: &str, results: &[LegResult]) -> Vec<String> {
    let expected = expected_failures();
    let mut table = format!(
        "\n== {title}\n{:<28} {:<4} {:<8} {:>14}  detail\n",
        "example", "mode", "status", "worst-rel-err"
    );
    let (mut passed, mut failed, mut expected_count) = (0, 0, 0);
    let mut complaints = Vec::new();
    for r in results {
        let listed = expected.get(&(r.name.clone(), r.mode.clone()));
        let (status, err, detail) = match (&r.outcome, listed) {
            (Ok(worst), None) => {
                passed += 1;
                ("pass", format!("{worst:.2e}"), r.note.clone())
            }
            (Ok(worst), Some(_)) => {
                passed += 1;
                complaints.push(format!(
                    "{} {} unexpectedly passes, remove it from EXPECTED_FAILURES",
                    r.name, r.mode
                ));
                (
                    "XPASS",
                    format!("{worst:.2e}"),
                    "UNEXPECTEDLY PASSES: remove from EXPECTED_FAILURES".to_string(),
                )
            }
            (Err(e), Some(reason)) if failure_matches_reason(e, reason) => {
                failed += 1;
                expected_count += 1;
                ("xfail", "-".to_string(), first_line(e))
            }
            (Err(e), Some(reason)) => {
                failed += 1;
                complaints.push(format!(
                    "{} {} fails, but not for the reason EXPECTED_FAILURES lists ({reason}): {e}",
                    r.name, r.mode
                ));
                ("FAIL", "-".to_string(), first_line(e))
            }
            (Err(e), None) => {
                failed += 1;
                complaints.push(format!("{} {} FAILED: {e}", r.name, r.mode));
                ("FAIL", "-".to_string(), first_line(e))
            }
        };
        table.push_str(&format!(
            "{:<28} {:<4} {:<8} {:>14}  {}\n",
            r.name, r.mode, status, err, detail
        ));
    }
    table.push_str(&format!(
        "{passed} passed, {failed} failed ({expected_count} of the failures expected, listed in tests/examples/EXPECTED_FAILURES)\n"
    ));
    let _ = std::io::stderr().write_all(table.as_bytes());
    complaints
}

/// Whether a leg's failure is the one EXPECTED_FAILURES lists for it: the
/// listed reason (without the `openad: named error: ` tag that marks a
/// refusal by name, and without the `…` of a shortened first line) must
/// occur in the failure's text, whitespace aside. A listed leg that starts
/// failing for another reason is a regression, not an expected failure.
pub fn failure_matches_reason(failure: &str, reason: &str) -> bool {
    let needle = reason
        .strip_prefix("openad: named error:")
        .unwrap_or(reason)
        .trim_end_matches('…');
    let squeeze = |t: &str| t.split_whitespace().collect::<Vec<_>>().join(" ");
    let needle = squeeze(needle);
    !needle.is_empty() && squeeze(failure).contains(&needle)
}

fn first_line(text: &str) -> String {
    let line = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    let mut short: String = line.chars().take(150).collect();
    if line.chars().count() > 150 {
        short.push('…');
    }
    short
}

/// The mode tests: every example that applies to `mode`, in parallel.
pub fn run_mode_test(leg: &str) {
    run_mode_test_on(leg, None);
}

/// Like [`run_mode_test`], on the examples named in `only` when given
/// (all of them when `OPENAD_ALL_EXAMPLES=1`).
pub fn run_mode_test_on(leg: &str, only: Option<&[&str]>) {
    let corpus = example_corpus();
    let everything = std::env::var("OPENAD_ALL_EXAMPLES").is_ok_and(|v| v == "1");
    let entries: Vec<&CorpusEntry> = corpus
        .examples
        .iter()
        .filter(|e| e.example.manifest.applies_to(leg_mode(leg).0))
        .filter(|e| everything || only.is_none_or(|names| names.contains(&e.example.name.as_str())))
        .collect();
    let results = parallel_map(&entries, |entry| check_leg(entry, leg));
    let complaints = report(&format!("mode {leg}"), &results);
    assert!(
        complaints.is_empty(),
        "{} problem(s):\n{}",
        complaints.len(),
        complaints.join("\n\n")
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_driver_output_and_ignores_other_lines() {
        let text = " x is 3\nOAD_Y      1  2.5000000000000000E+000\nOAD_J      1     2  1.0E-001\nOAD_J      1     1 -3.0E+000\nOAD_DOT      1  4.0E+000\n";
        let out = parse_driver_output(text, 2, 1).unwrap();
        assert_eq!(out.values, [2.5]);
        assert_eq!(out.jacobian, [vec![-3.0, 0.1]]);
        assert_eq!(out.dot, [4.0]);
        assert!(parse_driver_output("OAD_J 1 1 1.0\n", 2, 1).is_err());
    }

    #[test]
    fn relative_error_is_column_wise_with_a_floor() {
        let fd = vec![vec![100.0, 1e-12]];
        let good = vec![vec![100.0001, 0.0]];
        assert!(worst_relative_error(&good, &fd, &[1.0]) < 2e-6);
        let bad = vec![vec![100.0, 0.5]];
        assert!(worst_relative_error(&bad, &fd, &[1.0]) > 1.0);
        let nan = vec![vec![f64::NAN, 0.0]];
        assert!(worst_relative_error(&nan, &fd, &[1.0]).is_infinite());
    }

    #[test]
    fn bench_size_replaces_the_tagged_parameter_only() {
        assert_eq!(
            set_bench_size("  integer, parameter :: n = 1000 ! bench-size", 50),
            "  integer, parameter :: n = 50 ! bench-size"
        );
        assert_eq!(set_bench_size("  n = 1000", 50), "  n = 1000");
    }

    #[test]
    fn an_expected_failure_must_fail_for_its_listed_reason() {
        let refusal = "openad: head.f90:31:3: error: unsupported construct in joint adjoint mode (-m rj):\n  deallocate of the active array 'f'";
        let listed = "openad: named error: unsupported construct in joint adjoint mode (-m rj): deallocate of the active array 'f'";
        assert!(failure_matches_reason(refusal, listed));
        let shortened = "openad: head.f90:31:3: error: unsupported construct in joint…";
        assert!(failure_matches_reason(refusal, shortened));
        let runtime = "rj: driver failed: Fortran runtime error: Attempting to allocate already allocated variable 'f'";
        assert!(!failure_matches_reason(runtime, listed));
        assert!(!failure_matches_reason(refusal, "openad: named error:"));
    }
}
