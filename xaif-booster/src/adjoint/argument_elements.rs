//! Joint mode: argument checkpoints of single elements instead of whole
//! arrays, where the code can touch nothing else.
//!
//! A subroutine reversed in joint mode stores on entry what its re-run
//! will read (`arg_store`) and restores it before the re-run
//! (`arg_restore`); by default the back end stores every array argument
//! whole. A routine called once per element of a long array
//! (`flux(u, i, f)` reading `u(i)` and `u(i+1)`) then costs O(n) per
//! call and O(n²) per sweep (issue 11).
//!
//! This pass finds the array dummies whose every reference in the routine
//! is an array element at subscripts the call fixes: made of constants,
//! named constants and passive `intent(in)` scalar dummies (which the
//! routine cannot change, and which the caller restores before the re-run:
//! `taping.rs`, `call`). The elements so named are all the routine can
//! read or write of that array, so storing them is a complete checkpoint.
//! It gives the routine two extra replacements, `arg_store` and
//! `arg_restore` (the restores in reverse order), and marks each argument
//! they cover with the annotation [`ELEMENT_CHECKPOINT`], so that the back
//! end leaves it out of its own whole-array checkpoint.
//!
//! Conservative on purpose: any call that passes the array other than as
//! one element to a scalar dummy (an element actual for an array dummy
//! starts a sequence-associated array), any
//! opaque statement (`Marker`) in the routine, any reference from another
//! routine's code (an internal procedure seeing the dummy by host
//! association) and pointer dummies leave the array to the back end.

use std::collections::{HashMap, HashSet};

use xaif_schema::model::{
    ArgumentValue, BasicBlock, BasicBlockElement, ControlFlowEdge, ControlFlowGraph,
    ControlFlowVertex, Expression, ExpressionVertex, Intent, PlainVertex, Replacement, SymbolType,
    VariableReference,
};

use super::taping::{subscript_expressions, tape_call};
use crate::expr::{base_symbol, variable_key};
use crate::symbols::SymbolIndex;

/// Annotation of an `ArgumentSymbolReference` whose checkpoint is the
/// `arg_store` / `arg_restore` replacements (the back end skips it).
pub const ELEMENT_CHECKPOINT: &str = "checkpoint:elements";

/// The replacements `arg_store` and `arg_restore` of `cfg` and the names
/// of the arguments they cover; `None` when no argument qualifies.
/// `host_referenced`: (symbol, scope) pairs that the code of some graph
/// names in a scope other than its own.
/// `scalar_dummies`: for each subroutine with a control flow graph, the
/// positions of its scalar dummy arguments (an array element passed there
/// is that one element, not the start of a sequence-associated array).
pub fn element_checkpoints(
    cfg: &ControlFlowGraph,
    symbols: &SymbolIndex,
    host_referenced: &HashSet<(String, u64)>,
    scalar_dummies: &HashMap<String, HashSet<u64>>,
) -> Option<(Replacement, Replacement, HashSet<String>)> {
    let args = cfg.argument_list.as_deref()?;
    let scope = cfg.controlflowgraph_scope_id;
    let fixed: HashSet<(String, u64)> = args
        .iter()
        .filter(|a| a.intent == Intent::In)
        .filter(|a| {
            symbols.lookup(scope, &a.symbol_id).is_some_and(|s| {
                !s.active && !s.pointer && s.shape.rank() == 0 && s.type_ == SymbolType::Integer
            })
        })
        .map(|a| (a.symbol_id.to_string(), scope))
        .collect();
    let mut candidates: HashMap<(String, u64), Option<Vec<VariableReference>>> = HashMap::new();
    for a in args {
        let Some(info) = symbols.lookup(scope, &a.symbol_id) else {
            continue;
        };
        let kind_ok = matches!(
            info.type_,
            SymbolType::Real | SymbolType::Integer | SymbolType::Bool
        );
        // Passive `intent(in)` arrays are the call site's business.
        let back_end_stores = info.active || a.intent != Intent::In;
        let key = (a.symbol_id.to_string(), scope);
        if info.shape.rank() > 0
            && kind_ok
            && !info.pointer
            && back_end_stores
            && !host_referenced.contains(&key)
        {
            candidates.insert(key, Some(Vec::new()));
        }
    }
    if candidates.is_empty() {
        return None;
    }
    let mut scan = Scan {
        candidates,
        fixed: &fixed,
        scalar_dummies,
        symbols,
    };
    for v in &cfg.vertices {
        scan.vertex(v);
    }
    let mut covered: Vec<(String, Vec<VariableReference>)> = scan
        .candidates
        .into_iter()
        .filter_map(|((name, _), refs)| refs.map(|r| (name, r)))
        .collect();
    if covered.is_empty() {
        return None;
    }
    covered.sort_by_key(|(name, _)| {
        args.iter()
            .find(|a| a.symbol_id == name)
            .map_or(u64::MAX, |a| a.position)
    });
    let mut stores = Vec::new();
    let mut restores = Vec::new();
    for (name, refs) in &covered {
        let Some(info) = symbols.lookup(scope, name) else {
            continue;
        };
        let kind = match info.type_ {
            SymbolType::Real => "real",
            SymbolType::Integer => "integer",
            _ => "bool",
        };
        let mut seen = HashSet::new();
        for r in refs {
            if !seen.insert(variable_key(r)) {
                continue;
            }
            let id = format!("oad_ckpt_{}", stores.len() + 1);
            stores.push(tape_call(
                &format!("cp_store_{kind}_scalar"),
                ArgumentValue::Variable(r.clone()),
                id.clone(),
            ));
            restores.push(tape_call(
                &format!("cp_restore_{kind}_scalar"),
                ArgumentValue::Variable(r.clone()),
                id,
            ));
        }
    }
    restores.reverse();
    let names = covered.into_iter().map(|(n, _)| n).collect();
    Some((
        one_block("arg_store", stores, scope),
        one_block("arg_restore", restores, scope),
        names,
    ))
}

/// Walks a graph's references, keeping for each candidate array its
/// element references, or `None` once one reference is not such an element.
struct Scan<'a> {
    candidates: HashMap<(String, u64), Option<Vec<VariableReference>>>,
    fixed: &'a HashSet<(String, u64)>,
    scalar_dummies: &'a HashMap<String, HashSet<u64>>,
    symbols: &'a SymbolIndex<'a>,
}

impl Scan<'_> {
    fn vertex(&mut self, v: &ControlFlowVertex) {
        match v {
            ControlFlowVertex::BasicBlock(b) => {
                for e in &b.elements {
                    self.element(e);
                }
            }
            ControlFlowVertex::If(c)
            | ControlFlowVertex::Branch(c)
            | ControlFlowVertex::PreLoop(c)
            | ControlFlowVertex::PostLoop(c) => {
                if let Some(e) = &c.condition {
                    self.expression(e);
                }
            }
            ControlFlowVertex::ForLoop(f) => {
                for a in [&f.initialization, &f.update].into_iter().flatten() {
                    self.reference(&a.lhs.reference);
                    self.expression(&a.rhs);
                }
                if let Some(e) = &f.condition {
                    self.expression(e);
                }
            }
            _ => {}
        }
    }

    fn element(&mut self, e: &BasicBlockElement) {
        match e {
            BasicBlockElement::Assignment(a) => {
                self.reference(&a.lhs.reference);
                self.expression(&a.rhs);
            }
            BasicBlockElement::SubroutineCall(c) => {
                let scalars = c
                    .symbol_id
                    .as_ref()
                    .and_then(|s| self.scalar_dummies.get(s.as_str()));
                for arg in &c.arguments {
                    if let ArgumentValue::Variable(r) = &arg.value {
                        // One element to a scalar dummy is that element;
                        // anything else may reach the whole array.
                        let element_to_scalar = scalars.is_some_and(|p| p.contains(&arg.position))
                            && self.symbols.is_scalar_reference(r);
                        if element_to_scalar {
                            self.reference(r);
                        } else {
                            self.give_up_on(r);
                            for s in subscript_expressions(r) {
                                self.expression(s);
                            }
                        }
                    }
                }
            }
            // Opaque: may name anything.
            BasicBlockElement::Marker(_) => {
                for refs in self.candidates.values_mut() {
                    *refs = None;
                }
            }
            BasicBlockElement::DerivativePropagator(_)
            | BasicBlockElement::InlinableSubroutineCall(_) => {}
        }
    }

    fn expression(&mut self, e: &Expression) {
        for v in &e.vertices {
            match v {
                ExpressionVertex::VariableReference(r) => self.reference(r),
                ExpressionVertex::FunctionCall(f) => {
                    for a in &f.arguments {
                        self.reference(a);
                    }
                }
                _ => {}
            }
        }
    }

    fn reference(&mut self, r: &VariableReference) {
        for s in subscript_expressions(r) {
            self.expression(s);
        }
        let Some(key) = base_symbol(r).map(|(id, scope)| (id.to_string(), scope)) else {
            return;
        };
        let Some(slot) = self.candidates.get_mut(&key) else {
            return;
        };
        let fixed = self.fixed;
        let is_fixed_element = !subscript_expressions(r).is_empty()
            && r.vertices.iter().all(|v| match v {
                xaif_schema::model::VariableReferenceVertex::ArrayElementReference(a) => {
                    a.index_triplets.iter().all(|t| {
                        t.bound.is_none()
                            && t.stride.is_none()
                            && t.index.as_ref().is_some_and(|i| fixed_by_call(i, fixed))
                    })
                }
                _ => true,
            });
        match slot {
            Some(refs) if is_fixed_element => refs.push(r.clone()),
            _ => *slot = None,
        }
    }

    fn give_up_on(&mut self, r: &VariableReference) {
        if let Some((id, scope)) = base_symbol(r) {
            if let Some(slot) = self.candidates.get_mut(&(id.to_string(), scope)) {
                *slot = None;
            }
        }
    }
}

/// Whether a subscript has the same value wherever the routine evaluates
/// it: constants, named constants and `fixed` scalars, combined by
/// intrinsics.
fn fixed_by_call(e: &Expression, fixed: &HashSet<(String, u64)>) -> bool {
    e.vertices.iter().all(|v| match v {
        ExpressionVertex::Constant(_) | ExpressionVertex::Intrinsic(_) => true,
        ExpressionVertex::VariableReference(r) => {
            r.constant
                || (subscript_expressions(r).is_empty()
                    && base_symbol(r)
                        .is_some_and(|(id, scope)| fixed.contains(&(id.to_string(), scope))))
        }
        _ => false,
    })
}

/// A replacement made of one basic block.
fn one_block(placeholder: &str, elements: Vec<BasicBlockElement>, scope: u64) -> Replacement {
    let plain = |id: &str| PlainVertex {
        vertex_id: id.to_string().into(),
        annotation: Default::default(),
    };
    let edge = |id: &str, source: &str, target: &str| ControlFlowEdge {
        edge_id: id.to_string().into(),
        source: source.to_string().into(),
        target: target.to_string().into(),
        annotation: Default::default(),
        has_condition_value: false,
        condition_value: 1,
    };
    Replacement {
        placeholder: placeholder.to_string().into(),
        structured: true,
        vertices: vec![
            ControlFlowVertex::Entry(plain("1")),
            ControlFlowVertex::BasicBlock(BasicBlock {
                vertex_id: "2".into(),
                annotation: Default::default(),
                scope_id: scope,
                elements,
            }),
            ControlFlowVertex::Exit(plain("3")),
        ],
        edges: vec![edge("1", "1", "2"), edge("2", "2", "3")],
    }
}
