//! Tangent mode: every basic block's assignments become
//! `[temporary assignments…, original assignment, DerivativePropagator]`.
//! Subroutine calls, markers and control flow pass through unchanged: the
//! called routines propagate their own derivatives, since active actual
//! arguments are passed as `type(active)`.

use rayon::prelude::*;
use std::collections::HashSet;
use std::path::PathBuf;
use xaif_schema::model::{
    AliasSet, Assignment, BasicBlock, BasicBlockElement, CallGraph, CallGraphVertex,
    ControlFlowGraph, ControlFlowVertex, DerivativePropagator, PropagatorEntry, StmtIdSet, Symbol,
    SymbolTable,
};

use crate::block_accumulate::{accumulate_sequence, EliminationChoice};
use crate::catalogue::Catalogue;
use crate::du_chains::DuChains;
pub use crate::error::{BoostError, StatementError};
use crate::flatten::{changes_own_subscripts, Flattener};
use crate::linearize::{Linearization, LinearizedGraph, Linearizer};
use crate::preaccumulate::{preaccumulate_statement, OpCounts};
use crate::propagate::row_entries;
use crate::symbols::SymbolIndex;
use crate::temporaries::TempPool;
use xaif_schema::diagnostic::Kind;

/// The unit of preaccumulation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Preaccumulation {
    Statement,
    BasicBlock,
    /// Per flattened run of a basic block, whichever of statement-level and
    /// basic-block code costs fewer operations per tangent direction
    /// (`run_cost`).
    Auto,
}

#[derive(Debug, Clone)]
pub struct TangentOptions {
    pub preaccumulation: Preaccumulation,
    /// How basic-block graphs are eliminated.
    pub elimination: EliminationChoice,
    /// Write each linearised graph as Graphviz into this directory.
    pub dot_dir: Option<PathBuf>,
    /// Search the optimal vertex elimination of small graphs for `--stats`.
    pub report_optimum: bool,
}

/// Counts of one basic block (for `--stats`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlockStats {
    /// Symbol of the control flow graph (subroutine name).
    pub cfg: String,
    pub block: String,
    pub counts: OpCounts,
}

/// What one subroutine yields: block statistics, its scope, its temporaries.
type CfgResult = (Vec<BlockStats>, u64, Vec<Symbol>);

/// Transforms `cg` in place into tangent-mode XAIF.
pub fn transform_tangent(
    cg: &mut CallGraph,
    catalogue: &Catalogue,
    options: &TangentOptions,
) -> Result<Vec<BlockStats>, BoostError> {
    crate::prepare::prepare_input(cg)?;
    ensure_default_map_keys(cg);
    let symbols = SymbolIndex::new(&cg.scope_hierarchy)?;
    let chains = DuChains::new(&cg.duud_set_map);
    // Subroutines are independent: transform them in parallel, then merge
    // results in call graph order (deterministic output and first error).
    let results: Vec<Result<CfgResult, BoostError>> = cg
        .vertices
        .par_iter_mut()
        .filter_map(|vertex| match vertex {
            CallGraphVertex::ControlFlowGraph(cfg) => Some(cfg),
            _ => None,
        })
        .map(|cfg| {
            if !symbols.has_scope(cfg.controlflowgraph_scope_id) {
                return Err(BoostError {
                    statement_id: None,
                    cfg_symbol: Some(cfg.symbol_id.to_string()),
                    kind: Kind::Semantic,
                    message: format!(
                        "controlflowgraph_scope_id {} names no scope",
                        cfg.controlflowgraph_scope_id
                    ),
                });
            }
            let mut pool = TempPool::new(cfg.controlflowgraph_scope_id);
            let mut stats = Vec::new();
            transform_cfg(
                cfg, catalogue, &symbols, &chains, &mut pool, options, &mut stats,
            )?;
            Ok((stats, cfg.controlflowgraph_scope_id, pool.symbols()))
        })
        .collect();
    let mut stats = Vec::new();
    let mut new_temporaries: Vec<(u64, Vec<Symbol>)> = Vec::new();
    for r in results {
        let (s, scope, temporaries) = r?;
        stats.extend(s);
        new_temporaries.push((scope, temporaries));
    }
    for (scope_id, temporaries) in new_temporaries {
        let scope_key = scope_id.to_string();
        if let Some(scope) = cg
            .scope_hierarchy
            .scopes
            .iter_mut()
            .find(|s| s.vertex_id == scope_key)
        {
            if scope.symbol_tables.is_empty() {
                scope.symbol_tables.push(SymbolTable::default());
            }
            let table = &mut scope.symbol_tables[0];
            for t in temporaries {
                // Two subroutines sharing a scope share their temporaries.
                if !table.symbols.iter().any(|s| s.symbol_id == t.symbol_id) {
                    table.symbols.push(t);
                }
            }
        }
    }
    Ok(stats)
}

/// Booster-made references and statements use alias, du-ud and do-chain
/// key 0 ("no information"); the schema wants that key to exist in each map.
fn ensure_default_map_keys(cg: &mut CallGraph) {
    if !cg.alias_set_map.sets.iter().any(|s| s.key == 0) {
        cg.alias_set_map.sets.insert(0, AliasSet::default());
    }
    for map in [&mut cg.duud_set_map, &mut cg.do_set_map] {
        if !map.sets.iter().any(|s| s.key == 0) {
            map.sets.insert(0, StmtIdSet::default());
        }
    }
}

/// What every block of one subroutine shares.
struct BlockContext<'a> {
    catalogue: &'a Catalogue,
    symbols: &'a SymbolIndex<'a>,
    chains: &'a DuChains,
    options: &'a TangentOptions,
    cfg_symbol: &'a str,
}

fn transform_cfg(
    cfg: &mut ControlFlowGraph,
    catalogue: &Catalogue,
    symbols: &SymbolIndex,
    chains: &DuChains,
    pool: &mut TempPool,
    options: &TangentOptions,
    stats: &mut Vec<BlockStats>,
) -> Result<(), BoostError> {
    let cfg_symbol = cfg.symbol_id.clone();
    let ctx = BlockContext {
        catalogue,
        symbols,
        chains,
        options,
        cfg_symbol: &cfg_symbol,
    };
    for v in &mut cfg.vertices {
        let ControlFlowVertex::BasicBlock(bb) = v else {
            continue;
        };
        let counts = transform_block(bb, &ctx, pool).map_err(|e| e.in_cfg(&cfg_symbol))?;
        stats.push(BlockStats {
            cfg: cfg_symbol.to_string(),
            block: bb.vertex_id.to_string(),
            counts,
        });
    }
    Ok(())
}

type BlockError = StatementError;

/// The output of one block under construction.
struct BlockOutput {
    elements: Vec<BasicBlockElement>,
    counts: OpCounts,
}

fn transform_block(
    bb: &mut BasicBlock,
    ctx: &BlockContext,
    pool: &mut TempPool,
) -> Result<OpCounts, BlockError> {
    let old = std::mem::take(&mut bb.elements);
    let mut out = BlockOutput {
        elements: Vec::with_capacity(old.len() * 3),
        counts: OpCounts::default(),
    };
    let block = bb.vertex_id.as_str();
    let mut sequence = Flattener::new();
    let block_mode = ctx.options.preaccumulation != Preaccumulation::Statement;
    for element in old {
        let BasicBlockElement::Assignment(a) = element else {
            flush(&mut sequence, &mut out, ctx, pool, block)?;
            out.elements.push(element);
            continue;
        };
        let linearizer = Linearizer {
            catalogue: ctx.catalogue,
            symbols: ctx.symbols,
        };
        let lin = linearizer
            .linearize_assignment(&a)
            .map_err(|e| e.at(&a.statement_id))?;
        let graph = match lin {
            Linearization::Graph(graph) => graph,
            Linearization::Passive => {
                flush(&mut sequence, &mut out, ctx, pool, block)?;
                out.elements.push(BasicBlockElement::Assignment(a));
                continue;
            }
            Linearization::ZeroDerivative(y) => {
                flush(&mut sequence, &mut out, ctx, pool, block)?;
                let id = a.statement_id.clone();
                out.elements.push(BasicBlockElement::Assignment(a));
                out.elements
                    .push(propagator(vec![PropagatorEntry::ZeroDeriv(y)], &id));
                continue;
            }
        };
        if !block_mode || changes_own_subscripts(&a, &graph) {
            flush(&mut sequence, &mut out, ctx, pool, block)?;
            statement_level(a, &graph, &mut out, ctx, pool, block)?;
            continue;
        }
        if let Err((a, graph)) = sequence.try_append(a, graph) {
            flush(&mut sequence, &mut out, ctx, pool, block)?;
            let statement_id = a.statement_id.clone();
            if sequence.try_append(a, graph).is_err() {
                return Err(StatementError::internal(
                    Some(statement_id.to_string()),
                    "internal error: a new graph rejected a statement",
                ));
            }
        }
    }
    flush(&mut sequence, &mut out, ctx, pool, block)?;
    bb.elements = out.elements;
    Ok(out.counts)
}

/// Statement-level preaccumulation of one active assignment. A definition
/// that no statement reads (empty du chain) needs no derivative code.
fn statement_level(
    a: Assignment,
    graph: &LinearizedGraph,
    out: &mut BlockOutput,
    ctx: &BlockContext,
    pool: &mut TempPool,
    block: &str,
) -> Result<(), BlockError> {
    if !ctx.chains.value_needed_outside(&a, &HashSet::new()) {
        out.elements.push(BasicBlockElement::Assignment(a));
        return Ok(());
    }
    if let Some(dir) = &ctx.options.dot_dir {
        write_dot(dir, ctx.cfg_symbol, block, &a.statement_id, graph)
            .map_err(|e| e.at(&a.statement_id))?;
    }
    pool.reset();
    let acc = preaccumulate_statement(graph, &a, pool, ctx.symbols);
    out.counts += acc.counts;
    out.elements
        .extend(acc.preamble.into_iter().map(BasicBlockElement::Assignment));
    let entries: Vec<PropagatorEntry> = acc.rows.iter().flat_map(row_entries).collect();
    // The propagator reads partials computed before the statement and
    // derivatives the statement does not touch, so it may equally come
    // first; it must when the statement changes its own subscripts (the
    // references after it would name other elements).
    let first = changes_own_subscripts(&a, graph);
    if first && !entries.is_empty() {
        out.elements
            .push(propagator(entries.clone(), &a.statement_id));
    }
    let id = a.statement_id.clone();
    out.elements.push(BasicBlockElement::Assignment(a));
    if !first && !entries.is_empty() {
        out.elements.push(propagator(entries, &id));
    }
    Ok(())
}

/// Emits the flattened sequence gathered so far (basic-block mode):
/// partials before each statement, accumulation after the last one, then
/// the propagator. Values whose every read is a later statement of the run
/// are not dependents (their reads are inside the graph).
fn flush(
    sequence: &mut Flattener,
    out: &mut BlockOutput,
    ctx: &BlockContext,
    pool: &mut TempPool,
    block: &str,
) -> Result<(), BlockError> {
    if sequence.is_empty() {
        return Ok(());
    }
    let mut seq = std::mem::take(sequence).finish();
    ctx.chains.prune_dependents(&mut seq);
    let first_id = seq.statements[0].assignment.statement_id.clone();
    if let Some(dir) = &ctx.options.dot_dir {
        write_dot(dir, ctx.cfg_symbol, block, &first_id, &seq.graph)
            .map_err(|e| e.at(&first_id))?;
    }
    if ctx.options.preaccumulation == Preaccumulation::Auto && seq.statements.len() > 1 {
        // Count both forms on a scratch pool; emit the cheaper one for real.
        let mut scratch = TempPool::new(pool.scope_id);
        let block_code = accumulate_sequence(
            &seq,
            &ctx.options.elimination,
            false,
            &mut scratch,
            ctx.symbols,
        )
        .map_err(|e| e.at(&first_id))?;
        let block_cost = block_code.counts.multiplications
            + block_code.counts.additions
            + propagation_cost(&block_code.propagator);
        let mut statement_cost = 0;
        for acc in ctx
            .chains
            .live_statement_accumulations(&seq, &mut scratch, ctx.symbols)
        {
            let entries: Vec<PropagatorEntry> = acc.rows.iter().flat_map(row_entries).collect();
            statement_cost +=
                acc.counts.multiplications + acc.counts.additions + propagation_cost(&entries);
        }
        if statement_cost < block_cost {
            for st in seq.statements {
                statement_level(st.assignment, &st.graph, out, ctx, pool, block)?;
            }
            return Ok(());
        }
    }
    pool.reset();
    let code = accumulate_sequence(
        &seq,
        &ctx.options.elimination,
        ctx.options.report_optimum,
        pool,
        ctx.symbols,
    )
    .map_err(|e| e.at(&first_id))?;
    if let (Some(dir), Some(report)) = (&ctx.options.dot_dir, &code.report) {
        let path = dot_path(dir, ctx.cfg_symbol, block, &first_id).with_extension("elimination");
        crate::dot::write_atomically(&path, &report.to_string()).map_err(|e| {
            StatementError::input_output(
                Some(first_id.to_string()),
                format!("cannot write {}: {e}", path.display()),
            )
        })?;
    }
    out.counts += code.counts;
    // The run's propagator is located at its last statement.
    let last_id = seq
        .statements
        .last()
        .map_or_else(|| first_id.clone(), |s| s.assignment.statement_id.clone());
    for (st, before) in seq.statements.into_iter().zip(code.before_statement) {
        out.elements
            .extend(before.into_iter().map(BasicBlockElement::Assignment));
        out.elements
            .push(BasicBlockElement::Assignment(st.assignment));
    }
    out.elements.extend(
        code.accumulation
            .into_iter()
            .map(BasicBlockElement::Assignment),
    );
    if !code.propagator.is_empty() {
        out.elements.push(propagator(code.propagator, &last_id));
    }
    Ok(())
}

/// Floating-point operations of a propagator per tangent direction: one
/// multiplication per `AX` term whose factor is not the constant 1, one
/// addition per term after the first (and per term of a `Saxpy`,
/// `IncDeriv`, `DecDeriv`). Copies and zeroing are free.
pub fn propagation_cost(entries: &[PropagatorEntry]) -> usize {
    let unit = |a: &xaif_schema::model::Expression| {
        matches!(a.vertices.as_slice(),
            [xaif_schema::model::ExpressionVertex::Constant(c)]
                if crate::expr::exact_integer_literal(c) == Some(1))
    };
    entries
        .iter()
        .map(|e| match e {
            PropagatorEntry::SetDeriv { .. }
            | PropagatorEntry::SetNegDeriv { .. }
            | PropagatorEntry::ZeroDeriv(_) => 0,
            PropagatorEntry::IncDeriv { .. } | PropagatorEntry::DecDeriv { .. } => 1,
            PropagatorEntry::Sax { ax, .. } | PropagatorEntry::Saxpy { ax, .. } => {
                let mults = ax.iter().filter(|t| !unit(&t.a)).count();
                let adds = ax.len() - usize::from(matches!(e, PropagatorEntry::Sax { .. }));
                mults + adds
            }
        })
        .sum()
}

/// A derivative propagator computing the derivatives of statement
/// `statement_id` (the id only locates the generated code).
fn propagator(entries: Vec<PropagatorEntry>, statement_id: &str) -> BasicBlockElement {
    BasicBlockElement::DerivativePropagator(DerivativePropagator::of_statement(
        entries,
        statement_id,
    ))
}

fn write_dot(
    dir: &std::path::Path,
    cfg: &str,
    block: &str,
    statement_id: &str,
    graph: &LinearizedGraph,
) -> Result<(), StatementError> {
    let path = dot_path(dir, cfg, block, statement_id);
    crate::dot::write_atomically(&path, &crate::dot::linearized_graph_dot(graph)).map_err(|e| {
        StatementError::input_output(None, format!("cannot write {}: {e}", path.display()))
    })
}

/// `DIR/CFG_BLOCK_STATEMENT.dot`, names reduced to letters, digits and `_`.
fn dot_path(
    dir: &std::path::Path,
    cfg: &str,
    block: &str,
    statement_id: &str,
) -> std::path::PathBuf {
    let clean = |s: &str| -> String {
        s.chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .collect()
    };
    dir.join(format!(
        "{}_{}_{}.dot",
        clean(cfg),
        clean(block),
        clean(statement_id)
    ))
}
