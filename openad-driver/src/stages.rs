//! The three stage programs and their command lines (docs/ARCHITECTURE.md).

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use crate::cli::{ActiveLayout, Cli, Elimination, Form, Partials, Preaccumulation};
use xaif_schema::diagnostic::{Diagnostic, ErrorFormat, Kind};

pub const FRONT_END: &str = "fortran2xaif";
pub const BOOSTER: &str = "xaif-booster";
pub const BACK_END: &str = "xaif2fortran";

/// Where the stage programs live: `$OPENAD_BIN_DIR`, else next to `openad`.
pub fn stage_dir() -> Result<PathBuf, Diagnostic> {
    if let Some(dir) = std::env::var_os("OPENAD_BIN_DIR") {
        return Ok(PathBuf::from(dir));
    }
    let missing = |message: String| Diagnostic::of_program(Kind::InputOutput, "openad", message);
    let exe = std::env::current_exe()
        .map_err(|e| missing(format!("cannot locate the openad executable: {e}")))?;
    exe.parent()
        .map(Path::to_path_buf)
        .ok_or_else(|| missing(format!("cannot locate the directory of {}", exe.display())))
}

/// Path of a stage program in `dir`, checked to exist; a missing one is an
/// input/output error of openad (the installation is incomplete).
pub fn stage_program(dir: &Path, name: &str) -> Result<PathBuf, Diagnostic> {
    let path = dir.join(format!("{name}{}", std::env::consts::EXE_SUFFIX));
    if path.is_file() {
        Ok(path)
    } else {
        Err(Diagnostic::of_program(Kind::InputOutput, "openad", format!(
            "stage program `{name}` not found at {} (build the workspace with `cargo build --release`, or set OPENAD_BIN_DIR to the directory holding fortran2xaif, xaif-booster and xaif2fortran)",
            path.display()
        )))
    }
}

/// One stage invocation.
#[derive(Debug, Clone)]
pub struct StageCommand {
    pub program: PathBuf,
    pub args: Vec<OsString>,
}

/// Names of the intermediate files for program `stem` inside the work directory.
pub struct WorkFiles {
    pub xaif: PathBuf,
    pub canon: PathBuf,
    pub boosted: PathBuf,
    /// Source positions of the XAIF's statements and symbols: the booster
    /// and the back end report rejected input at the user's Fortran with it.
    pub locations: PathBuf,
    /// The attributes of the canonical source's declarations: the back end
    /// reads them instead of the declarations' Fortran text.
    pub declarations: PathBuf,
    /// The top-level routine as a driver calls it (`openad check` reads it).
    pub interface: PathBuf,
    /// Why each variable is active (`openad explore` reads it).
    pub activity: PathBuf,
    /// Where each derivative line comes from (`openad explore` reads it).
    pub line_map: PathBuf,
    pub out_dir: PathBuf,
}

impl WorkFiles {
    pub fn new(work: &Path, stem: &str) -> Self {
        WorkFiles {
            xaif: work.join(format!("{stem}.xaif")),
            canon: work.join(format!("{stem}.canon.f90")),
            boosted: work.join(format!("{stem}.xb.xaif")),
            locations: work.join(format!("{stem}.loc")),
            declarations: work.join(format!("{stem}.decl")),
            interface: work.join(format!("{stem}.iface")),
            activity: work.join(format!("{stem}.act")),
            line_map: work.join(format!("{stem}.dmap")),
            out_dir: work.join("out"),
        }
    }
}

/// The program name P: the stem of the first input file.
pub fn program_stem(files: &[PathBuf]) -> String {
    files
        .first()
        .and_then(|f| f.file_stem())
        .map(|s| s.to_string_lossy().into_owned())
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "program".to_string())
}

/// The three stage commands, in order, for the options in `cli`.
pub fn stage_commands(cli: &Cli, programs: [PathBuf; 3], work: &WorkFiles) -> Vec<StageCommand> {
    let [front_end, booster, back_end] = programs;

    let mut front_args: Vec<OsString> = Vec::new();
    if let Some(form) = cli.form {
        front_args.push("--form".into());
        front_args.push(
            match form {
                Form::Fixed => "fixed",
                Form::Free => "free",
            }
            .into(),
        );
    }
    if cli.cpp {
        front_args.push("--cpp".into());
    }
    if cli.no_cpp {
        front_args.push("--no-cpp".into());
    }
    for define in &cli.define {
        front_args.push(format!("-D{define}").into());
    }
    for name in &cli.undefine {
        front_args.push(format!("-U{name}").into());
    }
    for dir in &cli.include_dir {
        front_args.push("-I".into());
        front_args.push(dir.clone().into());
    }
    if cli.default_real_8 {
        front_args.push("--default-real-8".into());
    }
    for file in &cli.black_box {
        front_args.push("--black-box".into());
        front_args.push(file.clone().into_os_string());
    }
    // Every stage prints its diagnostics in the format asked of openad.
    let error_format: Vec<OsString> = match cli.error_format {
        ErrorFormat::Human => Vec::new(),
        ErrorFormat::Json => vec!["--error-format".into(), "json".into()],
    };
    front_args.extend(error_format.iter().cloned());
    front_args.push("-o".into());
    front_args.push(work.xaif.clone().into());
    front_args.push("--canon".into());
    front_args.push(work.canon.clone().into());
    front_args.push("--locations".into());
    front_args.push(work.locations.clone().into());
    front_args.push("--declarations".into());
    front_args.push(work.declarations.clone().into());
    front_args.push("--interface".into());
    front_args.push(work.interface.clone().into());
    front_args.push("--activity".into());
    front_args.push(work.activity.clone().into());
    front_args.extend(cli.files.iter().map(|f| f.clone().into_os_string()));

    let mut booster_args: Vec<OsString> = vec!["-m".into(), cli.mode.booster_name().into()];
    if let Some(scope) = cli.preaccumulation {
        booster_args.push("--preaccumulation".into());
        booster_args.push(
            match scope {
                Preaccumulation::Statement => "statement",
                Preaccumulation::BasicBlock => "basic-block",
                Preaccumulation::Auto => "auto",
            }
            .into(),
        );
    }
    if let Some(how) = cli.partials {
        booster_args.push("--partials".into());
        booster_args.push(
            match how {
                Partials::Taped => "taped",
                Partials::Recomputed => "recomputed",
                Partials::Auto => "auto",
            }
            .into(),
        );
    }
    if let Some(kind) = cli.elimination {
        booster_args.push("--elimination".into());
        booster_args.push(
            match kind {
                Elimination::Vertex => "vertex",
                Elimination::Edge => "edge",
                Elimination::Face => "face",
                Elimination::Best => "best",
            }
            .into(),
        );
    }
    if let Some(chain) = &cli.heuristic {
        booster_args.push("--heuristic".into());
        booster_args.push(chain.into());
    }
    if cli.stats {
        booster_args.push("--stats".into());
    }
    if let Some(dir) = &cli.dot {
        booster_args.push("--dot".into());
        booster_args.push(dir.clone().into());
    }
    if let Some(catalogue) = &cli.intrinsics {
        booster_args.push("--intrinsics".into());
        booster_args.push(catalogue.clone().into());
    }
    booster_args.extend(error_format.iter().cloned());
    booster_args.push("--locations".into());
    booster_args.push(work.locations.clone().into());
    booster_args.push("-o".into());
    booster_args.push(work.boosted.clone().into());
    booster_args.push(work.xaif.clone().into());

    let mut back_args: Vec<OsString> = vec![
        "-m".into(),
        cli.mode.back_end_name().into(),
        "--canon".into(),
        work.canon.clone().into(),
        "--locations".into(),
        work.locations.clone().into(),
        "--declarations".into(),
        work.declarations.clone().into(),
        "--line-map".into(),
        work.line_map.clone().into(),
    ];
    back_args.extend(error_format.iter().cloned());
    if let Some(template) = &cli.template {
        back_args.push("--template".into());
        back_args.push(template.clone().into());
    }
    if let Some(layout) = cli.active_layout {
        back_args.push("--active-layout".into());
        back_args.push(
            match layout {
                ActiveLayout::Aos => "aos",
                ActiveLayout::Locals => "locals",
                ActiveLayout::Split => "split",
            }
            .into(),
        );
    }
    back_args.push("-o".into());
    back_args.push(work.out_dir.clone().into());
    back_args.push(work.boosted.clone().into());

    vec![
        StageCommand {
            program: front_end,
            args: front_args,
        },
        StageCommand {
            program: booster,
            args: booster_args,
        },
        StageCommand {
            program: back_end,
            args: back_args,
        },
    ]
}

/// A command as a line of shell, arguments quoted where needed; arguments
/// starting with `$T/` stay expandable.
pub fn shell_line(command: &StageCommand) -> String {
    std::iter::once(command.program.as_os_str())
        .chain(command.args.iter().map(OsString::as_os_str))
        .map(|arg| shell_quote(&arg.to_string_lossy()))
        .collect::<Vec<_>>()
        .join(" ")
}

fn shell_quote(word: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "-_./=:,+@%".contains(c);
    if let Some(rest) = word.strip_prefix("$T/") {
        if rest.chars().all(plain) {
            return format!("\"{word}\"");
        }
    }
    if !word.is_empty() && word.chars().all(plain) {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}
