//! The `openad` command line (fixed by CONTRACT.md).

use std::path::PathBuf;

use clap::{Parser, ValueEnum};

/// What kind of derivative code to generate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Mode {
    /// Tangent (forward) mode: `y%d = J·x%d`, one direction per call.
    #[value(name = "f", alias = "tangent")]
    Tangent,
    /// Vector tangent mode: `x(i)%d(j)` seeds direction j, all directions in one call.
    #[value(name = "fv", aliases = ["vector", "tangent-vector"])]
    Vector,
    /// Adjoint, split mode: a taping call, then an adjoint call (`x%d += Jᵀ·y%d`).
    #[value(name = "rs", aliases = ["adjoint-split", "split"])]
    Split,
    /// Adjoint, joint mode: one call tapes and runs the adjoint sweep.
    #[value(name = "rj", aliases = ["adjoint-joint", "joint"])]
    Joint,
}

impl Mode {
    /// The short name the back end takes with `-m`.
    pub fn back_end_name(self) -> &'static str {
        match self {
            Mode::Tangent => "f",
            Mode::Vector => "fv",
            Mode::Split => "rs",
            Mode::Joint => "rj",
        }
    }

    /// The transformation the booster runs with `-m`.
    pub fn booster_name(self) -> &'static str {
        match self {
            Mode::Tangent | Mode::Vector => "tangent",
            Mode::Split | Mode::Joint => "adjoint",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Form {
    Fixed,
    Free,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Preaccumulation {
    Statement,
    #[value(name = "basic-block")]
    BasicBlock,
    Auto,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ActiveLayout {
    Aos,
    Locals,
    Split,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Partials {
    Taped,
    Recomputed,
    Auto,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Elimination {
    Vertex,
    Edge,
    Face,
    Best,
}

const ABOUT: &str = "Differentiate Fortran programs by source transformation (OpenAD/F style).";

const LONG_ABOUT: &str = "\
Differentiate Fortran programs by source transformation (OpenAD/F style).

Mark the independent and dependent variables of the top-level routine with
`!$openad INDEPENDENT(x)` and `!$openad DEPENDENT(y)` (fixed form also
`c$openad ...`), then run openad on all source files of the program in
compile order. The differentiated sources, the runtime support modules
(OAD_active, OAD_rev, OAD_tape, ...) and a file SOURCES listing them in
compile order are written to the output directory. Build with

    gfortran $(sed \"s|^|DIR/|\" DIR/SOURCES) driver.f90

Modes (-m):
  f   (tangent)                   active variables become type(active) with
                                  x%v the value and x%d one derivative;
                                  call head(x, y) gives y%d = J·x%d.
  fv  (vector, tangent-vector)    x%d is an array d(max_deriv_vec_len);
                                  x(i)%d(j) seeds direction j, y(k)%d(j)
                                  returns (J·S)(k,j): a whole Jacobian in one call.
  rs  (split, adjoint-split)      call tape_init(), call head(x, y) with
                                  our_rev_mode%tape = .true. (forward sweep),
                                  then with our_rev_mode%adjoint = .true. and
                                  y%d = ȳ: x%d is incremented by Jᵀ·ȳ.
  rj  (joint, adjoint-joint)      tape and adjoint both .true.: one call does
                                  both sweeps.

Long time loops: `!$openad CHECKPOINT BINOMIAL(snapshots=S)` (or Tapenade's
`!$AD BINOMIAL-CKP nsteps S firststep`) on the line before a counted DO loop
makes the adjoint modes keep at most S snapshots of the loop's state and
recompute steps (binomial checkpointing) instead of taping every step.

Routines without source (LAPACK, C code): declare them in a file given with
--black-box FILE, each as `passive` (derivatives through it dropped, with a
warning at each call) or with the names of tangent and adjoint routines you
supply (argument convention in the user guide).

`openad check [-m f,fv,rs,rj] [--x0 V,...] [openad options] FILE...` checks
the derivatives of every mode against finite differences of the original
program and the adjoints against the tangent, with drivers it writes itself
(`openad check --help`). `openad explore -o DIR FILE...` writes an HTML
report of what openad does to the program (`openad explore --help`).

The work is done by three programs found next to openad (or in
$OPENAD_BIN_DIR): fortran2xaif (front end), xaif-booster (differentiation)
and xaif2fortran (back end). -n shows their command lines.

Exit status: 0 success, 1 input rejected (diagnostic with file:line:column on
stderr; nothing is written), 2 usage error.";

#[derive(Debug, Parser)]
#[command(name = "openad", version, about = ABOUT, long_about = LONG_ABOUT)]
pub struct Cli {
    /// Derivative mode: f (tangent), fv (vector tangent), rs (adjoint split), rj (adjoint joint).
    #[arg(short = 'm', long = "mode", value_enum, default_value = "f")]
    pub mode: Mode,

    /// Directory for the results (created if needed).
    #[arg(
        short = 'o',
        long = "output-dir",
        value_name = "DIR",
        default_value = "."
    )]
    pub output_dir: PathBuf,

    /// Print the stage commands and do nothing.
    #[arg(short = 'n', long = "dry-run")]
    pub dry_run: bool,

    /// Also keep the intermediate files (P.canon.f90, P.xaif, P.xb.xaif, P.loc, P.decl, P.iface, P.act, P.dmap) in DIR.
    #[arg(short = 'k', long = "keep")]
    pub keep: bool,

    /// Print each stage command before running it.
    #[arg(short = 'v', long = "verbose")]
    pub verbose: bool,

    /// Print each stage's wall time, CPU time and peak memory (RSS) on stderr.
    #[arg(long = "timings")]
    pub timings: bool,

    /// How the stages print diagnostics on stderr: for people (with the
    /// source line), or one JSON object per line with the diagnostic's kind
    /// (syntax, semantic, unsupported, input-output, usage, internal).
    #[arg(long = "error-format", value_enum, default_value = "human")]
    pub error_format: xaif_schema::diagnostic::ErrorFormat,

    /// Source form of all inputs (default: from each file's extension).
    #[arg(long = "form", value_enum, value_name = "FORM")]
    pub form: Option<Form>,

    /// Run the C preprocessor (gfortran -E -cpp) on every input (default:
    /// only on .F .F90 .FOR .fpp ... files, as gfortran does).
    #[arg(long = "cpp", overrides_with = "no_cpp")]
    pub cpp: bool,

    /// Never run the C preprocessor; a `#` directive is then an error.
    #[arg(long = "no-cpp", overrides_with = "cpp")]
    pub no_cpp: bool,

    /// Preprocessor: define NAME (as 1) or NAME as VALUE (-DNAME or -D NAME).
    #[arg(short = 'D', value_name = "NAME[=VALUE]")]
    pub define: Vec<String>,

    /// Preprocessor: undefine NAME.
    #[arg(short = 'U', value_name = "NAME")]
    pub undefine: Vec<String>,

    /// Search DIR for `#include` and `include` files.
    #[arg(short = 'I', value_name = "DIR")]
    pub include_dir: Vec<PathBuf>,

    /// `real` without a kind means real(8) (as gfortran -fdefault-real-8
    /// -fdefault-double-8); the generated code says real(8) explicitly.
    #[arg(long = "default-real-8")]
    pub default_real_8: bool,

    /// Front end: declarations of routines without source (black boxes:
    /// passive, or with tangent and adjoint routines you supply); may be
    /// repeated.
    #[arg(long = "black-box", value_name = "FILE")]
    pub black_box: Vec<PathBuf>,

    /// Booster: preaccumulate local Jacobians per statement or per basic block
    /// (default auto: per run, fewer operations in f/fv, a smaller tape in rs/rj).
    #[arg(long = "preaccumulation", value_enum, value_name = "SCOPE")]
    pub preaccumulation: Option<Preaccumulation>,

    /// Booster, adjoint modes: tape each run's partials, recompute them in the
    /// reverse sweep from taped values, or (default auto) per run whichever
    /// is cheaper.
    #[arg(long = "partials", value_enum, value_name = "HOW")]
    pub partials: Option<Partials>,

    /// Booster: elimination on the computational graph.
    #[arg(long = "elimination", value_enum, value_name = "KIND")]
    pub elimination: Option<Elimination>,

    /// Booster: heuristic chain for choosing eliminations (e.g. markowitz,reverse).
    #[arg(long = "heuristic", value_name = "CHAIN")]
    pub heuristic: Option<String>,

    /// Booster: print elimination statistics (operation counts).
    #[arg(long = "stats")]
    pub stats: bool,

    /// Booster: write Graphviz files of the computational graphs into this directory.
    #[arg(long = "dot", value_name = "DIR")]
    pub dot: Option<PathBuf>,

    /// Booster: use this intrinsics catalogue instead of the built-in one.
    #[arg(long = "intrinsics", value_name = "CATALOGUE.xaif")]
    pub intrinsics: Option<PathBuf>,

    /// Back end: subroutine template for the adjoint wrappers.
    #[arg(long = "template", value_name = "FILE")]
    pub template: Option<PathBuf>,

    /// Back end: active local arrays, and active array dummies of routines
    /// whose every call the program makes, as two real(8) arrays, values
    /// and derivatives (split, the default; not in -m fv); local arrays
    /// only (locals); or type(active) everywhere (aos).
    #[arg(long = "active-layout", value_enum, value_name = "LAYOUT")]
    pub active_layout: Option<ActiveLayout>,

    /// Fortran sources of the program, in compile order.
    #[arg(value_name = "FILE", required = true)]
    pub files: Vec<PathBuf>,
}
