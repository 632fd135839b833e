//! `xaif-booster`: the transformation stage, XAIF in, transformed XAIF out.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, ValueEnum};
use xaif_booster::block_accumulate::EliminationChoice;
use xaif_booster::catalogue::Catalogue;
use xaif_booster::elimination::{Chain, Filter, Method};
use xaif_booster::tangent::{transform_tangent, Preaccumulation, TangentOptions};
use xaif_schema::diagnostic::{report_cli_error, Diagnostic, ErrorFormat};
use xaif_schema::source_map::SourceMap;

// The transformation allocates millions of small objects from rayon's
// worker threads: mimalloc takes 25-35 % less CPU time than the system
// allocator here at the same peak memory (docs/benchmarks.md, "Scale").
// (The front end and the back end keep the system allocator: mimalloc
// made no faster there and held more memory in the front end.)
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Mode {
    Tangent,
    Adjoint,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum PreaccumulationArg {
    Statement,
    BasicBlock,
    Auto,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum PartialsArg {
    Taped,
    Recomputed,
    Auto,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum EliminationArg {
    Vertex,
    Edge,
    Face,
    Best,
}

/// Differentiates XAIF: linearisation, preaccumulation, derivative propagation.
#[derive(Debug, Parser)]
#[command(name = "xaif-booster", version)]
struct Cli {
    /// Differentiation mode.
    #[arg(short = 'm', long = "mode", value_enum)]
    mode: Mode,
    /// Unit of Jacobian preaccumulation (auto: per flattened run, the cheaper
    /// of statement and basic-block code).
    #[arg(long, value_enum, default_value = "auto")]
    preaccumulation: PreaccumulationArg,
    /// Adjoint: tape the partials, recompute them in the reverse sweep from
    /// taped values, or per run whichever the cost model finds cheaper.
    #[arg(long, value_enum, default_value = "auto")]
    partials: PartialsArg,
    /// Elimination method (basic-block preaccumulation).
    #[arg(long, value_enum, default_value = "vertex")]
    elimination: EliminationArg,
    /// Heuristic chain for choosing elimination steps (basic-block preaccumulation).
    #[arg(long)]
    heuristic: Option<String>,
    /// Print vertices, edges, multiplications and additions per basic block.
    #[arg(long)]
    stats: bool,
    /// Write each linearised graph as Graphviz into DIR.
    #[arg(long, value_name = "DIR")]
    dot: Option<PathBuf>,
    /// Intrinsics catalogue replacing the built-in one.
    #[arg(long, value_name = "CATALOGUE.xaif")]
    intrinsics: Option<PathBuf>,
    /// The front end's source locations of the input (`fortran2xaif
    /// --locations`): rejected statements are then reported at their place
    /// in the Fortran sources instead of in the XAIF.
    #[arg(long, value_name = "P.loc")]
    locations: Option<PathBuf>,
    /// How diagnostics are printed on stderr: for people, or one JSON object
    /// per line with the diagnostic's kind.
    #[arg(long = "error-format", value_enum, default_value = "human")]
    error_format: ErrorFormat,
    /// Output XAIF file.
    #[arg(short = 'o', value_name = "OUT")]
    output: PathBuf,
    /// Input XAIF file.
    input: PathBuf,
}

fn main() -> ExitCode {
    // Expressions are walked recursively: give the worker threads room for
    // deeply nested right-hand sides.
    let _ = rayon::ThreadPoolBuilder::new()
        .stack_size(64 << 20)
        .build_global();
    let words: Vec<_> = std::env::args_os().collect();
    let cli = match Cli::try_parse_from(&words) {
        Ok(cli) => cli,
        Err(e) => {
            let format = ErrorFormat::from_args(&words);
            return ExitCode::from(report_cli_error(&e, "xaif-booster", format));
        }
    };
    // A bad heuristic chain is a usage error.
    let elimination = match elimination_choice(&cli) {
        Ok(e) => e,
        Err(d) => {
            cli.error_format.print(&d);
            return ExitCode::from(2);
        }
    };
    match run(&cli, elimination) {
        Ok(()) => ExitCode::SUCCESS,
        Err(d) => {
            eprint!("{}", cli.error_format.format(&d));
            ExitCode::from(1)
        }
    }
}

fn run(cli: &Cli, elimination: EliminationChoice) -> Result<(), Diagnostic> {
    let input_name = cli.input.display().to_string();
    let locations = match &cli.locations {
        Some(path) => Some(SourceMap::read_file(path)?),
        None => None,
    };
    let preaccumulation = match cli.preaccumulation {
        PreaccumulationArg::Statement => Preaccumulation::Statement,
        PreaccumulationArg::BasicBlock => Preaccumulation::BasicBlock,
        PreaccumulationArg::Auto => Preaccumulation::Auto,
    };
    if cli.mode == Mode::Adjoint {
        use xaif_booster::adjoint::recompute::Partials;
        let options = xaif_booster::adjoint::AdjointOptions {
            preaccumulation,
            elimination,
            partials: match cli.partials {
                PartialsArg::Taped => Partials::Taped,
                PartialsArg::Recomputed => Partials::Recomputed,
                PartialsArg::Auto => Partials::Auto,
            },
        };
        return xaif_booster::adjoint::run_file(
            &cli.input,
            &cli.output,
            cli.intrinsics.as_deref(),
            cli.stats,
            locations.as_ref(),
            &options,
        );
    }
    let catalogue = match &cli.intrinsics {
        Some(path) => Catalogue::load(path),
        None => Catalogue::builtin(),
    }?;
    let mut cg = {
        let file = std::fs::File::open(&cli.input)
            .map_err(|e| Diagnostic::input_output(&cli.input, format!("cannot read input: {e}")))?;
        xaif_schema::read::read_call_graph_mapped(&file, &input_name)?
    };
    if let Some(dir) = &cli.dot {
        std::fs::create_dir_all(dir).map_err(|e| {
            Diagnostic::input_output(&cli.input, format!("cannot create {}: {e}", dir.display()))
        })?;
    }
    let options = TangentOptions {
        preaccumulation,
        elimination,
        dot_dir: cli.dot.clone(),
        report_optimum: cli.stats,
    };
    // The input text is read again only to place a diagnostic.
    let stats = transform_tangent(&mut cg, &catalogue, &options).map_err(|e| {
        let text = std::fs::read_to_string(&cli.input).unwrap_or_default();
        e.diagnostic(&input_name, &text, locations.as_ref(), "")
    })?;
    if cli.stats {
        print_stats(&stats);
    }
    let written = xaif_schema::write::write_call_graph_file(&cg, &cli.output).map_err(|e| {
        Diagnostic::input_output(
            &cli.input,
            format!("cannot write {}: {e}", cli.output.display()),
        )
    });
    // The process ends next: freeing the model piece by piece gives nothing back.
    std::mem::forget(cg);
    written
}

/// The elimination method and heuristic chain from the options. The
/// default chain breaks Markowitz ties in reverse order.
fn elimination_choice(cli: &Cli) -> Result<EliminationChoice, Diagnostic> {
    let chain = match &cli.heuristic {
        Some(text) => text
            .parse::<Chain>()
            .map_err(|e| Diagnostic::usage("xaif-booster", format!("--heuristic: {e}")))?,
        None => Chain::new(vec![Filter::Markowitz, Filter::Reverse]),
    };
    Ok(match cli.elimination {
        EliminationArg::Vertex => EliminationChoice::One(Method::Vertex, chain),
        EliminationArg::Edge => EliminationChoice::One(Method::Edge, chain),
        EliminationArg::Face => EliminationChoice::One(Method::Face, chain),
        EliminationArg::Best => {
            EliminationChoice::Best(vec![Method::Vertex, Method::Edge, Method::Face])
        }
    })
}

fn print_stats(stats: &[xaif_booster::tangent::BlockStats]) {
    let mut total = xaif_booster::preaccumulate::OpCounts::default();
    // Columns after `additions`: nonzeros of the local Jacobians (scarcity,
    // against `edges`); in basic-block mode the multiplications of the
    // elimination sequences, the proven vertex-elimination optimum (graphs
    // too large to search count their chosen cost) and how many graphs
    // were searched to optimality.
    println!(
        "# subroutine block vertices edges multiplications additions jacobian_nonzeros elimination_multiplications optimum_multiplications optimum_graphs forward_multiplications reverse_multiplications"
    );
    for b in stats {
        let c = b.counts;
        println!(
            "{} {} {} {} {} {} {} {} {} {} {} {}",
            b.cfg,
            b.block,
            c.vertices,
            c.edges,
            c.multiplications,
            c.additions,
            c.jacobian_nonzeros,
            c.elimination_multiplications,
            c.optimum_multiplications,
            c.optimum_graphs,
            c.forward_multiplications,
            c.reverse_multiplications
        );
        total += c;
    }
    println!(
        "total - {} {} {} {} {} {} {} {} {} {}",
        total.vertices,
        total.edges,
        total.multiplications,
        total.additions,
        total.jacobian_nonzeros,
        total.elimination_multiplications,
        total.optimum_multiplications,
        total.optimum_graphs,
        total.forward_multiplications,
        total.reverse_multiplications
    );
}
