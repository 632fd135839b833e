//! `openad explore -o DIR`: what did the tool do to my code? Runs the
//! stages (the requested mode for the derivative code, and tangent mode
//! with the booster's graphs and statistics for the eliminations), lays
//! the graphs out with Graphviz (`dot -Tsvg`) and writes a static HTML
//! report, `DIR/index.html`, that works from `file://`: the user's source,
//! the canonical source and the derivative code side by side, linked by
//! statement; the call graph and the control flow graphs; each flattened
//! basic block's computational graph and elimination counts; why each
//! variable is active or passive.

mod html;

use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};

use clap::Parser;

use crate::cli::{Cli, Mode};
use crate::stages::{self, StageCommand, WorkFiles};
use xaif_schema::diagnostic::{cli_error_message, Diagnostic, ErrorFormat, Kind};

const HELP: &str = "\
Write an HTML report of what openad does to a program.

Usage: openad explore -o DIR [-m MODE] [openad options] FILE...

Writes DIR/index.html (open it in a browser; no server needed): the source,
the canonical source and the derivative code (mode MODE, default f) side by
side, linked by statement; the call graph and control flow graphs; every
flattened basic block's computational graph with the multiplications of
the elimination sequence chosen against the proven optimum (small graphs);
and for every variable whether it is active and why. Graphs are laid out
by Graphviz (`dot`, Debian package graphviz).

Exit status: 0 written, 1 the program was rejected or a tool is missing,
2 usage error.";

struct ExploreOptions {
    output: PathBuf,
    mode: Mode,
    rest: Vec<OsString>,
}

/// The program name of explore's own diagnostics.
const PROGRAM: &str = "openad explore";

fn fatal(kind: Kind, message: impl Into<String>) -> Diagnostic {
    Diagnostic::of_program(kind, PROGRAM, message)
}

/// Why explore stopped.
enum Stop {
    /// Its own error, to print.
    Fatal(Diagnostic),
    /// A stage rejected the program and printed its diagnostics.
    Rejected(String),
}

impl From<Diagnostic> for Stop {
    fn from(d: Diagnostic) -> Self {
        Stop::Fatal(d)
    }
}

/// A file of the run that explore cannot read or write.
fn io_error(path: &Path, e: std::io::Error) -> Stop {
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    Stop::Fatal(fatal(Kind::InputOutput, format!("cannot use {name}: {e}")))
}

/// Entry point: `args` are the words after `openad explore`.
pub fn main(args: Vec<OsString>) -> ExitCode {
    let error_format = ErrorFormat::from_args(&args);
    let usage = |message: &str| {
        error_format.print(&Diagnostic::usage(PROGRAM, message));
        if error_format == ErrorFormat::Human {
            eprintln!("\nFor more information, try 'openad explore --help'.");
        }
        ExitCode::from(2)
    };
    let mut output = None;
    let mut mode = Mode::Tangent;
    let mut rest = Vec::new();
    let mut it = args.into_iter();
    while let Some(arg) = it.next() {
        let text = arg.to_string_lossy().into_owned();
        match text.as_str() {
            "-h" | "--help" => {
                println!("{HELP}");
                return ExitCode::SUCCESS;
            }
            "-o" | "--output-dir" => match it.next() {
                Some(v) => output = Some(PathBuf::from(v)),
                None => return usage("-o needs a directory"),
            },
            "-m" | "--mode" => {
                mode = match it
                    .next()
                    .map(|v| v.to_string_lossy().into_owned())
                    .as_deref()
                {
                    Some("f") => Mode::Tangent,
                    Some("fv") => Mode::Vector,
                    Some("rs") => Mode::Split,
                    Some("rj") => Mode::Joint,
                    other => return usage(&format!("-m needs f, fv, rs or rj, not {other:?}")),
                }
            }
            "-n" | "--dry-run" | "-k" | "--keep" | "--stats" | "--dot" => {
                return usage(&format!("{text} is not an option of openad explore"))
            }
            _ => rest.push(arg),
        }
    }
    let Some(output) = output else {
        return usage("-o DIR is required (the report goes to DIR/index.html)");
    };
    match run(&ExploreOptions { output, mode, rest }) {
        Ok(()) => ExitCode::SUCCESS,
        Err(Stop::Fatal(d)) if d.kind == Kind::Usage => usage(&d.message),
        Err(Stop::Fatal(d)) => {
            error_format.print(&d);
            ExitCode::from(1)
        }
        Err(Stop::Rejected(stage)) => {
            // In JSON the stage's diagnostics are the whole report.
            if error_format == ErrorFormat::Human {
                eprintln!("openad explore: {stage} rejected the program (diagnostics above); no report written");
            }
            ExitCode::from(1)
        }
    }
}

/// openad's command line for `mode`, built from the user's options.
fn mode_cli(o: &ExploreOptions, mode: Mode) -> Result<Cli, Diagnostic> {
    let mut words: Vec<OsString> = vec!["openad".into(), "-m".into(), mode.back_end_name().into()];
    words.extend(o.rest.iter().cloned());
    Cli::try_parse_from(words).map_err(|e| Diagnostic::usage(PROGRAM, cli_error_message(&e)))
}

/// Runs one set of stage commands; returns the booster's standard output
/// (its `--stats` table).
fn run_stages(commands: &[StageCommand]) -> Result<String, Stop> {
    let mut booster_out = String::new();
    for (k, c) in commands.iter().enumerate() {
        let out = Command::new(&c.program)
            .args(&c.args)
            .stdin(Stdio::null())
            .stderr(Stdio::inherit())
            .output()
            .map_err(|e| {
                fatal(
                    Kind::InputOutput,
                    format!("cannot run {}: {e}", c.program.display()),
                )
            })?;
        let stage = c
            .program
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        match out.status.code() {
            Some(0) => {}
            Some(_) => return Err(Stop::Rejected(stage)),
            None => {
                return Err(Stop::Fatal(fatal(
                    Kind::Internal,
                    format!("{stage} was terminated by a signal ({})", out.status),
                )))
            }
        }
        if k == 1 {
            booster_out = String::from_utf8_lossy(&out.stdout).into_owned();
        } else {
            print!("{}", String::from_utf8_lossy(&out.stdout));
        }
    }
    Ok(booster_out)
}

/// What the report shows, gathered from the stages' files.
pub struct Material {
    pub mode: Mode,
    pub user_files: Vec<(String, String)>,
    pub canon: String,
    pub derivative: String,
    pub derivative_name: String,
    pub locations: xaif_schema::source_map::SourceMap,
    /// The back end's origin of each derivative line.
    pub line_map: xaif_schema::line_map::LineMap,
    pub activity: xaif_schema::activity_report::ActivityReport,
    /// The tangent booster's `--stats` table.
    pub stats: String,
    /// (name, SVG) of the call graph and each control flow graph.
    pub program_graphs: Vec<(String, String)>,
    /// (file stem `cfg_block_stmt`, SVG, the booster's elimination report
    /// when the run was accumulated as a whole) of each computational graph.
    pub block_graphs: Vec<(String, String, Option<String>)>,
}

fn run(o: &ExploreOptions) -> Result<(), Stop> {
    require_graphviz()?;
    let base = mode_cli(o, o.mode)?;
    for f in &base.files {
        fs::read(f)
            .map_err(|e| Diagnostic::input_output(f, format!("cannot read input file: {e}")))?;
    }
    let bin_dir = stages::stage_dir()?;
    let programs = || -> Result<[PathBuf; 3], Diagnostic> {
        Ok([
            stages::stage_program(&bin_dir, stages::FRONT_END)?,
            stages::stage_program(&bin_dir, stages::BOOSTER)?,
            stages::stage_program(&bin_dir, stages::BACK_END)?,
        ])
    };
    let stem = stages::program_stem(&base.files);
    let work = tempfile::Builder::new()
        .prefix("openad-explore.")
        .tempdir()
        .map_err(|e| {
            fatal(
                Kind::InputOutput,
                format!("cannot create a temporary directory: {e}"),
            )
        })?;

    // The requested mode: the derivative code.
    let mode_work = WorkFiles::new(&work.path().join("mode"), &stem);
    fs::create_dir_all(work.path().join("mode")).map_err(|e| io_error(work.path(), e))?;
    run_stages(&stages::stage_commands(&base, programs()?, &mode_work))?;

    // Tangent mode with the booster's graphs and statistics.
    let graphs = work.path().join("graphs");
    fs::create_dir_all(&graphs).map_err(|e| io_error(&graphs, e))?;
    let mut tangent = mode_cli(o, Mode::Tangent)?;
    tangent.stats = true;
    tangent.dot = Some(graphs.clone());
    let tangent_work = WorkFiles::new(&work.path().join("tangent"), &stem);
    fs::create_dir_all(work.path().join("tangent")).map_err(|e| io_error(work.path(), e))?;
    let stats = run_stages(&stages::stage_commands(
        &tangent,
        programs()?,
        &tangent_work,
    ))?;

    let read = |p: &Path| fs::read_to_string(p).map_err(|e| io_error(p, e));
    // A stage's file that does not read back is a bug between the stages,
    // reported by file name (the scratch directory is removed).
    let unreadable = |p: &Path, e: xaif_schema::XaifError| {
        let name = p.file_name().unwrap_or_default().to_string_lossy();
        Stop::Fatal(fatal(Kind::Internal, format!("{name}: {}", e.message)))
    };
    let xaif_text = read(&mode_work.xaif)?;
    let xaif =
        xaif_schema::read::read_call_graph(&xaif_text, &mode_work.xaif.display().to_string())
            .map_err(|e| unreadable(&mode_work.xaif, e))?;
    let locations = xaif_schema::source_map::SourceMap::read_file(&mode_work.locations)
        .map_err(|e| unreadable(&mode_work.locations, e))?;
    let line_map = xaif_schema::line_map::LineMap::read_file(&mode_work.line_map)
        .map_err(|e| unreadable(&mode_work.line_map, e))?;
    let activity_path = mode_work.activity.display().to_string();
    let activity = xaif_schema::activity_report::ActivityReport::parse(
        &activity_path,
        &read(&mode_work.activity)?,
    )
    .map_err(|e| unreadable(&mode_work.activity, e))?;
    let derivative_name = format!("{stem}.oad.f90");
    let derivative = read(&mode_work.out_dir.join(&derivative_name))?;

    let mut program_graphs = vec![(
        "call graph".to_string(),
        svg(&xaif_schema::dot::call_graph_dot(&xaif))?,
    )];
    for v in &xaif.vertices {
        if let xaif_schema::CallGraphVertex::ControlFlowGraph(g) = v {
            program_graphs.push((
                g.symbol_id.to_string(),
                svg(&xaif_schema::dot::control_flow_dot(g))?,
            ));
        }
    }
    let mut dot_files: Vec<PathBuf> = fs::read_dir(&graphs)
        .map_err(|e| io_error(&graphs, e))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "dot"))
        .collect();
    dot_files.sort();
    let mut block_graphs = Vec::new();
    for p in dot_files {
        let stem = p
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let report = fs::read_to_string(p.with_extension("elimination")).ok();
        block_graphs.push((stem, svg(&read(&p)?)?, report));
    }
    let user_files = base
        .files
        .iter()
        .map(|f| Ok((f.display().to_string(), read(f)?)))
        .collect::<Result<Vec<_>, Stop>>()?;
    let material = Material {
        mode: o.mode,
        user_files,
        canon: read(&mode_work.canon)?,
        derivative,
        derivative_name,
        locations,
        line_map,
        activity,
        stats,
        program_graphs,
        block_graphs,
    };
    let page = html::page(&material);
    fs::create_dir_all(&o.output).map_err(|e| {
        fatal(
            Kind::InputOutput,
            format!("cannot create {}: {e}", o.output.display()),
        )
    })?;
    let target = o.output.join("index.html");
    let partial = o.output.join("index.html.openad-partial");
    fs::write(&partial, page)
        .and_then(|_| fs::rename(&partial, &target))
        .map_err(|e| {
            let _ = fs::remove_file(&partial);
            fatal(
                Kind::InputOutput,
                format!("cannot write {}: {e}", target.display()),
            )
        })?;
    println!("openad explore: wrote {}", target.display());
    Ok(())
}

fn require_graphviz() -> Result<(), Diagnostic> {
    match Command::new("dot").arg("-V").output() {
        Ok(o) if o.status.success() => Ok(()),
        _ => Err(fatal(Kind::InputOutput, "openad explore lays out graphs with Graphviz's `dot`, which is not installed: run `sudo apt-get install graphviz`")),
    }
}

/// Lays out a Graphviz graph as SVG (the XML prologue dropped, for inlining).
fn svg(dot: &str) -> Result<String, Diagnostic> {
    let failed = |why: String| fatal(Kind::InputOutput, format!("dot: {why}"));
    use std::io::Write as _;
    let mut child = Command::new("dot")
        .arg("-Tsvg")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| failed(format!("cannot run it: {e}")))?;
    child
        .stdin
        .take()
        .ok_or_else(|| failed("no standard input".into()))?
        .write_all(dot.as_bytes())
        .map_err(|e| failed(e.to_string()))?;
    let out = child
        .wait_with_output()
        .map_err(|e| failed(e.to_string()))?;
    if !out.status.success() {
        // The graphs are the tool's own: dot refusing one is a bug.
        return Err(fatal(
            Kind::Internal,
            format!(
                "dot failed: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            ),
        ));
    }
    let text = String::from_utf8_lossy(&out.stdout);
    Ok(text[text.find("<svg").unwrap_or(0)..].to_string())
}
