//! Joint mode: array dummies a routine writes before it reads them need
//! no argument checkpoint.
//!
//! A routine re-run in the joint reverse sweep starts from the checkpoint
//! of what it reads (docs/adjoint.md, "What the joint mode does not
//! re-run"); the back end stores every array argument whole. A work array
//! the routine fills before it reads it (`hn(i,j) = f(h)` over the grid,
//! then `h(i,j) = hn(i,j)` over the same grid: the stencil idiom of
//! `bench/programs/assoc_plain`) is never read at its entry value, so its
//! checkpoint is a copy of the whole array for nothing, twice per call.
//!
//! The test is a must-write-before-read on elements, conservative on
//! purpose. A dummy qualifies when
//! - a loop nest at the routine's top level (executed unconditionally,
//!   perfectly nested, no exit, its innermost body basic blocks only)
//!   writes `a(i, j)`, the subscripts exactly its loop indices, before any
//!   reference to `a` in that nest, and
//! - every later reference to `a` is that element, `a(i, j)`, inside loops
//!   over the same indices with the same bounds, and
//! - the bounds are made of named constants and variables of the routine
//!   that nothing in it assigns or passes to a call.
//!
//! Anything it cannot see through gives up on the array: a reference
//! before the writing nest, any other subscript, a call that is passed the
//! array, an opaque statement (`Marker`) anywhere in the routine, a
//! reference from another routine's code (host association), pointers.
//! The argument gets the annotation [`WRITE_FIRST`], which the back end
//! reads as "store nothing".

use std::collections::{HashMap, HashSet};

use xaif_schema::model::{
    ArgumentValue, Assignment, BasicBlockElement, ControlFlowGraph, ControlFlowVertex, Expression,
    ExpressionVertex, Intent, SymbolType, VariableReference,
};

use super::structure::{nest, Region};
use super::taping::subscript_expressions;
use crate::expr::{base_symbol, variable_key, ExprView};
use crate::symbols::SymbolIndex;

/// Annotation of an `ArgumentSymbolReference` the routine writes before
/// it reads: no checkpoint (the back end skips it).
pub const WRITE_FIRST: &str = "checkpoint:write-first";

/// One loop of a nest: its index and the keys of its initialisation,
/// condition and update (equal signatures: the same index range).
#[derive(Debug, Clone, PartialEq, Eq)]
struct LoopSignature {
    index: String,
    parts: Vec<String>,
}

/// What is known of one candidate array.
#[derive(Debug, Default)]
struct Candidate {
    /// Elements written by a top-level nest, with the nest's loops.
    written: Vec<(String, Vec<LoopSignature>)>,
    failed: bool,
}

/// The array dummies of `cfg` that it writes before it reads them.
/// `host_referenced`: (symbol, scope) pairs that some graph names in a
/// scope other than its own.
pub fn write_first_dummies(
    cfg: &ControlFlowGraph,
    symbols: &SymbolIndex,
    host_referenced: &HashSet<(String, u64)>,
) -> HashSet<String> {
    let Some(args) = cfg.argument_list.as_deref() else {
        return HashSet::new();
    };
    let scope = cfg.controlflowgraph_scope_id;
    let mut candidates: HashMap<(String, u64), Candidate> = args
        .iter()
        .filter(|a| {
            symbols.lookup(scope, &a.symbol_id).is_some_and(|s| {
                s.shape.rank() > 0
                    && !s.pointer
                    && matches!(s.type_, SymbolType::Real | SymbolType::Integer)
                    && (s.active || a.intent != Intent::In)
            }) && !host_referenced.contains(&(a.symbol_id.to_string(), scope))
        })
        .map(|a| ((a.symbol_id.to_string(), scope), Candidate::default()))
        .collect();
    if candidates.is_empty() {
        return HashSet::new();
    }
    let Ok(regions) = nest(&cfg.vertices, &cfg.edges) else {
        return HashSet::new();
    };
    let Some(fixed) = unchanged_variables(cfg, scope) else {
        return HashSet::new();
    };
    let mut walk = Walk {
        cfg,
        candidates: &mut candidates,
        fixed: &fixed,
        loops: Vec::new(),
    };
    walk.sequence(&regions, true);
    candidates
        .into_iter()
        .filter(|(_, c)| !c.failed && !c.written.is_empty())
        .map(|((name, _), _)| name)
        .collect()
}

/// The variables of the routine's own scope that nothing in it assigns
/// or passes to a call; `None` when the routine has an opaque statement.
fn unchanged_variables(cfg: &ControlFlowGraph, scope: u64) -> Option<Fixed> {
    let mut changed = HashSet::new();
    let mut calls = false;
    for v in &cfg.vertices {
        match v {
            ControlFlowVertex::BasicBlock(b) => {
                for e in &b.elements {
                    match e {
                        BasicBlockElement::Assignment(a) => changed.extend(assigned(a)),
                        BasicBlockElement::SubroutineCall(c) => {
                            calls = true;
                            for arg in &c.arguments {
                                if let ArgumentValue::Variable(r) = &arg.value {
                                    changed.extend(base_symbol(r).map(key));
                                }
                            }
                        }
                        BasicBlockElement::Marker(_) => return None,
                        BasicBlockElement::DerivativePropagator(_)
                        | BasicBlockElement::InlinableSubroutineCall(_) => {}
                    }
                }
            }
            ControlFlowVertex::ForLoop(f) => {
                for a in [&f.initialization, &f.update].into_iter().flatten() {
                    changed.extend(assigned(a));
                }
            }
            _ => {}
        }
    }
    Some(Fixed {
        changed,
        calls,
        scope,
    })
}

fn assigned(a: &Assignment) -> Option<(String, u64)> {
    base_symbol(&a.lhs.reference).map(key)
}

fn key((id, scope): (&str, u64)) -> (String, u64) {
    (id.to_string(), scope)
}

/// Which variables keep their value through the routine.
struct Fixed {
    changed: HashSet<(String, u64)>,
    calls: bool,
    scope: u64,
}

impl Fixed {
    /// Whether `e` has the same value wherever the routine evaluates it,
    /// but for `index` (the loop's own index).
    fn holds(&self, e: &Expression, index: &str) -> bool {
        e.vertices.iter().all(|v| match v {
            ExpressionVertex::Constant(_)
            | ExpressionVertex::Intrinsic(_)
            | ExpressionVertex::BooleanOperation(_) => true,
            ExpressionVertex::VariableReference(r) => {
                if r.constant {
                    return true;
                }
                let Some((id, scope)) = base_symbol(r) else {
                    return false;
                };
                subscript_expressions(r).is_empty()
                    && (variable_key(r) == index
                        || (!self.changed.contains(&(id.to_string(), scope))
                            && (!self.calls || scope == self.scope)))
            }
            _ => false,
        })
    }
}

struct Walk<'a> {
    cfg: &'a ControlFlowGraph,
    candidates: &'a mut HashMap<(String, u64), Candidate>,
    fixed: &'a Fixed,
    /// The loops around the current position, outermost first; `None` for
    /// one whose range is not fixed.
    loops: Vec<Option<LoopSignature>>,
}

impl Walk<'_> {
    fn sequence(&mut self, regions: &[Region], top: bool) {
        for r in regions {
            match r {
                Region::Block(b) => self.block(*b, None),
                Region::Branch { vertex, arms } => {
                    self.condition(*vertex);
                    for arm in arms {
                        self.sequence(&arm.body, false);
                    }
                }
                Region::Loop {
                    vertex,
                    body,
                    leading_exit,
                    ..
                } => {
                    let signature = self.signature(*vertex);
                    self.loop_header(*vertex);
                    if let Some(t) = leading_exit {
                        self.condition(t.test);
                    }
                    let writing = top && leading_exit.is_none() && self.perfect_nest(body);
                    self.loops.push(signature);
                    if writing && self.loops.iter().all(Option::is_some) {
                        self.writing_nest(body);
                    } else {
                        self.sequence(body, false);
                    }
                    self.loops.pop();
                }
            }
        }
    }

    /// A top-level nest whose innermost body is basic blocks only: its
    /// writes of `a(i, j)` at its own indices cover those elements.
    fn writing_nest(&mut self, body: &[Region]) {
        match self.without_empty_blocks(body).as_slice() {
            [Region::Loop {
                vertex,
                body: inner,
                ..
            }] => {
                let signature = self.signature(*vertex);
                self.loop_header(*vertex);
                let complete = signature.is_some();
                self.loops.push(signature);
                if complete {
                    self.writing_nest(inner);
                } else {
                    self.sequence(inner, false);
                }
                self.loops.pop();
            }
            _ => {
                for r in body {
                    if let Region::Block(b) = r {
                        let nest: Vec<LoopSignature> =
                            self.loops.iter().flatten().cloned().collect();
                        self.block(*b, Some(&nest));
                    }
                }
            }
        }
    }

    /// Whether `body` is a perfect nest ending in basic blocks, no exits
    /// (empty basic blocks between the loops aside).
    fn perfect_nest(&self, body: &[Region]) -> bool {
        match self.without_empty_blocks(body).as_slice() {
            [Region::Loop {
                body: inner,
                leading_exit: None,
                ..
            }] => self.perfect_nest(inner),
            _ => body.iter().all(|r| matches!(r, Region::Block(_))),
        }
    }

    fn without_empty_blocks<'r>(&self, regions: &'r [Region]) -> Vec<&'r Region> {
        regions
            .iter()
            .filter(|r| match r {
                Region::Block(b) => !matches!(
                    &self.cfg.vertices[*b],
                    ControlFlowVertex::BasicBlock(block) if block.elements.is_empty()
                ),
                _ => true,
            })
            .collect()
    }

    fn signature(&self, vertex: usize) -> Option<LoopSignature> {
        let ControlFlowVertex::ForLoop(f) = &self.cfg.vertices[vertex] else {
            return None;
        };
        let (init, condition, update) = (
            f.initialization.as_ref()?,
            f.condition.as_ref()?,
            f.update.as_ref()?,
        );
        let index = variable_key(&init.lhs.reference);
        if variable_key(&update.lhs.reference) != index
            || !self.fixed.holds(&init.rhs, &index)
            || !self.fixed.holds(condition, &index)
            || !self.fixed.holds(&update.rhs, &index)
        {
            return None;
        }
        let parts = [&init.rhs, condition, &update.rhs]
            .into_iter()
            .map(expression_key)
            .collect::<Option<Vec<_>>>()?;
        Some(LoopSignature { index, parts })
    }

    fn loop_header(&mut self, vertex: usize) {
        if let ControlFlowVertex::ForLoop(f) = &self.cfg.vertices[vertex] {
            for a in [&f.initialization, &f.update].into_iter().flatten() {
                self.expression(&a.rhs);
            }
            if let Some(c) = &f.condition {
                self.expression(c);
            }
        }
    }

    fn condition(&mut self, vertex: usize) {
        let condition = match &self.cfg.vertices[vertex] {
            ControlFlowVertex::If(c)
            | ControlFlowVertex::Branch(c)
            | ControlFlowVertex::PreLoop(c)
            | ControlFlowVertex::PostLoop(c) => c.condition.as_ref(),
            _ => None,
        };
        if let Some(e) = condition {
            self.expression(e);
        }
    }

    /// The statements of a basic block in order; `nest`: the loops of the
    /// top-level nest it is the innermost body of.
    fn block(&mut self, b: usize, nest: Option<&[LoopSignature]>) {
        let ControlFlowVertex::BasicBlock(block) = &self.cfg.vertices[b] else {
            return;
        };
        for e in &block.elements {
            match e {
                BasicBlockElement::Assignment(a) => {
                    self.expression(&a.rhs);
                    for s in subscript_expressions(&a.lhs.reference) {
                        self.expression(s);
                    }
                    self.write(&a.lhs.reference, nest);
                }
                BasicBlockElement::SubroutineCall(c) => {
                    for arg in &c.arguments {
                        if let ArgumentValue::Variable(r) = &arg.value {
                            for s in subscript_expressions(r) {
                                self.expression(s);
                            }
                            self.give_up_on(r);
                        }
                    }
                }
                _ => {}
            }
        }
    }

    fn write(&mut self, r: &VariableReference, nest: Option<&[LoopSignature]>) {
        let Some(slot) = base_symbol(r).and_then(|b| self.candidates.get_mut(&key(b))) else {
            return;
        };
        let Some(nest) = nest else {
            return;
        };
        // Subscripts exactly the nest's indices, each once.
        let subscripts = subscript_expressions(r);
        let indices: Vec<Option<String>> = subscripts
            .iter()
            .map(|s| match s.vertices.as_slice() {
                [ExpressionVertex::VariableReference(v)] => Some(variable_key(v)),
                _ => None,
            })
            .collect();
        let mut seen = HashSet::new();
        let exact = indices.len() == nest.len()
            && indices.iter().all(|i| {
                i.as_ref()
                    .is_some_and(|i| nest.iter().any(|l| &l.index == i) && seen.insert(i.clone()))
            });
        if exact {
            slot.written.push((variable_key(r), nest.to_vec()));
        }
    }

    fn expression(&mut self, e: &Expression) {
        for v in &e.vertices {
            match v {
                ExpressionVertex::VariableReference(r) => self.read(r),
                ExpressionVertex::FunctionCall(f) => {
                    for a in &f.arguments {
                        self.give_up_on(a);
                    }
                }
                _ => {}
            }
        }
    }

    /// A read of a candidate: covered when a top-level nest before wrote
    /// this element and the loops around the read run over its range.
    fn read(&mut self, r: &VariableReference) {
        for s in subscript_expressions(r) {
            self.expression(s);
        }
        let Some(slot) = base_symbol(r).and_then(|b| self.candidates.get_mut(&key(b))) else {
            return;
        };
        let k = variable_key(r);
        let around = &self.loops;
        let covered = slot.written.iter().any(|(w, nest)| {
            *w == k
                && nest
                    .iter()
                    .all(|l| around.iter().any(|a| a.as_ref() == Some(l)))
        });
        if !covered {
            slot.failed = true;
        }
    }

    fn give_up_on(&mut self, r: &VariableReference) {
        if let Some(slot) = base_symbol(r).and_then(|b| self.candidates.get_mut(&key(b))) {
            slot.failed = true;
        }
    }
}

/// A structural key of an expression (ids ignored).
fn expression_key(e: &Expression) -> Option<String> {
    let view = ExprView::new(e).ok()?;
    let root = view.root().ok()?;
    Some(view.key(root))
}
