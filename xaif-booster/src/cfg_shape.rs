//! The shape of a control flow graph that both modes rely on, checked
//! (and normalised where the meaning is unambiguous) before anything is
//! transformed, so that XAIF from any front end either goes through or is
//! refused with a named reason:
//!
//! - a graph without vertices (a module's empty body, a declaration-only
//!   unit) is passed through as it is;
//! - otherwise exactly one Entry, at least one Exit, and the Entry leads
//!   to exactly one vertex: several edges from the Entry to the same
//!   vertex are one edge (kept: the first); edges to different vertices,
//!   or none, are refused (control cannot start in two places or nowhere).

use xaif_schema::model::{ControlFlowGraph, ControlFlowVertex};

use crate::error::BoostError;
use xaif_schema::diagnostic::Kind;

/// Whether a graph has no body at all (passed through by both modes).
pub fn is_empty_body(cfg: &ControlFlowGraph) -> bool {
    cfg.vertices.is_empty()
}

/// Checks `cfg` and merges parallel edges leaving its Entry.
pub fn normalize(cfg: &mut ControlFlowGraph) -> Result<(), BoostError> {
    if is_empty_body(cfg) {
        return Ok(());
    }
    let error = |message: String| BoostError {
        statement_id: None,
        cfg_symbol: Some(cfg.symbol_id.to_string()),
        kind: Kind::Semantic,
        message,
    };
    let entries: Vec<&str> = cfg
        .vertices
        .iter()
        .filter(|v| matches!(v, ControlFlowVertex::Entry(_)))
        .map(|v| v.vertex_id())
        .collect();
    let entry = match entries.as_slice() {
        [one] => one.to_string(),
        [] => {
            return Err(error(
                "control flow graph with vertices but no Entry: a graph is either empty \
                 (a module's body) or runs from one Entry"
                    .into(),
            ))
        }
        many => {
            return Err(error(format!(
                "control flow graph with {} Entry vertices: control must start in one place \
                 (paper 001, Definition 1: a unique ENTRY)",
                many.len()
            )))
        }
    };
    if !cfg
        .vertices
        .iter()
        .any(|v| matches!(v, ControlFlowVertex::Exit(_)))
    {
        return Err(error(
            "control flow graph without an Exit (paper 001, Definition 1: a unique EXIT)".into(),
        ));
    }
    let targets: Vec<String> = cfg
        .edges
        .iter()
        .filter(|e| e.source == entry)
        .map(|e| e.target.to_string())
        .collect();
    match targets.as_slice() {
        [] => Err(error(format!(
            "the Entry (vertex {entry}) has no successor: no ControlFlowEdge leaves it, \
             so there is no path to the Exit and the graph has no execution (a control \
             flow graph's ENTRY has exactly one successor: paper 001, Definition 1, which \
             the control flow reversal relies on)"
        ))),
        [_] => Ok(()),
        [first, rest @ ..] if rest.iter().all(|t| t == first) => {
            let mut kept = false;
            cfg.edges.retain(|e| {
                if e.source != entry {
                    return true;
                }
                let keep = !kept;
                kept = true;
                keep
            });
            Ok(())
        }
        _ => Err(error(format!(
            "the Entry (vertex {entry}) has edges to {} different vertices: control \
             cannot start in several places (a control flow graph's ENTRY has exactly one \
             successor: paper 001, Definition 1)",
            {
                let mut t = targets.clone();
                t.sort();
                t.dedup();
                t.len()
            }
        ))),
    }
}
