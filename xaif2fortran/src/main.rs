//! `xaif2fortran -m f|fv|rs|rj --canon P.canon.f90 --declarations P.decl [--locations P.loc] [--line-map P.dmap] [--template FILE] [--active-layout aos|locals|split] -o DIR P.xb.xaif`

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;

use xaif2fortran::active_layout::ActiveLayout;
use xaif2fortran::{run, Mode, Options};
use xaif_schema::diagnostic::{ErrorFormat, Kind};

/// Unparses transformed XAIF into differentiated Fortran.
#[derive(Parser, Debug)]
#[command(name = "xaif2fortran", version)]
struct Cli {
    /// f (tangent), fv (vector tangent), rs (adjoint split), rj (adjoint joint)
    #[arg(short = 'm', long = "mode", value_parser = parse_mode)]
    mode: Mode,
    /// The canonical source written by fortran2xaif.
    #[arg(long = "canon")]
    canon: PathBuf,
    /// Subroutine template for the adjoint modes (default: built in).
    #[arg(long = "template")]
    template: Option<PathBuf>,
    /// The front end's source locations: errors then name the Fortran sources.
    #[arg(long = "locations")]
    locations: Option<PathBuf>,
    /// The canonical source's declarations, unit headers, `use` and
    /// `common` statements (written by `fortran2xaif --declarations`);
    /// every mode needs them.
    #[arg(long = "declarations")]
    declarations: Option<PathBuf>,
    /// Also write where each line of the derivative program comes from
    /// (statement or canonical line; read by `openad explore`).
    #[arg(long = "line-map")]
    line_map: Option<PathBuf>,
    /// Output directory.
    #[arg(short = 'o', long = "output-dir")]
    output_dir: PathBuf,
    /// How diagnostics are printed on stderr: for people, or one JSON object
    /// per line with the diagnostic's kind.
    #[arg(long = "error-format", value_enum, default_value = "human")]
    error_format: ErrorFormat,
    /// Active local arrays: two real(8) arrays (values, derivatives) where
    /// nothing outside the routine sees them (split, the default), or
    /// type(active) everywhere (aos).
    #[arg(long = "active-layout", value_parser = parse_layout, default_value = "split")]
    active_layout: ActiveLayout,
    /// The transformed XAIF (booster output).
    xaif: PathBuf,
}

/// A value of `-m` or `--active-layout` that names nothing (clap reports
/// it as a usage error, exit 2).
#[derive(Debug, thiserror::Error)]
#[error("unknown {what} '{value}' (expected {expected})")]
struct UnknownValue {
    what: &'static str,
    value: String,
    expected: &'static str,
}

fn parse_mode(s: &str) -> Result<Mode, UnknownValue> {
    Mode::from_name(s).ok_or_else(|| UnknownValue {
        what: "mode",
        value: s.to_string(),
        expected: "f, fv, rs or rj",
    })
}

fn parse_layout(s: &str) -> Result<ActiveLayout, UnknownValue> {
    ActiveLayout::from_name(s).ok_or_else(|| UnknownValue {
        what: "layout",
        value: s.to_string(),
        expected: "aos, locals or split",
    })
}

fn main() -> ExitCode {
    // clap exits with status 2 on usage errors.
    let cli = Cli::parse();
    let error_format = cli.error_format;
    let opts = Options {
        mode: cli.mode,
        canon: cli.canon,
        template: cli.template,
        out_dir: cli.output_dir,
        xaif: cli.xaif,
        locations: cli.locations,
        declarations: cli.declarations,
        line_map: cli.line_map,
        layout: cli.active_layout,
    };
    match run(&opts) {
        Ok(_) => ExitCode::SUCCESS,
        Err(d) => {
            eprint!("{}", error_format.format(&d));
            // Usage errors exit with 2, as clap's own.
            ExitCode::from(if d.kind == Kind::Usage { 2 } else { 1 })
        }
    }
}
