//! `openad`: runs the front end, the booster and the back end as separate
//! processes in a temporary directory and copies the results into the
//! output directory only when every stage succeeded.

mod check;
mod cli;
mod explore;
mod measure;
mod stages;

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, ExitStatus};
use std::time::Instant;

use clap::Parser;

use cli::Cli;
use measure::{Progress, StageUsage};
use stages::{StageCommand, WorkFiles};
use xaif_schema::diagnostic::{report_cli_error, Diagnostic, ErrorFormat, Kind};

/// Why openad stopped (usage errors never get here: they are reported
/// while the command line is parsed).
enum Failure {
    /// Exit 1 with this diagnostic of openad's own.
    Fatal(Diagnostic),
    /// A stage already printed its diagnostics; only the exit status is
    /// left. `mode_independent`: the failure came before any stage that
    /// depends on the mode (unreadable input, the front end).
    StageFailed { code: u8, mode_independent: bool },
}

fn main() -> ExitCode {
    let mut args = std::env::args_os();
    match args.nth(1) {
        Some(a) if a == "check" => return check::main(args.collect()),
        Some(a) if a == "explore" => return explore::main(args.collect()),
        _ => {}
    }
    let words: Vec<_> = std::env::args_os().collect();
    let cli = match Cli::try_parse_from(&words) {
        Ok(cli) => cli,
        Err(e) => {
            let format = ErrorFormat::from_args(&words);
            return ExitCode::from(report_cli_error(&e, "openad", format));
        }
    };
    match run(&cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Fatal(d)) => {
            cli.error_format.print(&d);
            ExitCode::from(1)
        }
        Err(Failure::StageFailed { code, .. }) => ExitCode::from(code),
    }
}

/// Runs openad for `cli` as part of another command (`openad check`),
/// printing openad's own fatal error; whether every stage succeeded.
fn run_reporting(cli: &Cli) -> Reported {
    match run(cli) {
        Ok(()) => Reported::Done,
        Err(Failure::Fatal(d)) => {
            cli.error_format.print(&d);
            Reported::Failed
        }
        Err(Failure::StageFailed {
            mode_independent, ..
        }) => {
            if mode_independent {
                Reported::FailedInEveryMode
            } else {
                Reported::Failed
            }
        }
    }
}

/// How a run reported by `run_reporting` ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reported {
    Done,
    Failed,
    /// Failed before the mode mattered: another mode fails the same way.
    FailedInEveryMode,
}

/// A fatal error of openad itself (not of a stage), of kind `kind`.
fn fatal(kind: Kind, message: String) -> Failure {
    Failure::Fatal(Diagnostic::of_program(kind, "openad", message))
}

fn run(cli: &Cli) -> Result<(), Failure> {
    let start = Instant::now();
    let mut usages = Vec::new();
    let result = run_stages(cli, &mut usages);
    if cli.timings && !usages.is_empty() {
        eprint!("{}", measure::timings_report(&usages, start.elapsed()));
    }
    result
}

fn run_stages(cli: &Cli, usages: &mut Vec<StageUsage>) -> Result<(), Failure> {
    let stem = stages::program_stem(&cli.files);

    if cli.dry_run {
        print_dry_run(cli, &stem);
        return Ok(());
    }

    for file in &cli.files {
        // Reading the whole file also rejects directories and unreadable files.
        if let Err(e) = fs::read(file) {
            // Same diagnostic as the stages give for rejected input.
            let d = Diagnostic::input_output(file, format!("cannot read input file: {e}"));
            eprint!("{}", cli.error_format.format(&d));
            return Err(Failure::StageFailed {
                code: 1,
                mode_independent: true,
            });
        }
    }

    let bin_dir = stages::stage_dir().map_err(Failure::Fatal)?;
    let programs = [stages::FRONT_END, stages::BOOSTER, stages::BACK_END]
        .map(|name| stages::stage_program(&bin_dir, name));
    let [front_end, booster, back_end] = programs;
    let programs = [
        front_end.map_err(Failure::Fatal)?,
        booster.map_err(Failure::Fatal)?,
        back_end.map_err(Failure::Fatal)?,
    ];

    let work_dir = tempfile::Builder::new()
        .prefix("openad.")
        .tempdir()
        .map_err(|e| {
            fatal(
                Kind::InputOutput,
                format!("cannot create a temporary directory: {e}"),
            )
        })?;
    let work = WorkFiles::new(work_dir.path(), &stem);

    let outputs = [&work.xaif, &work.boosted, &work.out_dir.join("SOURCES")];
    let progress = Progress::new(outputs.len() as u64);
    for (command, output) in stages::stage_commands(cli, programs, &work)
        .iter()
        .zip(outputs)
    {
        let status = run_stage(command, cli.verbose, &progress, usages, work_dir.path());
        if !matches!(status, Ok(status) if status.success()) {
            // The bar goes before openad's own message.
            progress.finish();
            return Err(stage_failure(command, status?, cli.error_format));
        }
        progress.advance();
        if !output.exists() {
            // Named by its file name: the scratch directory is gone after the run.
            return Err(fatal(
                Kind::Internal,
                format!(
                    "{} reported success but did not write its output {}",
                    stage_name(command),
                    output.file_name().unwrap_or_default().to_string_lossy()
                ),
            ));
        }
    }

    let mut results = read_sources_list(&work.out_dir)?;
    results.push(PathBuf::from("SOURCES"));
    let mut copies: Vec<(PathBuf, PathBuf)> = results
        .iter()
        .map(|name| (work.out_dir.join(name), name.clone()))
        .collect();
    if cli.keep {
        for path in [
            &work.canon,
            &work.xaif,
            &work.boosted,
            &work.locations,
            &work.declarations,
            &work.interface,
            &work.activity,
            &work.line_map,
        ] {
            // The line map is optional (back ends run by hand may not
            // write it).
            if path == &work.line_map && !path.exists() {
                continue;
            }
            if let Some(name) = path.file_name() {
                copies.push((path.clone(), PathBuf::from(name)));
            }
        }
    }
    install(&copies, &cli.output_dir)
}

fn print_dry_run(cli: &Cli, stem: &str) {
    // The printed lines form a shell script that does what openad would do.
    let bin_dir = stages::stage_dir().unwrap_or_else(|_| PathBuf::from("."));
    let programs = [stages::FRONT_END, stages::BOOSTER, stages::BACK_END]
        .map(|name| bin_dir.join(format!("{name}{}", std::env::consts::EXE_SUFFIX)));
    let work = WorkFiles::new(Path::new("$T"), stem);
    println!("T=$(mktemp -d)");
    for command in stages::stage_commands(cli, programs, &work) {
        println!("{}", stages::shell_line(&command));
    }
    let dir = cli.output_dir.display();
    println!("mkdir -p '{dir}' && (cd \"$T/out\" && cp $(cat SOURCES) SOURCES \"$OLDPWD/{dir}/\")");
    if cli.keep {
        println!("cp \"$T/{stem}.canon.f90\" \"$T/{stem}.xaif\" \"$T/{stem}.xb.xaif\" \"$T/{stem}.loc\" \"$T/{stem}.decl\" \"$T/{stem}.iface\" \"$T/{stem}.act\" \"$T/{stem}.dmap\" '{dir}/'");
    }
    println!("rm -rf \"$T\"");
}

fn stage_name(command: &StageCommand) -> String {
    command
        .program
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Runs one stage, adding what it used to `usages`.
fn run_stage(
    command: &StageCommand,
    verbose: bool,
    progress: &Progress,
    usages: &mut Vec<StageUsage>,
    scratch: &Path,
) -> Result<ExitStatus, Failure> {
    if verbose {
        progress.println(&format!("openad: {}", stages::shell_line(command)));
    }
    let name = stage_name(command);
    progress.stage(&name);
    // The stage's diagnostics reach the user as they are (through the bar
    // when it shows), except that no path into the scratch directory,
    // removed at the end, survives in them.
    let (status, usage) = measure::run_measured(
        Command::new(&command.program).args(&command.args),
        &name,
        progress,
        Some(scratch),
    )
    .map_err(|e| {
        fatal(
            Kind::InputOutput,
            format!("cannot run {}: {e}", command.program.display()),
        )
    })?;
    usages.push(usage);
    Ok(status)
}

/// What a failed stage means for openad's exit status.
fn stage_failure(command: &StageCommand, status: ExitStatus, error_format: ErrorFormat) -> Failure {
    let name = stage_name(command);
    // The front end's command line does not depend on the mode.
    let mode_independent = name == stages::FRONT_END;
    match status.code() {
        // A stage usage error means an option openad passed through was refused.
        Some(2) => {
            // In JSON the stage's own usage diagnostic is the report.
            if error_format == ErrorFormat::Human {
                eprintln!("openad: {name} refused its command line");
            }
            Failure::StageFailed {
                code: 2,
                mode_independent,
            }
        }
        Some(code) => {
            // In JSON the stage's own diagnostics are the whole report.
            if error_format == ErrorFormat::Human {
                eprintln!("openad: {name} failed (exit status {code}); nothing written");
            }
            Failure::StageFailed {
                code: 1,
                mode_independent,
            }
        }
        None => fatal(
            Kind::Internal,
            format!("{name} was terminated by a signal ({status}); nothing written"),
        ),
    }
}

/// The back end's SOURCES file: one file name per line, relative to its directory.
fn read_sources_list(out_dir: &Path) -> Result<Vec<PathBuf>, Failure> {
    let path = out_dir.join("SOURCES");
    let text = fs::read_to_string(&path).map_err(|e| {
        fatal(
            Kind::Internal,
            format!("the back end did not write its SOURCES list: {e}"),
        )
    })?;
    let mut names = Vec::new();
    for line in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
        let name = PathBuf::from(line);
        if name.is_absolute() || name.components().any(|c| c.as_os_str() == "..") {
            return Err(fatal(Kind::Internal, format!(
                "the back end listed `{line}` in SOURCES, which is not a file inside its output directory"
            )));
        }
        names.push(name);
    }
    Ok(names)
}

/// Copies `(from, name)` pairs into `dir` all or nothing: on any error the
/// files already copied (and `dir`, if this call created it) are removed.
fn install(copies: &[(PathBuf, PathBuf)], dir: &Path) -> Result<(), Failure> {
    let created_dir = !dir.exists();
    let result = copy_all(copies, dir);
    if let Err((done, error)) = result {
        for name in done {
            let _ = fs::remove_file(dir.join(name));
        }
        if created_dir {
            let _ = fs::remove_dir_all(dir);
        }
        return Err(fatal(
            Kind::InputOutput,
            format!("cannot write the results into {}: {error}", dir.display()),
        ));
    }
    Ok(())
}

fn copy_all<'a>(
    copies: &'a [(PathBuf, PathBuf)],
    dir: &Path,
) -> Result<(), (Vec<&'a Path>, io::Error)> {
    fs::create_dir_all(dir).map_err(|e| (Vec::new(), e))?;
    let mut done: Vec<&Path> = Vec::new();
    for (from, name) in copies {
        let target = dir.join(name);
        let step = || -> io::Result<()> {
            if let Some(parent) = target.parent() {
                fs::create_dir_all(parent)?;
            }
            // Copy next to the target, then rename: no half-written file is ever visible.
            let partial = target.with_extension("openad-partial");
            fs::copy(from, &partial)?;
            fs::rename(&partial, &target)
        };
        if let Err(e) = step() {
            return Err((done, e));
        }
        done.push(name);
    }
    Ok(())
}
