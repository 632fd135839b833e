//! xaif2fortran: the back end. Reads the transformed XAIF and the
//! canonical source, writes the differentiated Fortran program and the
//! runtime support library it needs. See docs/backend.md.

pub mod active_layout;
pub mod canon;
pub mod codegen;
pub mod commons;
pub mod components;
pub mod decl;
pub mod error;
pub mod expr;
pub mod fortran_text;
pub mod global_checkpoint;
pub mod inline;
pub mod interfaces;
pub mod line_origins;
pub mod markers;
pub mod module_access;
pub mod output;
pub mod plain_clones;
pub mod runtime;
pub mod split_interface;
pub mod state_names;
pub mod symbols;
pub mod taped_in_caller;
pub mod template;
pub mod unparse;
pub mod uses;

use std::path::{Path, PathBuf};

use xaif_schema::line_map::LineMap;
use xaif_schema::CallGraph;

pub use canon::CanonSource;
pub use error::{Diagnostic, XaifLocator};
use error::{Kind, Location};
pub use template::Template;

/// What to generate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// `-m f`: scalar tangent.
    Tangent,
    /// `-m fv`: vector tangent.
    VectorTangent,
    /// `-m rs`: split adjoint.
    AdjointSplit,
    /// `-m rj`: joint adjoint.
    AdjointJoint,
}

impl Mode {
    /// The mode for a `-m` value (short names and long aliases).
    pub fn from_name(name: &str) -> Option<Mode> {
        Some(match name {
            "f" | "tangent" | "forward" => Mode::Tangent,
            "fv" | "vector" | "vector-tangent" => Mode::VectorTangent,
            "rs" | "split" | "adjoint-split" | "reverse-split" => Mode::AdjointSplit,
            "rj" | "joint" | "adjoint-joint" | "reverse-joint" => Mode::AdjointJoint,
            _ => return None,
        })
    }
}

/// Everything one run needs.
#[derive(Debug, Clone)]
pub struct Options {
    pub mode: Mode,
    pub canon: PathBuf,
    pub template: Option<PathBuf>,
    pub out_dir: PathBuf,
    pub xaif: PathBuf,
    /// The front end's source locations (`fortran2xaif --locations`):
    /// rejected statements are then reported in the user's Fortran.
    pub locations: Option<PathBuf>,
    /// The front end's declaration attributes (`fortran2xaif
    /// --declarations`, `xaif_schema::declarations`): every mode reads
    /// whether a variable is a constant, a pointer, allocatable, `save`,
    /// optional, `intent(in)` or private, the units' headers, `use` and
    /// `common` statements from them, never from the Fortran text.
    /// Required unless the canonical source has no unit.
    pub declarations: Option<PathBuf>,
    /// Where to write the origin of each line of the derivative program
    /// (`P.dmap`, `xaif_schema::line_map`).
    pub line_map: Option<PathBuf>,
    /// Layout of active local arrays (`active_layout.rs`).
    pub layout: active_layout::ActiveLayout,
}

/// The stem of the output program: the canonical file name without
/// `.canon.f90` (or without its extension).
pub fn program_stem(canon: &Path) -> String {
    let name = canon
        .file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_else(|| "program".into());
    if let Some(stem) = name.strip_suffix(".canon.f90") {
        return stem.to_string();
    }
    match name.rfind('.') {
        Some(p) if p > 0 => name[..p].to_string(),
        _ => name,
    }
}

/// All output files in compile order: runtime modules, then the program;
/// and the origins of the program's lines.
pub fn generate(
    cg: &CallGraph,
    xaif: &XaifLocator,
    canon: &CanonSource,
    mode: Mode,
    template: Option<&Template>,
    stem: &str,
    layout: active_layout::ActiveLayout,
) -> Result<(Vec<(String, String)>, LineMap), Diagnostic> {
    let (program, line_map) = unparse::unparse_program(cg, xaif, canon, mode, template, layout)?;
    let mut files: Vec<(String, String)> = runtime::runtime_files(mode)
        .into_iter()
        .map(|(n, t)| (n.to_string(), t.to_string()))
        .collect();
    if canon.uses_mpi() {
        files.extend(
            runtime::oad_mpi_files(mode)
                .into_iter()
                .map(|(n, t)| (n.to_string(), t)),
        );
    }
    files.push((format!("{stem}.oad.f90"), program));
    let sources: String = files.iter().map(|(n, _)| format!("{n}\n")).collect();
    files.push(("SOURCES".into(), sources));
    Ok((files, line_map))
}

fn read_text(path: &Path, what: &str) -> Result<String, Diagnostic> {
    std::fs::read_to_string(path)
        .map_err(|e| Diagnostic::input_output(path, format!("cannot read {what}: {e}")))
}

/// Reads the inputs, generates, writes the outputs. Returns the files
/// written.
pub fn run(opts: &Options) -> Result<Vec<PathBuf>, Diagnostic> {
    let canon_name = opts.canon.display().to_string();
    let mut canon = CanonSource::parse(&canon_name, &read_text(&opts.canon, "canonical source")?)?;
    match &opts.declarations {
        Some(path) => {
            canon.declarations = xaif_schema::declarations::Declarations::read_file(path)
                .map_err(Diagnostic::from)?;
        }
        // Every mode reads the units' headers, `use` and `common`
        // statements and what the declarations say from it.
        None if !canon.units.is_empty() => {
            return Err(Diagnostic::of_kind(
                Kind::Usage,
                Location::start_of(&opts.canon),
                "the back end needs the canonical source's declarations, unit headers, `use` and `common` statements: give `--declarations P.decl` (written by `fortran2xaif --declarations` with the canonical source)",
            ));
        }
        None => {}
    }
    let template = match &opts.template {
        Some(p) => Some(Template::parse(
            &p.display().to_string(),
            &read_text(p, "template")?,
        )?),
        None => None,
    };
    let xaif_name = opts.xaif.display().to_string();
    let to_diag = Diagnostic::from;
    // Mapped and released as it is read: generation needs only the model.
    let cg = {
        let file = std::fs::File::open(&opts.xaif).map_err(|e| {
            Diagnostic::input_output(&opts.xaif, format!("cannot read XAIF file: {e}"))
        })?;
        xaif_schema::read::read_call_graph_mapped(&file, &xaif_name).map_err(to_diag)?
    };
    let mut locator = XaifLocator::from_file(&xaif_name, &opts.xaif);
    if let Some(path) = &opts.locations {
        let map = xaif_schema::source_map::SourceMap::read_file(path).map_err(to_diag)?;
        locator = locator.with_source_map(map);
    }
    let (files, line_map) = generate(
        &cg,
        &locator,
        &canon,
        opts.mode,
        template.as_ref(),
        &program_stem(&opts.canon),
        opts.layout,
    )
    .map_err(|d| locator.in_user_source(d, &canon_name))?;
    let mut written = output::write_files(&opts.out_dir, &files).map_err(|e| {
        Diagnostic::input_output(&opts.out_dir, format!("cannot write output: {e}"))
    })?;
    if let Some(path) = &opts.line_map {
        output::write_file(path, &line_map.to_text()).map_err(|e| {
            Diagnostic::input_output(path, format!("cannot write the line map: {e}"))
        })?;
        written.push(path.clone());
    }
    Ok(written)
}
