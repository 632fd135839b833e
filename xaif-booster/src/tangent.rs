//! Tangent mode: every basic block's assignments become
//! `[temporary assignments…, original assignment, DerivativePropagator]`.
//! Subroutine calls, markers and control flow pass through unchanged: the
//! called routines propagate their own derivatives, since active actual
//! arguments are passed as `type(active)`.

use std::path::PathBuf;
use xaif_schema::model::{
    AliasSet, Assignment, BasicBlock, BasicBlockElement, CallGraph, CallGraphVertex,
    ControlFlowGraph, ControlFlowVertex, DerivativePropagator, PropagatorEntry, StmtIdSet,
    SymbolTable,
};

use crate::catalogue::Catalogue;
use crate::linearize::{Linearization, LinearizedGraph, Linearizer};
use crate::preaccumulate::{preaccumulate_statement, OpCounts};
use crate::propagate::row_entries;
use crate::symbols::{temporary_symbol, SymbolIndex};
use crate::temporaries::TempPool;

/// The unit of preaccumulation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Preaccumulation {
    Statement,
    BasicBlock,
}

#[derive(Debug, Clone)]
pub struct TangentOptions {
    pub preaccumulation: Preaccumulation,
    /// Write each linearised graph as Graphviz into this directory.
    pub dot_dir: Option<PathBuf>,
}

/// Counts of one basic block (for `--stats`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlockStats {
    /// Symbol of the control flow graph (subroutine name).
    pub cfg: String,
    pub block: String,
    pub counts: OpCounts,
}

/// A rejected input, with what is needed to point at it in the XAIF file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BoostError {
    pub statement_id: Option<String>,
    pub cfg_symbol: Option<String>,
    pub message: String,
}

impl std::fmt::Display for BoostError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if let Some(cfg) = &self.cfg_symbol {
            write!(f, "in '{cfg}': ")?;
        }
        if let Some(s) = &self.statement_id {
            write!(f, "statement '{s}': ")?;
        }
        f.write_str(&self.message)
    }
}

/// Transforms `cg` in place into tangent-mode XAIF.
pub fn transform_tangent(
    cg: &mut CallGraph,
    catalogue: &Catalogue,
    options: &TangentOptions,
) -> Result<Vec<BlockStats>, BoostError> {
    if options.preaccumulation == Preaccumulation::BasicBlock {
        return Err(BoostError {
            statement_id: None,
            cfg_symbol: None,
            message: "basic-block preaccumulation is not implemented yet \
                      (use --preaccumulation statement)"
                .into(),
        });
    }
    ensure_default_map_keys(cg);
    let mut symbols = SymbolIndex::new(cg);
    let mut stats = Vec::new();
    let mut new_temporaries: Vec<(u64, Vec<String>)> = Vec::new();
    for vertex in &mut cg.vertices {
        let CallGraphVertex::ControlFlowGraph(cfg) = vertex else {
            continue;
        };
        let fail = |message: String, statement_id: Option<String>| BoostError {
            statement_id,
            cfg_symbol: Some(cfg.symbol_id.clone()),
            message,
        };
        if !symbols.has_scope(cfg.controlflowgraph_scope_id) {
            return Err(fail(
                format!(
                    "controlflowgraph_scope_id {} names no scope",
                    cfg.controlflowgraph_scope_id
                ),
                None,
            ));
        }
        let mut pool = TempPool::new(cfg.controlflowgraph_scope_id);
        transform_cfg(cfg, catalogue, &mut symbols, &mut pool, options, &mut stats)?;
        let names: Vec<String> = pool.names().map(str::to_string).collect();
        if !names.is_empty() {
            new_temporaries.push((cfg.controlflowgraph_scope_id, names));
        }
    }
    for (scope_id, names) in new_temporaries {
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
            table
                .symbols
                .extend(names.iter().map(|n| temporary_symbol(n)));
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

fn transform_cfg(
    cfg: &mut ControlFlowGraph,
    catalogue: &Catalogue,
    symbols: &mut SymbolIndex,
    pool: &mut TempPool,
    options: &TangentOptions,
    stats: &mut Vec<BlockStats>,
) -> Result<(), BoostError> {
    let cfg_symbol = cfg.symbol_id.clone();
    for v in &mut cfg.vertices {
        let ControlFlowVertex::BasicBlock(bb) = v else {
            continue;
        };
        let counts = transform_block(bb, catalogue, symbols, pool, options, &cfg_symbol).map_err(
            |(statement_id, message)| BoostError {
                statement_id,
                cfg_symbol: Some(cfg_symbol.clone()),
                message,
            },
        )?;
        stats.push(BlockStats {
            cfg: cfg_symbol.clone(),
            block: bb.vertex_id.clone(),
            counts,
        });
    }
    Ok(())
}

type BlockError = (Option<String>, String);

fn transform_block(
    bb: &mut BasicBlock,
    catalogue: &Catalogue,
    symbols: &mut SymbolIndex,
    pool: &mut TempPool,
    options: &TangentOptions,
    cfg_symbol: &str,
) -> Result<OpCounts, BlockError> {
    let mut counts = OpCounts::default();
    let old = std::mem::take(&mut bb.elements);
    let mut elements = Vec::with_capacity(old.len() * 3);
    for element in old {
        let BasicBlockElement::Assignment(a) = element else {
            elements.push(element);
            continue;
        };
        let linearizer = Linearizer { catalogue, symbols };
        let lin = linearizer
            .linearize_assignment(&a)
            .map_err(|m| (Some(a.statement_id.clone()), m))?;
        match lin {
            Linearization::Passive => elements.push(BasicBlockElement::Assignment(a)),
            Linearization::ZeroDerivative(y) => {
                elements.push(BasicBlockElement::Assignment(a));
                elements.push(propagator(vec![PropagatorEntry::ZeroDeriv(y)]));
            }
            Linearization::Graph(graph) => {
                if let Some(dir) = &options.dot_dir {
                    write_dot(dir, cfg_symbol, &bb.vertex_id, &a, &graph)
                        .map_err(|m| (Some(a.statement_id.clone()), m))?;
                }
                pool.reset();
                let acc = preaccumulate_statement(&graph, &a, pool, symbols);
                counts += acc.counts;
                elements.extend(acc.preamble.into_iter().map(BasicBlockElement::Assignment));
                elements.push(BasicBlockElement::Assignment(a));
                let entries: Vec<PropagatorEntry> = acc.rows.iter().flat_map(row_entries).collect();
                if !entries.is_empty() {
                    elements.push(propagator(entries));
                }
            }
        }
    }
    bb.elements = elements;
    Ok(counts)
}

fn propagator(entries: Vec<PropagatorEntry>) -> BasicBlockElement {
    BasicBlockElement::DerivativePropagator(DerivativePropagator { entries })
}

fn write_dot(
    dir: &std::path::Path,
    cfg: &str,
    block: &str,
    a: &Assignment,
    graph: &LinearizedGraph,
) -> Result<(), String> {
    let clean = |s: &str| -> String {
        s.chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .collect()
    };
    let path = dir.join(format!(
        "{}_{}_{}.dot",
        clean(cfg),
        clean(block),
        clean(&a.statement_id)
    ));
    crate::dot::write_atomically(&path, &crate::dot::linearized_graph_dot(graph))
        .map_err(|e| format!("cannot write {}: {e}", path.display()))
}
