//! The front end's program analyses over an abstract data-flow IR
//! ([`ir`]): call graph, side effects, alias, du/ud and do chains,
//! activity (varied ∩ useful) and to-be-recorded sets.
//!
//! The front end lowers its control flow graphs to [`ir::Program`], calls
//! [`analyze`], and writes the results into XAIF. Equations and deviations
//! from the papers are in `docs/analyses.md`.

pub mod activity;
pub mod alias;
pub mod bitset;
pub mod builder;
pub mod call_graph;
pub mod dependence;
pub mod du_ud;
pub mod effects;
pub mod ir;
pub mod side_effects;
pub mod tbr;

pub use activity::Activity;
pub use alias::Alias;
pub use call_graph::CallGraph;
pub use du_ud::{ChainPoint, ChainsOf, DuUd};
pub use side_effects::{SideEffects, UnitSideEffects};
pub use tbr::Tbr;

use std::borrow::Cow;

use ir::{IrError, LocationId, LocationKind, Program, Seeds, Stmt, UnitId};

/// Everything the analyses found.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Results {
    pub call_graph: CallGraph,
    pub side_effects: SideEffects,
    pub alias: Alias,
    pub du_ud: DuUd,
    pub activity: Activity,
    pub tbr: Tbr,
    /// Problems with the input; when not empty the other results are the
    /// conservative defaults (everything differentiable is active, no
    /// alias or du/ud information).
    pub errors: Vec<IrError>,
    /// Locals referenced from a unit other than their own (host
    /// association the front end did not make global): analysed as
    /// globals, since they outlive the calls that see them.
    pub shared_locals: Vec<LocationId>,
}

/// Runs every analysis on `program` for the request `seeds`.
pub fn analyze(program: &Program, seeds: &Seeds) -> Results {
    analyze_for(program, seeds, ChainsOf::Everything)
}

/// [`analyze`], with the du/ud and do chains of the locations `chains`
/// selects only (the front end writes no chains of arrays).
pub fn analyze_for(program: &Program, seeds: &Seeds, chains: ChainsOf) -> Results {
    let errors = program.validate(seeds);
    if !errors.is_empty() {
        return Results {
            activity: Activity::everything_active(program),
            errors,
            ..Results::default()
        };
    }
    let shared_locals = locals_seen_elsewhere(program);
    let program: Cow<Program> = if shared_locals.is_empty() {
        Cow::Borrowed(program)
    } else {
        let mut p = program.clone();
        for l in &shared_locals {
            p.locations[l.index()].kind = LocationKind::Global;
        }
        Cow::Owned(p)
    };
    let program = program.as_ref();
    let call_graph = CallGraph::build(program);
    let side_effects = SideEffects::compute(program, &call_graph);
    let alias = Alias::compute(program, &call_graph);
    let du_ud = DuUd::compute_for(program, &side_effects, &alias, chains);
    let activity = Activity::compute(program, seeds, &call_graph, &side_effects, &alias);
    let tbr = Tbr::compute(
        program,
        seeds,
        &call_graph,
        &side_effects,
        &alias,
        &activity,
    );
    Results {
        call_graph,
        side_effects,
        alias,
        du_ud,
        activity,
        tbr,
        errors,
        shared_locals,
    }
}

/// Locals of one unit referenced by another unit's statements.
fn locals_seen_elsewhere(program: &Program) -> Vec<LocationId> {
    let mut out = Vec::new();
    for (u, unit) in program.units.iter().enumerate() {
        let here = UnitId(u as u32);
        let mut note = |l: LocationId| {
            if let Some(LocationKind::Local { unit }) = program.location(l).map(|i| i.kind) {
                if unit != here {
                    out.push(l);
                }
            }
        };
        for stmt in unit.blocks.iter().flat_map(|b| &b.stmts) {
            match stmt {
                Stmt::Assign { def, uses, .. } => {
                    note(def.loc);
                    uses.iter().for_each(|x| note(x.loc));
                }
                Stmt::Call { actuals, .. } => actuals.iter().flatten().for_each(|l| note(*l)),
                Stmt::Opaque { defs, uses, .. } => {
                    defs.iter().for_each(|d| note(d.loc));
                    uses.iter().for_each(|l| note(*l));
                }
            }
        }
    }
    out.sort();
    out.dedup();
    out
}
