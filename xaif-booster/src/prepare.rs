//! What both modes do to their input first, whatever front end wrote it:
//! refuse booster output given as input, check and normalise each control
//! flow graph's shape (`cfg_shape`), then scalarise active array-valued
//! assignments (`scalarize`).

use xaif_schema::model::{
    BasicBlockElement, CallGraph, CallGraphVertex, ControlFlowGraph, ControlFlowVertex, Symbol,
    SymbolTable,
};

use crate::error::BoostError;
use crate::symbols::SymbolIndex;
use xaif_schema::diagnostic::Kind;

pub fn prepare_input(cg: &mut CallGraph) -> Result<(), BoostError> {
    let symbols = SymbolIndex::new(&cg.scope_hierarchy)?;
    let mut declare = Vec::new();
    for v in &mut cg.vertices {
        if let CallGraphVertex::ReplacementList(list) = v {
            return Err(BoostError {
                statement_id: None,
                cfg_symbol: Some(list.symbol_id.to_string()),
                kind: Kind::Semantic,
                message: "booster output (a ReplacementList) in the input: the booster \
                          differentiates original code, once (ReplacementList is not an \
                          element of the input schema xaif.xsd, only of xaif_output.xsd)"
                    .into(),
            });
        }
        if let CallGraphVertex::ControlFlowGraph(cfg) = v {
            refuse_booster_output(cfg)?;
            crate::cfg_shape::normalize(cfg)?;
            let indices = crate::scalarize::scalarize_cfg(cfg, &symbols)?;
            declare.push((cfg.controlflowgraph_scope_id, indices));
        }
    }
    for (scope_id, symbols) in declare {
        declare_in_scope(cg, scope_id, symbols);
    }
    Ok(())
}

/// Adds booster-made symbols to a scope's symbol table (once: graphs
/// sharing a scope share them).
fn declare_in_scope(cg: &mut CallGraph, scope_id: u64, symbols: Vec<Symbol>) {
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
    for s in symbols {
        if !table.symbols.iter().any(|t| t.symbol_id == s.symbol_id) {
            table.symbols.push(s);
        }
    }
}

/// Derivative propagators and inlinable calls (tape operations) are what
/// the booster writes: differentiating a program that already holds
/// derivative code would mix two levels of derivatives in one field.
fn refuse_booster_output(cfg: &ControlFlowGraph) -> Result<(), BoostError> {
    for v in &cfg.vertices {
        let ControlFlowVertex::BasicBlock(bb) = v else {
            continue;
        };
        for el in &bb.elements {
            let statement_id = match el {
                BasicBlockElement::DerivativePropagator(_) => None,
                BasicBlockElement::InlinableSubroutineCall(c) => Some(c.statement_id.to_string()),
                _ => continue,
            };
            return Err(BoostError {
                statement_id,
                cfg_symbol: Some(cfg.symbol_id.to_string()),
                kind: Kind::Semantic,
                message: "booster output (a derivative propagator or an inlinable call) in the \
                          input: the booster differentiates original code, once (neither is an \
                          element of the input schema xaif.xsd, only of xaif_output.xsd)"
                    .into(),
            });
        }
    }
    Ok(())
}
