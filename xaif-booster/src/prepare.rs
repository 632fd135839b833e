//! What both modes do to their input first, whatever front end wrote it:
//! refuse booster output given as input, check and normalise each control
//! flow graph's shape (`cfg_shape`), then scalarise active array-valued
//! assignments (`scalarize`).

use xaif_schema::model::{
    BasicBlockElement, CallGraph, CallGraphVertex, ControlFlowGraph, ControlFlowVertex,
};

use crate::error::BoostError;
use crate::symbols::SymbolIndex;
use xaif_schema::diagnostic::Kind;

pub fn prepare_input(cg: &mut CallGraph) -> Result<(), BoostError> {
    let symbols = SymbolIndex::new(cg);
    for v in &mut cg.vertices {
        if let CallGraphVertex::ReplacementList(list) = v {
            return Err(BoostError {
                statement_id: None,
                cfg_symbol: Some(list.symbol_id.clone()),
                kind: Kind::Semantic,
                message: "booster output (a ReplacementList) in the input: the booster \
                          differentiates original code, once"
                    .into(),
            });
        }
        if let CallGraphVertex::ControlFlowGraph(cfg) = v {
            refuse_booster_output(cfg)?;
            crate::cfg_shape::normalize(cfg)?;
            crate::scalarize::scalarize_cfg(cfg, &symbols)?;
        }
    }
    Ok(())
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
                BasicBlockElement::InlinableSubroutineCall(c) => Some(c.statement_id.clone()),
                _ => continue,
            };
            return Err(BoostError {
                statement_id,
                cfg_symbol: Some(cfg.symbol_id.clone()),
                kind: Kind::Semantic,
                message: "booster output (a derivative propagator or an inlinable call) in the \
                          input: the booster differentiates original code, once"
                    .into(),
            });
        }
    }
    Ok(())
}
