//! `openad check`: are these derivatives right? Differentiates the program
//! in each mode, writes the drivers itself from the top-level routine's
//! interface (`P.iface`, written by the front end), compiles and runs the
//! original and every mode with gfortran, and compares each mode with
//! central finite differences of the original (two step sizes, and
//! one-sided differences to detect a kink at x0) and the adjoints with the
//! tangent (dot-product test). Exit 0 when every mode agrees, 1 otherwise,
//! 2 on a usage error.

mod drivers;
mod report;
mod verdict;

use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use clap::Parser;
use xaif_schema::diagnostic::{Diagnostic, ErrorFormat, Kind, Location};
use xaif_schema::driver_interface::DriverInterface;

use crate::cli::{Cli, Mode};
use drivers::{Layout, Plan};
use report::{ModeReport, Verdict};
use verdict::{Directions, Printed, Reference};

const HELP: &str = "\
Check the derivatives of a program in every mode against finite differences.

Usage: openad check [-m MODES] [--x0 V1,V2,...|--x0-file FILE] [--seed N]
                    [--json FILE] [--tolerance T] [--fd-step H] [--link ARG]...
                    [openad options] FILE...

Differentiates FILE... as `openad` would (all of openad's options apply),
writes driver programs for the routine holding the INDEPENDENT/DEPENDENT
pragmas, compiles everything with gfortran, and compares:
  each mode's Jacobian (or, for many variables, random projections of it)
  with central finite differences of the original program, taken with two
  steps (h and 100 h) and one-sided, so that a kink or jump at x0 is
  reported instead of blamed on a mode; the adjoint modes also with the
  tangent (dot-product test), and y of each mode with the original's.

Options:
  -m MODES          modes to check, comma separated (default f,fv,rs,rj)
  --x0 VALUES       the input point: nx numbers, comma or space separated
  --x0-file FILE    the input point from a file (numbers separated by blanks)
  --seed N          seed of the random x0 (in [0.5, 1.5]) and directions (default 1)
  --json FILE       also write the results as JSON
  --tolerance T     relative error allowed against finite differences (default 1e-5)
  --fd-step H       relative finite-difference step (default 1e-6)
  --link ARG        pass ARG to every gfortran link (a source file of routines
                    without source and their derivatives, -llapack, ...); repeatable

Exit status: 0 every mode agrees, 1 a mode disagrees or cannot be checked,
2 usage error.";

/// The options of `openad check` itself; everything else is openad's.
struct CheckOptions {
    modes: Vec<Mode>,
    x0: Option<Vec<f64>>,
    seed: u64,
    json: Option<PathBuf>,
    tolerance: f64,
    fd_step: f64,
    link: Vec<String>,
    /// openad's own options and the files.
    rest: Vec<OsString>,
    /// How openad check and the stages print diagnostics.
    error_format: ErrorFormat,
}

/// The program name of check's own diagnostics.
const PROGRAM: &str = "openad check";

fn usage(message: impl Into<String>) -> Diagnostic {
    Diagnostic::usage(PROGRAM, message)
}

fn fatal(kind: Kind, message: impl Into<String>) -> Diagnostic {
    Diagnostic::of_program(kind, PROGRAM, message)
}

/// Prints `d` and gives the exit status: 2 for a usage error, else 1.
fn report(d: &Diagnostic, format: ErrorFormat) -> ExitCode {
    format.print(d);
    if d.kind != Kind::Usage {
        return ExitCode::from(1);
    }
    if format == ErrorFormat::Human {
        eprintln!("\nFor more information, try 'openad check --help'.");
    }
    ExitCode::from(2)
}

/// Entry point: `args` are the words after `openad check`.
pub fn main(args: Vec<OsString>) -> ExitCode {
    let format = ErrorFormat::from_args(&args);
    let options = match parse_options(args) {
        Ok(Some(o)) => o,
        Ok(None) => {
            println!("{HELP}");
            return ExitCode::SUCCESS;
        }
        Err(d) => return report(&d, format),
    };
    match run(&options) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(d) => report(&d, format),
    }
}

fn parse_options(args: Vec<OsString>) -> Result<Option<CheckOptions>, Diagnostic> {
    let mut o = CheckOptions {
        modes: vec![Mode::Tangent, Mode::Vector, Mode::Split, Mode::Joint],
        x0: None,
        seed: 1,
        json: None,
        tolerance: verdict::FD_TOLERANCE,
        fd_step: 1e-6,
        link: Vec::new(),
        rest: Vec::new(),
        error_format: ErrorFormat::from_args(&args),
    };
    let mut x0_file = None;
    let mut it = args.into_iter();
    while let Some(arg) = it.next() {
        let text = arg.to_string_lossy().into_owned();
        let mut value = |name: &str| -> Result<String, Diagnostic> {
            it.next()
                .map(|v| v.to_string_lossy().into_owned())
                .ok_or_else(|| usage(format!("{name} needs a value")))
        };
        match text.as_str() {
            "-h" | "--help" => return Ok(None),
            "-m" | "--modes" | "--mode" => {
                o.modes = value("-m")?
                    .split(',')
                    .map(|m| match m.trim() {
                        "f" | "tangent" => Ok(Mode::Tangent),
                        "fv" | "vector" => Ok(Mode::Vector),
                        "rs" | "split" => Ok(Mode::Split),
                        "rj" | "joint" => Ok(Mode::Joint),
                        other => Err(usage(format!("unknown mode `{other}` (f, fv, rs, rj)"))),
                    })
                    .collect::<Result<_, _>>()?
            }
            "--x0" => o.x0 = Some(numbers(&value("--x0")?).map_err(|e| usage(e.to_string()))?),
            "--x0-file" => x0_file = Some(PathBuf::from(value("--x0-file")?)),
            "--seed" => {
                o.seed = value("--seed")?
                    .parse()
                    .map_err(|_| usage("--seed needs a non-negative integer"))?
            }
            "--json" => o.json = Some(PathBuf::from(value("--json")?)),
            "--tolerance" => {
                o.tolerance = value("--tolerance")?
                    .parse()
                    .map_err(|_| usage("--tolerance needs a number"))?
            }
            "--fd-step" => {
                o.fd_step = value("--fd-step")?
                    .parse()
                    .map_err(|_| usage("--fd-step needs a number"))?
            }
            "--link" => {
                // gfortran runs in a build directory: files become absolute.
                let v = value("--link")?;
                o.link.push(match fs::canonicalize(&v) {
                    Ok(path) if !v.starts_with('-') => path.display().to_string(),
                    _ => v,
                })
            }
            "-o" | "--output-dir" | "-n" | "--dry-run" | "-k" | "--keep" => {
                return Err(usage(format!("{text} is not an option of openad check (it writes only into a temporary directory)")))
            }
            _ => o.rest.push(arg),
        }
    }
    if let Some(f) = x0_file {
        if o.x0.is_some() {
            return Err(usage("give --x0 or --x0-file, not both"));
        }
        let text = fs::read_to_string(&f).map_err(|e| {
            Diagnostic::input_output(&f, format!("cannot read the input point: {e}"))
        })?;
        o.x0 = Some(
            numbers(&text)
                .map_err(|e| Diagnostic::syntax(Location::start_of(&f), e.to_string()))?,
        );
    }
    if o.modes.is_empty() {
        return Err(usage("-m names no mode"));
    }
    Ok(Some(o))
}

/// A word of an input point that is not a number.
#[derive(Debug, thiserror::Error)]
#[error("`{0}` is not a number")]
struct NotANumber(String);

fn numbers(text: &str) -> Result<Vec<f64>, NotANumber> {
    text.split(|c: char| c == ',' || c.is_whitespace())
        .filter(|w| !w.is_empty())
        .map(|w| {
            w.replace(['d', 'D'], "e")
                .parse::<f64>()
                .map_err(|_| NotANumber(w.to_string()))
        })
        .collect()
}

/// openad's command line for one mode, built from the user's options.
fn mode_cli(o: &CheckOptions, mode: Mode, dir: &Path) -> Result<Cli, Diagnostic> {
    let mut words: Vec<OsString> = vec![
        "openad".into(),
        "-m".into(),
        mode.back_end_name().into(),
        "-o".into(),
        dir.as_os_str().to_owned(),
        "-k".into(),
    ];
    words.extend(o.rest.iter().cloned());
    Cli::try_parse_from(words).map_err(|e| usage(xaif_schema::diagnostic::cli_error_message(&e)))
}

/// What cannot be driven, as a named error; `None` when the interface can be.
fn not_drivable(iface: &DriverInterface) -> Option<String> {
    let routine = &iface.routine;
    for v in iface.arguments.iter().chain(&iface.globals) {
        let what = match &v.module {
            Some(m) => format!("module variable '{}' of '{m}'", v.name),
            None => format!("argument '{}' of '{routine}'", v.name),
        };
        if v.role == xaif_schema::driver_interface::Role::Passive {
            return Some(format!(
                "cannot drive '{routine}': its {what} ({}) is neither INDEPENDENT nor DEPENDENT, so the driver would have to choose its value; call '{routine}' from a routine that sets it and put the pragmas there",
                v.type_name
            ));
        }
        if v.type_name != "real(8)" {
            return Some(format!(
                "cannot drive '{routine}': its {what} is {}; openad check drives real(8) independents and dependents (finite differences in lower precision prove nothing)",
                v.type_name
            ));
        }
        if v.size().is_none() {
            return Some(format!(
                "cannot drive '{routine}': the extents of its {what} are not constants (assumed shape, allocatable or sized by another argument); declare them with constants or parameters in a routine that calls '{routine}'"
            ));
        }
    }
    None
}

/// A deterministic generator (PCG-style LCG) for x0 and directions.
struct Random(u64);

impl Random {
    fn unit(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        // Multiples of 2^-20 print and read back exactly.
        (((self.0 >> 11) as f64 / (1u64 << 53) as f64) * 1_048_576.0).round() / 1_048_576.0
    }
    fn vector(&mut self, n: usize, lo: f64, hi: f64) -> Vec<f64> {
        (0..n).map(|_| lo + (hi - lo) * self.unit()).collect()
    }
}

/// Unit vectors when the Jacobian is small enough to print entry by entry,
/// else three random projections each way.
const FULL_JACOBIAN_UP_TO: usize = 40;

fn run(o: &CheckOptions) -> Result<bool, Diagnostic> {
    let io = |e: std::io::Error| fatal(Kind::InputOutput, format!("in the scratch directory: {e}"));
    let work = tempfile::Builder::new()
        .prefix("openad-check.")
        .tempdir()
        .map_err(|e| {
            fatal(
                Kind::InputOutput,
                format!("cannot create a temporary directory: {e}"),
            )
        })?;
    let base = mode_cli(o, o.modes[0], &work.path().join("none"))?;
    let stem = crate::stages::program_stem(&base.files);

    // Differentiate in every mode (diagnostics reach the user as they
    // are, once: a front-end refusal would be the same in every mode).
    let mut built: Vec<(Mode, Option<PathBuf>)> = Vec::new();
    for &mode in &o.modes {
        let dir = work.path().join(mode.back_end_name());
        let cli = mode_cli(o, mode, &dir)?;
        match crate::run_reporting(&cli) {
            crate::Reported::Done => built.push((mode, Some(dir))),
            crate::Reported::Failed => built.push((mode, None)),
            crate::Reported::FailedInEveryMode => {
                built.extend(o.modes[built.len()..].iter().map(|&m| (m, None)));
                break;
            }
        }
    }
    let Some(first) = built.iter().find_map(|(_, d)| d.clone()) else {
        // The stages' diagnostics above are the report (in JSON, all of it).
        if o.error_format == ErrorFormat::Human {
            eprintln!("openad check: the program could not be differentiated in any mode (see the diagnostics above)");
        }
        return Ok(false);
    };
    if calls_mpi(&first) {
        return Err(fatal(Kind::Unsupported, MPI_REFUSAL));
    }
    // The interface file is named by its file name only: the scratch
    // directory is gone when the user reads the message.
    let iface_name = format!("{stem}.iface");
    let iface_path = first.join(&iface_name);
    let text = fs::read_to_string(&iface_path).map_err(|e| {
        fatal(
            Kind::Internal,
            format!("the front end wrote no driver interface {iface_name}: {e}"),
        )
    })?;
    let iface = DriverInterface::parse(&iface_name, &text).map_err(|e| {
        fatal(
            Kind::Internal,
            format!("reading the driver interface: {}", e.message),
        )
    })?;
    if let Some(why) = not_drivable(&iface) {
        return Err(fatal(Kind::Unsupported, why));
    }
    let layout = Layout::new(&iface);
    let (nx, ny) = (layout.nx, layout.ny);
    if nx == 0 || ny == 0 {
        return Err(fatal(
            Kind::Semantic,
            format!(
                "'{}' has no {} to check",
                iface.routine,
                if nx == 0 { "independent" } else { "dependent" }
            ),
        ));
    }
    let mut random = Random(o.seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ 0x5851_f42d);
    let x0 = match &o.x0 {
        Some(x0) if x0.len() != nx => {
            return Err(usage(format!(
                "--x0 gives {} values, '{}' has {nx} independent values",
                x0.len(),
                iface.routine
            )))
        }
        Some(x0) => x0.clone(),
        None => random.vector(nx, 0.5, 1.5),
    };
    let unit = nx <= FULL_JACOBIAN_UP_TO && ny <= FULL_JACOBIAN_UP_TO;
    let (xdots, ybars) = if unit {
        (identity(nx), identity(ny))
    } else {
        (
            (0..3).map(|_| random.vector(nx, -1.0, 1.0)).collect(),
            (0..3).map(|_| random.vector(ny, -1.0, 1.0)).collect(),
        )
    };
    let plan = Plan {
        x0,
        xdots,
        ybars,
        step: o.fd_step,
    };
    let directions = Directions {
        xdots: &plan.xdots,
        ybars: &plan.ybars,
        unit,
    };

    // The original program: values and finite differences.
    let orig_dir = work.path().join("orig");
    fs::create_dir_all(&orig_dir).map_err(io)?;
    let mut orig_sources: Vec<PathBuf> = base
        .files
        .iter()
        .map(|f| fs::canonicalize(f).unwrap_or_else(|_| f.clone()))
        .collect();
    fs::write(orig_dir.join("driver.f90"), layout.original(&plan)).map_err(io)?;
    orig_sources.push(orig_dir.join("driver.f90"));
    let orig_flags = original_flags(&base);
    let reference = compile_and_run(&orig_dir, &orig_sources, &orig_flags, &o.link)
        .map(|out| Reference::new(&Printed::parse(&out), plan.xdots.len(), ny))
        .map_err(|e| e.diagnostic("the original program", false))?;

    let mut reports = Vec::new();
    let mut tangent_run: Option<Printed> = None;
    for (mode, dir) in &built {
        let mut report = ModeReport::new(*mode);
        let Some(dir) = dir else {
            report.verdict =
                Verdict::Error("openad failed in this mode (diagnostics above)".into());
            reports.push(report);
            continue;
        };
        let driver = match mode {
            Mode::Tangent => layout.tangent(&plan),
            Mode::Vector => layout.vector(&plan),
            Mode::Split => layout.adjoint(&plan, true),
            Mode::Joint => layout.adjoint(&plan, false),
        };
        let result = derivative_run(dir, &driver, &o.link);
        let printed = match result {
            Ok(out) => Printed::parse(&out),
            Err(e) => {
                // In JSON the failure is also a diagnostic (the report
                // below is for people).
                if o.error_format == ErrorFormat::Json {
                    let what = format!("mode {}", mode.back_end_name());
                    o.error_format.print(&e.diagnostic(&what, true));
                }
                report.verdict = Verdict::Error(e.to_string());
                reports.push(report);
                continue;
            }
        };
        let tangent_mode = matches!(mode, Mode::Tangent | Mode::Vector);
        report.rows = if tangent_mode {
            verdict::tangent_rows(&printed, &reference, &directions)
        } else {
            verdict::adjoint_rows(&printed, &reference, &directions)
        };
        if *mode != Mode::Joint {
            report.value_error = Some(verdict::value_error(&printed, &reference));
        }
        if !tangent_mode {
            if let Some(t) = &tangent_run {
                report.dot_error = Some(verdict::dot_product_error(t, &printed, &directions, ny));
            }
        }
        report.judge(&reference, o.tolerance);
        // The adjoints' dot-product test uses the first tangent that passed.
        if tangent_mode && tangent_run.is_none() && report.verdict == Verdict::Pass {
            tangent_run = Some(printed);
        }
        reports.push(report);
    }
    let summary = report::Summary {
        routine: iface.routine.clone(),
        nx,
        ny,
        x0: plan.x0.clone(),
        unit,
        reference_problem: reference.unusable.clone(),
    };
    report::print(&summary, &reports);
    if let Some(path) = &o.json {
        report::write_json(path, &summary, &reports).map_err(|e| {
            Diagnostic::input_output(path, format!("cannot write the JSON report: {e}"))
        })?;
    }
    Ok(reference.unusable.is_none() && reports.iter().all(|r| r.verdict == Verdict::Pass))
}

/// Why an MPI program is refused: its drivers would have to run under
/// `mpirun`, share x among the ranks and reduce y, which the test harness
/// does (`tests/src/mpi.rs`) and `openad check` does not yet.
const MPI_REFUSAL: &str = "openad check cannot drive MPI programs yet (the program calls MPI): \
differentiate it with openad and run your own driver under mpirun (docs/user-guide.md, \
\"MPI programs\"), or add it to the test corpus with mpi_procs";

/// Whether the differentiated program in `dir` calls MPI: the back end
/// then lists its MPI runtime module in SOURCES.
fn calls_mpi(dir: &Path) -> bool {
    fs::read_to_string(dir.join("SOURCES"))
        .is_ok_and(|list| list.lines().any(|l| l.trim() == "OAD_mpi.f90"))
}

fn identity(n: usize) -> Vec<Vec<f64>> {
    (0..n)
        .map(|i| (0..n).map(|k| if k == i { 1.0 } else { 0.0 }).collect())
        .collect()
}

/// gfortran flags the original sources need: the user's preprocessor
/// options and default real kind.
fn original_flags(cli: &Cli) -> Vec<String> {
    let mut flags = Vec::new();
    if cli.cpp {
        flags.push("-cpp".to_string());
    }
    flags.extend(cli.define.iter().map(|d| format!("-D{d}")));
    flags.extend(cli.undefine.iter().map(|u| format!("-U{u}")));
    for dir in &cli.include_dir {
        let dir = fs::canonicalize(dir).unwrap_or_else(|_| dir.clone());
        flags.push(format!("-I{}", dir.display()));
    }
    if cli.default_real_8 {
        flags.push("-fdefault-real-8".to_string());
        flags.push("-fdefault-double-8".to_string());
    }
    flags
}

/// Compiles the differentiated sources listed in `dir/SOURCES` with
/// `driver` and runs it.
fn derivative_run(dir: &Path, driver: &str, link: &[String]) -> Result<String, RunError> {
    let list = fs::read_to_string(dir.join("SOURCES")).map_err(RunError::Scratch)?;
    let mut sources: Vec<PathBuf> = list
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(|l| dir.join(l))
        .collect();
    let build = dir.join("check");
    fs::create_dir_all(&build).map_err(RunError::Scratch)?;
    fs::write(build.join("driver.f90"), driver).map_err(RunError::Scratch)?;
    sources.push(build.join("driver.f90"));
    compile_and_run(&build, &sources, &[], link)
}

fn compile_and_run(
    build: &Path,
    sources: &[PathBuf],
    flags: &[String],
    link: &[String],
) -> Result<String, RunError> {
    let exe = build.join("driver");
    let out = Command::new("gfortran")
        .current_dir(build)
        .args(["-O1", "-ffree-line-length-none", "-J"])
        .arg(build)
        .args(flags)
        .args(sources)
        .args(link)
        .arg("-o")
        .arg(&exe)
        .output()
        .map_err(RunError::NoGfortran)?;
    if !out.status.success() {
        let text = String::from_utf8_lossy(&out.stderr);
        let first = text.lines().take(12).map(str::to_string).collect();
        return Err(RunError::Compile(first));
    }
    // Run where the user is: the program may read its data files there.
    let run = Command::new(&exe).output().map_err(RunError::CannotRun)?;
    if !run.status.success() {
        let text = String::from_utf8_lossy(&run.stderr);
        let first = text.lines().take(3).map(str::to_string).collect();
        return Err(RunError::Stopped {
            status: run.status,
            stderr: first,
        });
    }
    Ok(String::from_utf8_lossy(&run.stdout).into_owned())
}

/// Why compiling or running a driver failed.
#[derive(Debug, thiserror::Error)]
enum RunError {
    #[error("cannot run gfortran (install it: apt-get install gfortran): {0}")]
    NoGfortran(std::io::Error),
    /// gfortran's first lines of output.
    #[error("gfortran failed:\n{}", .0.join("\n"))]
    Compile(Vec<String>),
    #[error("cannot run the driver: {0}")]
    CannotRun(std::io::Error),
    /// The exit status and the first lines of the driver's stderr.
    #[error("the driver stopped with {status}: {}", .stderr.join("\n"))]
    Stopped {
        status: std::process::ExitStatus,
        stderr: Vec<String>,
    },
    #[error("in the scratch directory: {0}")]
    Scratch(std::io::Error),
}

impl RunError {
    /// The failure as openad check's diagnostic about `what` (the original
    /// program, or a mode's code when `generated`): gfortran or a driver
    /// failing on generated code is a bug of the tool; on the user's
    /// original program, a problem of that program or of the options.
    fn diagnostic(&self, what: &str, generated: bool) -> Diagnostic {
        let program_kind = if generated {
            Kind::Internal
        } else {
            Kind::Semantic
        };
        let (kind, message, notes): (Kind, String, &[String]) = match self {
            RunError::NoGfortran(_) | RunError::CannotRun(_) | RunError::Scratch(_) => {
                (Kind::InputOutput, format!("{what}: {self}"), &[])
            }
            RunError::Compile(lines) => (program_kind, format!("{what}: gfortran failed"), lines),
            RunError::Stopped {
                status,
                stderr: lines,
            } => (
                program_kind,
                format!("{what}: the driver stopped with {status}"),
                lines,
            ),
        };
        notes
            .iter()
            .fold(fatal(kind, message), |d, note| d.with_note(note.clone()))
    }
}
