//! Adjoint mode (`xaif-booster -m adjoint`): every active control flow
//! graph becomes a `ReplacementList` with the three sections of the
//! contract in docs/ARCHITECTURE.md: 1 plain (the original graph), 2 tape
//! (augmented forward sweep), 3 adjoint (reverse sweep). Passive graphs
//! stay `ControlFlowGraph`s.
//!
//! Modules, one per step: `taping` (adjoint basic blocks: what each
//! statement pushes and how its adjoint pops and propagates), `structure`
//! (nesting of structured graphs, the topological order of Algorithm 1),
//! `reversal` (control flow reversal, Algorithms 2–5, and block-id
//! recording for unstructured graphs), `branch_paths` (one tape entry per
//! path through nested branches), `explicit_loops` (counted loops
//! whose index the reverse sweep recomputes), `hoist` (loop-invariant
//! Jacobian entries taped once per loop execution), `runs` (a flattened
//! run's preaccumulated Jacobian taped), `recompute` (a run's partials
//! recomputed in the reverse sweep from its taped inputs, and the cost
//! model choosing that), `array_snapshots` (arrays an enclosing loop
//! only reads, taped once per loop execution for the replay of recomputed
//! runs), `mirror` (the reverse sweep's
//! marker for an opaque statement), `checkpointed_loops` (loops reversed
//! with binomial checkpointing: cut out, their body differentiated as a
//! graph of its own, spliced back as a plain run and a revolve driver),
//! `stable_dummies` (integer dummies every reverse sweep of their routine
//! has at their forward value, decided over the call graph),
//! `builder` (graph construction), `temps` (the temporaries the sweeps
//! introduce). Assembling the replacement list is here.

pub mod argument_elements;
pub mod array_snapshots;
pub mod block_sweeps;
pub mod branch_paths;
pub mod builder;
pub mod callee_effects;
pub mod checkpointed_loops;
pub mod explicit_loops;
pub mod hoist;
pub mod later_writes;
pub mod mirror;
pub mod reciprocals;
pub mod recompute;
pub mod reversal;
pub mod riding;
pub mod runs;
pub mod stable_dummies;
// The nesting of loops and branches is the shared index's.
pub use xaif_schema::index::nesting as structure;
pub mod taping;
pub mod temps;
pub mod transposed;
pub mod write_first;

use std::collections::{HashMap, HashSet};
use std::path::Path;

use rayon::prelude::*;
use xaif_schema::model::{
    CallGraph, CallGraphVertex, ControlFlowGraph, ControlFlowVertex, Replacement, ReplacementList,
    Symbol, SymbolTable, VariableReference,
};

use crate::block_accumulate::EliminationChoice;
use crate::catalogue::Catalogue;
use crate::du_chains::DuChains;
use crate::elimination::{Chain, Filter, Method};
use crate::error::{BoostError, StatementError};
use crate::symbols::SymbolIndex;
use crate::tangent::Preaccumulation;
use crate::temporaries::TempPool;
use block_sweeps::reverse_block;
use reversal::{Reversal, SweepGraph};
use taping::{BlockContext, BlockSweeps, TapeCounts};
use xaif_schema::diagnostic::{Diagnostic, Kind};

/// Static tape use of one basic block (values pushed per execution).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlockTape {
    pub cfg: String,
    pub block: String,
    pub tape: TapeCounts,
}

/// What one subroutine yields: replacement list, scope, new symbols, stats.
type CfgResult = (ReplacementList, u64, Vec<Symbol>, Vec<BlockTape>);

/// How the adjoint preaccumulates local Jacobians.
#[derive(Debug, Clone)]
pub struct AdjointOptions {
    /// Statement-level partials, the preaccumulated Jacobian of each
    /// flattened run (`runs`), or per run whichever is cheaper.
    pub preaccumulation: Preaccumulation,
    /// How run graphs are eliminated.
    pub elimination: EliminationChoice,
    /// Whether a run's partials are taped, recomputed in the reverse sweep
    /// from taped values, or per run whichever is cheaper (`recompute`).
    pub partials: recompute::Partials,
}

impl Default for AdjointOptions {
    fn default() -> Self {
        AdjointOptions {
            preaccumulation: Preaccumulation::Auto,
            elimination: EliminationChoice::One(
                Method::Vertex,
                Chain::new(vec![Filter::Markowitz, Filter::Reverse]),
            ),
            partials: recompute::Partials::Auto,
        }
    }
}

/// Transforms `cg` in place into adjoint-mode XAIF, with the default
/// options.
pub fn transform_adjoint(
    cg: &mut CallGraph,
    catalogue: &Catalogue,
) -> Result<Vec<BlockTape>, BoostError> {
    transform_adjoint_with(cg, catalogue, &AdjointOptions::default())
}

/// Transforms `cg` in place into adjoint-mode XAIF.
pub fn transform_adjoint_with(
    cg: &mut CallGraph,
    catalogue: &Catalogue,
    options: &AdjointOptions,
) -> Result<Vec<BlockTape>, BoostError> {
    crate::prepare::prepare_input(cg)?;
    ensure_default_map_keys(cg);
    let chains = DuChains::new(&cg.duud_set_map);
    let symbols = SymbolIndex::new(&cg.scope_hierarchy)?;
    let active_subroutines: HashSet<String> = cg
        .vertices
        .iter()
        .filter_map(|v| match v {
            CallGraphVertex::ControlFlowGraph(c) if c.active => Some(c.symbol_id.to_string()),
            _ => None,
        })
        .collect();
    let callee_globals = callee_globals(cg, &symbols);
    let callee_effects = callee_effects::callee_effects(cg);
    let callee_read_only = callee_read_only_passive_arguments(cg, &symbols);
    let scalar_dummies = scalar_dummy_positions(cg, &symbols);
    let stable_dummies = stable_dummies::stable_dummies(cg, &symbols, &callee_effects);
    // Passive intent(in) dummies, as (name, graph scope): never assigned,
    // so never a call-site restore's target (the caller's caller restores
    // the value they stand for).
    let read_only_dummies: HashSet<(String, u64)> = cg
        .vertices
        .iter()
        .filter_map(|v| match v {
            CallGraphVertex::ControlFlowGraph(cfg) => Some(cfg),
            _ => None,
        })
        .flat_map(|cfg| {
            let positions = callee_read_only.get(cfg.symbol_id.as_str());
            cfg.argument_list
                .iter()
                .flatten()
                .filter(move |a| positions.is_some_and(|p| p.contains(&a.position)))
                .map(move |a| (a.symbol_id.to_string(), cfg.controlflowgraph_scope_id))
        })
        .collect();
    let mut scopes = taping::ScopeTree {
        scopes: symbols.scopes(),
        referenced: HashMap::new(),
    };
    for v in &cg.vertices {
        if let CallGraphVertex::ControlFlowGraph(cfg) = v {
            let names = scopes
                .referenced
                .entry(cfg.controlflowgraph_scope_id)
                .or_default();
            xaif_schema::visit::symbol_references(&cfg.vertices, &mut |r| {
                names.insert((r.symbol_id.to_string(), r.scope_id));
            });
        }
    }
    // Variables named by a graph whose scope is not theirs: host
    // association into internal procedures, module variables.
    let host_referenced: HashSet<(String, u64)> = scopes
        .referenced
        .iter()
        .flat_map(|(own, names)| names.iter().filter(move |(_, s)| s != own).cloned())
        .collect();
    let ctx = BlockContext {
        catalogue,
        symbols: &symbols,
        active_subroutines: &active_subroutines,
        callee_globals: &callee_globals,
        callee_read_only: &callee_read_only,
        host_referenced: &host_referenced,
        scalar_dummies: &scalar_dummies,
        read_only_dummies: &read_only_dummies,
        callee_effects: &callee_effects,
        stable_dummies: &stable_dummies,
        scopes: &scopes,
        chains: &chains,
        options,
    };
    // Each worker takes its input graph out of the model and drops it once
    // its replacement list is built, so the input and the adjoint model are
    // not both held whole (the adjoint is the larger).
    type Boosted = (CallGraphVertex, Option<(u64, Vec<Symbol>, Vec<BlockTape>)>);
    let results: Vec<Result<Boosted, BoostError>> = std::mem::take(&mut cg.vertices)
        .into_par_iter()
        .map(|vertex| match vertex {
            // An empty body (a module's) has nothing to reverse: it stays
            // a control flow graph, as a passive one does.
            CallGraphVertex::ControlFlowGraph(cfg)
                if cfg.active && !crate::cfg_shape::is_empty_body(&cfg) =>
            {
                let (list, scope, syms, stats) = adjoint_cfg(&cfg, &ctx)?;
                Ok((
                    CallGraphVertex::ReplacementList(list),
                    Some((scope, syms, stats)),
                ))
            }
            other => Ok((other, None)),
        })
        .collect();
    let mut tape = Vec::new();
    let mut new_symbols: Vec<(u64, Vec<Symbol>)> = Vec::new();
    cg.vertices.reserve(results.len());
    for result in results {
        let (vertex, boosted) = result?;
        cg.vertices.push(vertex);
        if let Some((scope, syms, stats)) = boosted {
            new_symbols.push((scope, syms));
            tape.extend(stats);
        }
    }
    for (scope_id, syms) in new_symbols {
        add_symbols(cg, scope_id, syms);
    }
    Ok(tape)
}

/// Per subroutine with a control flow graph (all of them, or only the
/// active ones), the positions of its dummy arguments whose symbol
/// satisfies `keep` (given the argument's declared intent).
fn dummy_positions(
    cg: &CallGraph,
    symbols: &SymbolIndex,
    active_only: bool,
    keep: impl Fn(xaif_schema::model::Intent, crate::symbols::SymbolInfo) -> bool,
) -> HashMap<String, HashSet<u64>> {
    let mut out = HashMap::new();
    for v in &cg.vertices {
        let CallGraphVertex::ControlFlowGraph(cfg) = v else {
            continue;
        };
        if active_only && !cfg.active {
            continue;
        }
        let positions = cfg
            .argument_list
            .iter()
            .flatten()
            .filter(|a| {
                symbols
                    .lookup(a.scope_id, &a.symbol_id)
                    .or_else(|| symbols.lookup(cfg.controlflowgraph_scope_id, &a.symbol_id))
                    .is_some_and(|s| keep(a.intent, s))
            })
            .map(|a| a.position)
            .collect();
        out.insert(cfg.symbol_id.to_string(), positions);
    }
    out
}

/// For every subroutine with a control flow graph, the positions of its
/// scalar dummy arguments.
fn scalar_dummy_positions(cg: &CallGraph, symbols: &SymbolIndex) -> HashMap<String, HashSet<u64>> {
    dummy_positions(cg, symbols, false, |_, s| s.shape.rank() == 0)
}

/// For every active subroutine, the positions of its passive `intent(in)`
/// dummy arguments. The joint template's argument checkpoint (back end)
/// cannot restore those (Fortran forbids assigning them), so the call site
/// restores the actual arguments instead (`taping.rs`, `call`).
fn callee_read_only_passive_arguments(
    cg: &CallGraph,
    symbols: &SymbolIndex,
) -> HashMap<String, HashSet<u64>> {
    dummy_positions(cg, symbols, true, |intent, s| {
        intent == xaif_schema::model::Intent::In && !s.active
    })
}

/// For every active subroutine, the variables of other scopes that its
/// `Read` list (transitive, from the front end) names, with their symbols.
fn callee_globals(
    cg: &CallGraph,
    symbols: &SymbolIndex,
) -> HashMap<String, Vec<(VariableReference, Symbol)>> {
    let mut out = HashMap::new();
    for v in &cg.vertices {
        let CallGraphVertex::ControlFlowGraph(cfg) = v else {
            continue;
        };
        if !cfg.active {
            continue;
        }
        let formals: HashSet<&str> = cfg
            .argument_list
            .iter()
            .flatten()
            .map(|a| a.symbol_id.as_str())
            .collect();
        let mut seen = HashSet::new();
        let mut globals = Vec::new();
        for r in cfg.read.iter().flatten() {
            let Some((id, scope)) = crate::expr::base_symbol(r) else {
                continue;
            };
            if scope == cfg.controlflowgraph_scope_id || formals.contains(id) {
                continue;
            }
            let Some(symbol) = symbols.scopes().symbol(scope, id) else {
                continue;
            };
            if symbol.kind != xaif_schema::model::SymbolKind::Variable
                || !seen.insert((scope, id.to_string()))
            {
                continue;
            }
            let reference = crate::temporaries::temp_reference(id, scope);
            globals.push((
                VariableReference {
                    active: xaif_schema::model::ActiveUse::Undefined,
                    ..reference
                },
                (*symbol).clone(),
            ));
        }
        out.insert(cfg.symbol_id.to_string(), globals);
    }
    out
}

fn adjoint_cfg(cfg: &ControlFlowGraph, ctx: &BlockContext) -> Result<CfgResult, BoostError> {
    let scope = cfg.controlflowgraph_scope_id;
    if !ctx.symbols.has_scope(scope) {
        return Err(BoostError {
            statement_id: None,
            cfg_symbol: Some(cfg.symbol_id.to_string()),
            kind: Kind::Semantic,
            message: format!("controlflowgraph_scope_id {scope} names no scope"),
        });
    }
    let formals: HashSet<String> = cfg
        .argument_list
        .iter()
        .flatten()
        .map(|a| a.symbol_id.to_string())
        .collect();
    let mut sweeper = Sweeper {
        ctx,
        cfg_symbol: &cfg.symbol_id,
        scope,
        formals: &formals,
        pool: TempPool::new(scope),
        temps: temps::AdjointTemps::new(scope, ctx.symbols),
        stats: Vec::new(),
        checkpointed: 0,
    };
    let graph = SweepGraph {
        structured: cfg.structured,
        vertices: cfg.vertices.clone(),
        edges: cfg.edges.clone(),
    };
    let (forward, reverse) = sweeper.sweeps(&graph)?;
    let plain = SweepGraph {
        structured: cfg.structured,
        vertices: cfg.vertices.clone(),
        edges: cfg.edges.clone(),
    };
    let mut list = ReplacementList {
        vertex_id: cfg.vertex_id.clone(),
        annotation: cfg.annotation.clone(),
        template_name: Default::default(),
        symbol_id: cfg.symbol_id.clone(),
        scope_id: cfg.scope_id,
        controlflowgraph_scope_id: scope,
        argument_list: cfg.argument_list.clone(),
        replacements: vec![
            replacement("1", plain),
            replacement("2", forward),
            replacement("3", reverse),
        ],
    };
    if let Some((store, restore, covered)) = argument_elements::element_checkpoints(
        cfg,
        ctx.symbols,
        ctx.host_referenced,
        ctx.scalar_dummies,
    ) {
        for a in list.argument_list.iter_mut().flatten() {
            if covered.contains(a.symbol_id.as_str()) {
                a.annotation = argument_elements::ELEMENT_CHECKPOINT.to_string().into();
            }
        }
        list.replacements.extend([store, restore]);
    }
    let write_first = write_first::write_first_dummies(cfg, ctx.symbols, ctx.host_referenced);
    for a in list.argument_list.iter_mut().flatten() {
        if a.annotation.is_empty() && write_first.contains(a.symbol_id.as_str()) {
            a.annotation = write_first::WRITE_FIRST.to_string().into();
        }
    }
    let Sweeper {
        pool, temps, stats, ..
    } = sweeper;
    let mut syms = pool.symbols();
    syms.extend(temps.symbols());
    Ok((list, scope, syms, stats))
}

/// Builds the tape and adjoint sweeps of the graphs of one routine: its
/// own and, recursively, the bodies of its checkpointed loops (which share
/// its temporaries).
struct Sweeper<'c, 'a> {
    ctx: &'c BlockContext<'a>,
    cfg_symbol: &'c str,
    scope: u64,
    formals: &'c HashSet<String>,
    pool: TempPool,
    temps: temps::AdjointTemps<'a>,
    stats: Vec<BlockTape>,
    /// Checkpointed loops cut so far (their markers are numbered on).
    checkpointed: usize,
}

impl Sweeper<'_, '_> {
    fn error(&self, e: StatementError) -> BoostError {
        e.in_cfg(self.cfg_symbol)
    }

    /// The tape (forward) and adjoint (reverse) sweeps of `graph`.
    fn sweeps(&mut self, graph: &SweepGraph) -> Result<(SweepGraph, SweepGraph), BoostError> {
        let ctx = self.ctx;
        let scope = self.scope;
        let (graph, loops) = match checkpointed_loops::extract(graph, self.checkpointed + 1)
            .map_err(|e| self.error(e))?
        {
            Some((cut, loops)) => {
                self.checkpointed += loops.len();
                (std::borrow::Cow::Owned(cut), loops)
            }
            None => (std::borrow::Cow::Borrowed(graph), Vec::new()),
        };
        let mut blocks: Vec<Option<BlockSweeps>> = Vec::with_capacity(graph.vertices.len());
        // Nesting first: loop indices the reverse sweep recomputes are not
        // taped by the blocks inside those loops.
        // A graph the front end calls unstructured may still nest (its
        // only gotos are leading loop exits): `nest` checks every vertex.
        let nesting = structure::nest(&graph.vertices, &graph.edges).ok();
        let (explicit, restored) = match &nesting {
            Some(regions) => {
                explicit_loops::explicit_loops(&graph.vertices, regions, ctx.symbols, scope)
            }
            None => Default::default(),
        };
        let mut hoister = hoist::Hoister::new(&graph.vertices, nesting.as_deref(), ctx.symbols);
        let none = HashSet::new();
        // This routine's stable integer dummies hold their forward value
        // in every block of its reverse sweep.
        let stable: HashSet<(String, u64)> = ctx
            .stable_dummies
            .iter()
            .filter(|(_, s)| *s == scope)
            .cloned()
            .collect();
        for (k, v) in graph.vertices.iter().enumerate() {
            let ControlFlowVertex::BasicBlock(bb) = v else {
                blocks.push(None);
                continue;
            };
            let merged: HashSet<(String, u64)>;
            let untaped = match restored.get(&k) {
                _ if stable.is_empty() => restored.get(&k).unwrap_or(&none),
                Some(r) => {
                    merged = r.union(&stable).cloned().collect();
                    &merged
                }
                None => &stable,
            };
            let sweeps = reverse_block(
                &bb.elements,
                ctx,
                untaped,
                &mut self.pool,
                &mut self.temps,
                &mut hoister.for_block(k),
            )
            .map_err(|e| self.error(e))?;
            self.stats.push(BlockTape {
                cfg: self.cfg_symbol.to_string(),
                block: bb.vertex_id.to_string(),
                tape: sweeps.tape,
            });
            blocks.push(Some(sweeps));
        }
        // Hoisted values are pushed once per execution of their loop:
        // counted on a line of their own, named by the loop vertex.
        let mut hoisted_loops: Vec<(&usize, &Vec<_>)> = hoister.hoisted().iter().collect();
        hoisted_loops.sort_by_key(|(v, _)| **v);
        for (v, values) in hoisted_loops {
            self.stats.push(BlockTape {
                cfg: self.cfg_symbol.to_string(),
                block: graph.vertices[*v].vertex_id().to_string(),
                tape: TapeCounts {
                    reals: values.len(),
                    ..TapeCounts::default()
                },
            });
        }
        let mut reversal = Reversal::new(
            &graph.vertices,
            &graph.edges,
            &blocks,
            scope,
            &mut self.temps,
        );
        reversal.hoisted = hoister.hoisted().clone();
        reversal.snapshots = hoister.snapshots().clone();
        let (mut forward, mut reverse) = match nesting {
            Some(regions) => reversal.structured(&regions, &explicit),
            None => reversal.unstructured().map_err(|e| self.error(e))?,
        };
        // Each checkpointed loop: its body's sweeps, then its code at its
        // marker (tape section) and at the marker's mirror (adjoint).
        for l in &loops {
            let (body_tape, body_adjoint) = self.sweeps(&l.body)?;
            let state = checkpointed_loops::loop_state(
                l,
                &checkpointed_loops::StateContext {
                    symbols: ctx.symbols,
                    effects: ctx.callee_effects,
                    read_only_dummies: ctx.read_only_dummies,
                    scope,
                    formals: self.formals,
                },
            )
            .map_err(|e| self.error(e))?;
            let code = checkpointed_loops::loop_sweeps(
                l,
                &state,
                &body_tape,
                &body_adjoint,
                scope,
                &mut self.temps,
            );
            let key = l.key.trim_start_matches(checkpointed_loops::MARKER_PREFIX);
            let mirror = format!("{}{}", mirror::MIRROR_PREFIX, l.key);
            let placed = checkpointed_loops::splice_at_marker(
                &mut forward,
                &l.key,
                &code.tape,
                &format!("ck{key}T_"),
            ) && checkpointed_loops::splice_at_marker(
                &mut reverse,
                &mirror,
                &code.adjoint,
                &format!("ck{key}A_"),
            );
            if !placed {
                return Err(self.error(StatementError::internal(
                    Some(l.statement_id.clone()),
                    "internal error: the sweeps lost a checkpointed loop's marker",
                )));
            }
        }
        Ok((forward, reverse))
    }
}

fn replacement(placeholder: &str, g: SweepGraph) -> Replacement {
    Replacement {
        placeholder: placeholder.to_string().into(),
        structured: g.structured,
        vertices: g.vertices,
        edges: g.edges,
    }
}

fn add_symbols(cg: &mut CallGraph, scope_id: u64, syms: Vec<Symbol>) {
    let key = scope_id.to_string();
    let Some(scope) = cg
        .scope_hierarchy
        .scopes
        .iter_mut()
        .find(|s| s.vertex_id == key)
    else {
        return;
    };
    if scope.symbol_tables.is_empty() {
        scope.symbol_tables.push(SymbolTable::default());
    }
    let table = &mut scope.symbol_tables[0];
    for s in syms {
        // Subroutines sharing a scope share their temporaries.
        if !table.symbols.iter().any(|t| t.symbol_id == s.symbol_id) {
            table.symbols.push(s);
        }
    }
}

/// Booster-made references use alias, du-ud and do-chain key 0; the schema
/// wants that key in each map.
fn ensure_default_map_keys(cg: &mut CallGraph) {
    use xaif_schema::model::{AliasSet, StmtIdSet};
    if !cg.alias_set_map.sets.iter().any(|s| s.key == 0) {
        cg.alias_set_map.sets.insert(0, AliasSet::default());
    }
    for map in [&mut cg.duud_set_map, &mut cg.do_set_map] {
        if !map.sets.iter().any(|s| s.key == 0) {
            map.sets.insert(0, StmtIdSet::default());
        }
    }
}

/// The command line's adjoint mode: read, transform, write atomically.
/// Errors are `file:line:column: error: ...` diagnostics.
pub fn run_file(
    input: &Path,
    output: &Path,
    intrinsics: Option<&Path>,
    stats: bool,
    locations: Option<&xaif_schema::source_map::SourceMap>,
    options: &AdjointOptions,
) -> Result<(), Diagnostic> {
    let input_name = input.display().to_string();
    let catalogue = match intrinsics {
        Some(path) => Catalogue::load(path),
        None => Catalogue::builtin(),
    }?;
    let mut cg = {
        let file = std::fs::File::open(input)
            .map_err(|e| Diagnostic::input_output(input, format!("cannot read input: {e}")))?;
        xaif_schema::read::read_call_graph_mapped(&file, &input_name)?
    };
    // The input text is read again only to place a diagnostic.
    let tape = transform_adjoint_with(&mut cg, &catalogue, options).map_err(|e| {
        let text = std::fs::read_to_string(input).unwrap_or_default();
        e.diagnostic(&input_name, &text, locations, "adjoint: ")
    })?;
    if stats {
        println!("# subroutine block reals_pushed integers_pushed (per execution) runs_recomputed");
        let mut total = TapeCounts::default();
        for b in &tape {
            println!(
                "{} {} {} {} {}",
                b.cfg, b.block, b.tape.reals, b.tape.integers, b.tape.recomputed
            );
            total += b.tape;
        }
        println!(
            "total - {} {} {}",
            total.reals, total.integers, total.recomputed
        );
    }
    xaif_schema::write::write_call_graph_file(&cg, output).map_err(|e| {
        Diagnostic::input_output(input, format!("cannot write {}: {e}", output.display()))
    })
}
