//! `fortran2xaif [--form fixed|free] [--cpp|--no-cpp] [-D NAME[=VALUE]] [-U NAME] [-I DIR]
//! [--default-real-8] [--black-box FILE]... -o P.xaif --canon P.canon.f90 [--locations P.loc] [--declarations P.decl] [--interface P.iface] [--activity P.act] FILE...`

use clap::Parser;
use fortran2xaif::diagnostics::{Diagnostic, ErrorFormat, Kind, Location};
use fortran2xaif::pipeline;
use fortran2xaif::source::{Form, LoadOptions, PreprocessOptions, Preprocessing};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Fortran front end: writes the XAIF of the numerical core and the
/// canonical source the back end rebuilds from.
#[derive(Parser)]
#[command(name = "fortran2xaif", version)]
struct Cli {
    /// Source form of every input (default: from each file's extension).
    #[arg(long, value_name = "fixed|free")]
    form: Option<Form>,
    /// The XAIF file to write.
    #[arg(short = 'o', long = "output", value_name = "P.xaif")]
    output: PathBuf,
    /// The canonical source to write.
    #[arg(long, value_name = "P.canon.f90")]
    canon: PathBuf,
    /// Also write where the XAIF's statements and symbols are in the
    /// sources (read by xaif-booster and xaif2fortran `--locations`).
    #[arg(long, value_name = "P.loc")]
    locations: Option<PathBuf>,
    /// Also write the attributes of the canonical source's declarations
    /// (read by xaif2fortran `--declarations`).
    #[arg(long, value_name = "P.decl")]
    declarations: Option<PathBuf>,
    /// Also write the top-level routine's interface as a driver calls it
    /// (read by `openad check`).
    #[arg(long, value_name = "P.iface")]
    interface: Option<PathBuf>,
    /// Also write why each variable is active or passive (read by
    /// `openad explore`).
    #[arg(long, value_name = "P.act")]
    activity: Option<PathBuf>,
    /// Run the C preprocessor (`gfortran -E -cpp`) on every input (default:
    /// only on .F .F90 .FOR .fpp ... files, as gfortran does).
    #[arg(long, overrides_with = "no_cpp")]
    cpp: bool,
    /// Never run the C preprocessor; a `#` directive is then an error.
    #[arg(long = "no-cpp", overrides_with = "cpp")]
    no_cpp: bool,
    /// Preprocessor: define NAME (as 1) or NAME as VALUE.
    #[arg(short = 'D', value_name = "NAME[=VALUE]")]
    define: Vec<String>,
    /// Preprocessor: undefine NAME.
    #[arg(short = 'U', value_name = "NAME")]
    undefine: Vec<String>,
    /// Search DIR for `#include` and `include` files.
    #[arg(short = 'I', value_name = "DIR")]
    include_dir: Vec<PathBuf>,
    /// `real` without a kind means real(8), as with gfortran's
    /// -fdefault-real-8 -fdefault-double-8.
    #[arg(long = "default-real-8")]
    default_real_8: bool,
    /// Declarations of routines without source (black boxes: passive, or
    /// with tangent and adjoint routines you supply); may be repeated.
    #[arg(long = "black-box", value_name = "FILE")]
    black_box: Vec<PathBuf>,
    /// How diagnostics are printed on stderr: for people (with the source
    /// line), or one JSON object per line with the diagnostic's kind.
    #[arg(long = "error-format", value_enum, default_value = "human")]
    error_format: ErrorFormat,
    /// Fortran sources, one program, in compile order.
    #[arg(required = true, value_name = "FILE")]
    files: Vec<PathBuf>,
}

/// Writes through a temporary file in the same directory and a rename.
fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    let res = std::fs::write(&tmp, bytes).and_then(|_| std::fs::rename(&tmp, path));
    if res.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    res
}

/// The pipeline options the command line asks for; `OPENAD_GFORTRAN` names
/// the gfortran whose preprocessor runs.
fn options(cli: &Cli) -> pipeline::Options {
    let when = if cli.cpp {
        Preprocessing::Always
    } else if cli.no_cpp {
        Preprocessing::Never
    } else {
        Preprocessing::ByExtension
    };
    let mut preprocessor = PreprocessOptions {
        when,
        defines: cli.define.clone(),
        undefines: cli.undefine.clone(),
        include_dirs: cli.include_dir.clone(),
        ..PreprocessOptions::default()
    };
    if let Some(compiler) = std::env::var_os("OPENAD_GFORTRAN").filter(|c| !c.is_empty()) {
        preprocessor.compiler = PathBuf::from(compiler);
    }
    pipeline::Options {
        load: LoadOptions {
            form: cli.form,
            preprocessor,
        },
        default_real_8: cli.default_real_8,
        ..pipeline::Options::default()
    }
}

fn main() -> ExitCode {
    let words: Vec<_> = std::env::args_os().collect();
    let cli = match Cli::try_parse_from(&words) {
        Ok(cli) => cli,
        Err(e) => {
            let format = ErrorFormat::from_args(&words);
            let code = xaif_schema::diagnostic::report_cli_error(&e, "fortran2xaif", format);
            return ExitCode::from(code);
        }
    };
    let library = match fortran2xaif::black_box::Library::read(&cli.black_box) {
        Ok(l) => l,
        Err(d) => {
            eprint!("{}", cli.error_format.format(&d));
            return ExitCode::from(1);
        }
    };
    let mut options = options(&cli);
    options.black_boxes = library;
    let out = match pipeline::run_with(&cli.files, &options) {
        Ok(o) => o,
        Err(d) => {
            eprint!("{}", cli.error_format.format(&d));
            return ExitCode::from(1);
        }
    };
    for w in &out.warnings {
        eprint!("{}", cli.error_format.format(w));
    }
    // Streamed to the file: the text of a large model is as large as the model.
    if let Err(e) = xaif_schema::write::write_call_graph_file(&out.xaif, &cli.output) {
        let d = Diagnostic::of_kind(
            Kind::InputOutput,
            Location::start_of(&cli.output),
            format!("cannot write the XAIF: {e}"),
        );
        eprint!("{}", cli.error_format.format(&d));
        return ExitCode::from(1);
    }
    if let Err(e) = write_atomically(&cli.canon, out.canon.as_bytes()) {
        let _ = std::fs::remove_file(&cli.output);
        let d = Diagnostic::of_kind(
            Kind::InputOutput,
            Location::start_of(&cli.canon),
            format!("cannot write the canonical source: {e}"),
        );
        eprint!("{}", cli.error_format.format(&d));
        return ExitCode::from(1);
    }
    if let Some(path) = &cli.locations {
        if let Err(e) = write_atomically(path, out.locations.to_text().as_bytes()) {
            let _ = std::fs::remove_file(&cli.output);
            let _ = std::fs::remove_file(&cli.canon);
            let d = Diagnostic::of_kind(
                Kind::InputOutput,
                Location::start_of(path),
                format!("cannot write the source locations: {e}"),
            );
            eprint!("{}", cli.error_format.format(&d));
            return ExitCode::from(1);
        }
    }
    let side_files = [
        (
            cli.declarations.as_ref(),
            out.declarations.to_text(),
            "the declarations",
        ),
        (
            cli.interface.as_ref(),
            out.interface.to_string(),
            "the driver interface",
        ),
        (
            cli.activity.as_ref(),
            out.activity.to_string(),
            "the activity report",
        ),
    ];
    let mut written: Vec<&PathBuf> = [Some(&cli.output), Some(&cli.canon), cli.locations.as_ref()]
        .into_iter()
        .flatten()
        .collect();
    for (path, text, what) in side_files {
        let Some(path) = path else { continue };
        if let Err(e) = write_atomically(path, text.as_bytes()) {
            for w in written {
                let _ = std::fs::remove_file(w);
            }
            let d = Diagnostic::of_kind(
                Kind::InputOutput,
                Location::start_of(path),
                format!("cannot write {what}: {e}"),
            );
            eprint!("{}", cli.error_format.format(&d));
            return ExitCode::from(1);
        }
        written.push(path);
    }
    // Freeing millions of small allocations one by one just before the
    // process ends costs time and gives nothing back.
    std::mem::forget(out);
    ExitCode::SUCCESS
}
