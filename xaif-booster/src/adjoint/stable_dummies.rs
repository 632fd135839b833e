//! Integer dummies the reverse sweep can read as they are: a callee's
//! subscripts made of them need not be taped.
//!
//! A routine's reverse sweep runs inside its callers' reverse sweeps, at
//! the mirrored call, with the arguments the caller passes there. A
//! passive integer scalar dummy that the routine never changes then holds,
//! throughout its reverse sweep, the value its caller passes at the
//! mirrored call. When every call site in the program passes something the
//! caller's reverse sweep has restored to its forward value there (a
//! constant, the index of an enclosing explicitly reversed loop, or a
//! dummy of the caller that is itself stable), the dummy has its forward
//! value in the routine's reverse sweep, and a subscript `u(i)`, `u(i + 1)`
//! needs no tape (flux_tree's `face_flux(u, i, nu, f)` called for every
//! face from `do i`: two integers per face and time step).
//!
//! Decided once for the whole call graph, as the greatest fixed point:
//! every candidate starts stable and is dropped when some call site passes
//! anything else, until nothing changes. A routine without call sites in
//! the program (the top routine, which the driver calls) has no stable
//! dummy; nor has one called as a function in an expression, one called
//! from a passive graph or from a graph with a checkpointed loop (its
//! body's reversal restores the state, not the loop index), or from a
//! graph that does not nest (no explicit loop reversal there).

use std::collections::{HashMap, HashSet};

use xaif_schema::model::{
    ArgumentValue, BasicBlockElement, CallGraph, CallGraphVertex, ControlFlowGraph,
    ControlFlowVertex, Expression, ExpressionVertex, SymbolType, VariableReferenceVertex,
};

use super::callee_effects::CalleeEffects;
use super::explicit_loops::explicit_loops;
use super::structure;
use crate::expr::base_symbol;
use crate::symbols::SymbolIndex;

/// The stable dummies of every routine, as (name, graph scope).
pub fn stable_dummies(
    cg: &CallGraph,
    symbols: &SymbolIndex,
    effects: &HashMap<String, CalleeEffects>,
) -> HashSet<(String, u64)> {
    let graphs: Vec<&ControlFlowGraph> = cg
        .vertices
        .iter()
        .filter_map(|v| match v {
            CallGraphVertex::ControlFlowGraph(c) => Some(c),
            _ => None,
        })
        .collect();
    // Candidates: (routine, position) -> the dummy as (name, scope).
    let mut stable: HashMap<(String, u64), (String, u64)> = HashMap::new();
    for cfg in &graphs {
        let Some(modified) = effects
            .get(cfg.symbol_id.as_str())
            .and_then(|e| e.modified_positions.as_ref())
        else {
            continue;
        };
        let scope = cfg.controlflowgraph_scope_id;
        for a in cfg.argument_list.iter().flatten() {
            let passive_integer = symbols.lookup(scope, &a.symbol_id).is_some_and(|s| {
                s.type_ == SymbolType::Integer && s.shape.rank() == 0 && !s.active && !s.pointer
            });
            if passive_integer && !modified.contains(&a.position) {
                stable.insert(
                    (cfg.symbol_id.to_string(), a.position),
                    (a.symbol_id.to_string(), scope),
                );
            }
        }
    }
    let called_in_expressions = functions_called(&graphs);
    stable.retain(|(r, _), _| !called_in_expressions.contains(r));

    // Every call site with what its caller's reverse sweep restores there.
    struct Site<'g> {
        caller: &'g ControlFlowGraph,
        restored: HashSet<(String, u64)>,
        callee: String,
        arguments: &'g [xaif_schema::model::Argument],
        /// The caller's reverse sweep restores nothing (unstructured,
        /// checkpointed loops, passive): no argument is stable.
        opaque: bool,
    }
    let mut sites = Vec::new();
    for cfg in &graphs {
        let scope = cfg.controlflowgraph_scope_id;
        let checkpointed = cfg.vertices.iter().any(
            |v| matches!(v, ControlFlowVertex::ForLoop(f) if f.annotation.contains("checkpoint")),
        );
        let nesting = structure::nest(&cfg.vertices, &cfg.edges).ok();
        let opaque = !cfg.active || checkpointed || nesting.is_none();
        let restored = match &nesting {
            Some(regions) if !opaque => explicit_loops(&cfg.vertices, regions, symbols, scope).1,
            _ => HashMap::new(),
        };
        for (k, v) in cfg.vertices.iter().enumerate() {
            let ControlFlowVertex::BasicBlock(bb) = v else {
                continue;
            };
            for e in &bb.elements {
                let BasicBlockElement::SubroutineCall(c) = e else {
                    continue;
                };
                let Some(callee) = &c.symbol_id else {
                    continue;
                };
                sites.push(Site {
                    caller: cfg,
                    restored: restored.get(&k).cloned().unwrap_or_default(),
                    callee: callee.to_string(),
                    arguments: &c.arguments,
                    opaque,
                });
            }
        }
    }
    let called: HashSet<&str> = sites.iter().map(|s| s.callee.as_str()).collect();
    stable.retain(|(r, _), _| called.contains(r.as_str()));

    loop {
        let mut dropped = Vec::new();
        for site in &sites {
            for ((routine, position), _) in stable.iter() {
                if *routine != site.callee {
                    continue;
                }
                let actual = site.arguments.iter().find(|a| a.position == *position);
                let ok = !site.opaque
                    && match actual.map(|a| &a.value) {
                        Some(ArgumentValue::Constant(_)) => true,
                        Some(ArgumentValue::Variable(r)) => {
                            let plain = matches!(
                                r.vertices.as_slice(),
                                [VariableReferenceVertex::SymbolReference(_)]
                            );
                            plain
                                && base_symbol(r).is_some_and(|(id, scope)| {
                                    let key = (id.to_string(), scope);
                                    site.restored.contains(&key)
                                        || stable.iter().any(|((caller, _), dummy)| {
                                            *caller == site.caller.symbol_id && *dummy == key
                                        })
                                })
                        }
                        None => false,
                    };
                if !ok {
                    dropped.push((routine.clone(), *position));
                }
            }
        }
        if dropped.is_empty() {
            break;
        }
        for d in dropped {
            stable.remove(&d);
        }
    }
    stable.into_values().collect()
}

/// Names of the functions called in any expression of the graphs.
fn functions_called(graphs: &[&ControlFlowGraph]) -> HashSet<String> {
    let mut out = HashSet::new();
    let mut scan = |e: &Expression| {
        for v in &e.vertices {
            if let ExpressionVertex::FunctionCall(f) = v {
                out.extend(f.symbol_id.as_deref().map(str::to_string));
            }
        }
    };
    for cfg in graphs {
        for v in &cfg.vertices {
            match v {
                ControlFlowVertex::BasicBlock(bb) => {
                    for e in &bb.elements {
                        if let BasicBlockElement::Assignment(a) = e {
                            scan(&a.rhs);
                        }
                    }
                }
                ControlFlowVertex::ForLoop(f) => {
                    for a in [&f.initialization, &f.update].into_iter().flatten() {
                        scan(&a.rhs);
                    }
                    if let Some(c) = &f.condition {
                        scan(c);
                    }
                }
                ControlFlowVertex::If(c)
                | ControlFlowVertex::Branch(c)
                | ControlFlowVertex::PreLoop(c)
                | ControlFlowVertex::PostLoop(c) => {
                    if let Some(c) = &c.condition {
                        scan(c);
                    }
                }
                _ => {}
            }
        }
    }
    out
}
