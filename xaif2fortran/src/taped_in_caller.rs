//! Joint mode: which routines with loops are taped in their caller's
//! sweeps (split reversal inside a joint parent) instead of being
//! checkpointed and re-run (docs/adjoint.md, "Taped in the caller").
//!
//! A re-run routine costs one more plain run of it plus its checkpoint;
//! taping it in its caller's forward sweep costs its tape instead, which
//! stays on the tape until the caller's reverse sweep (at once in joint
//! mode). When the tape per call is at most [`TAPE_FACTOR`] times what
//! its checkpoint would store, taping is cheaper in time and costs at most
//! that factor in memory. Both are counted here, in values, from the
//! booster's tape section and the routine's argument list; anything whose
//! count is not known at compile time keeps the routine re-run.

use xaif_schema::{
    ArgumentValue, BasicBlockElement, ControlFlowVertex, Expression, ExpressionVertex, ForLoop,
    Intent, ReplacementList, Symbol, SymbolType, VariableReference, VariableReferenceVertex,
};

use xaif_schema::index::nesting::{nest, Region};

use crate::codegen::cfg_view::CfgView;
use crate::markers::{ELEMENT_CHECKPOINT, SNAPSHOT_PUSH, WRITE_FIRST};
use crate::symbols::XaifIndex;

/// Tape values per call allowed per value of the checkpoint.
pub const TAPE_FACTOR: u64 = 2;

/// Whether the routine of `rl` (which has loops and calls no routine with
/// an adjoint) is taped in its caller: its tape per call has a
/// compile-time bound of at most [`TAPE_FACTOR`] × its checkpoint.
pub fn tape_within_checkpoint(rl: &ReplacementList, index: &XaifIndex) -> bool {
    let Some(tape) = rl.replacements.iter().find(|r| r.placeholder.trim() == "2") else {
        return false;
    };
    if !tape.structured {
        return false;
    }
    let view = CfgView::new(&tape.vertices, &tape.edges);
    let Ok(regions) = nest(&tape.vertices, &tape.edges) else {
        return false;
    };
    let mut count = TapeCount {
        index,
        view: &view,
        vertices: &tape.vertices,
        total: 0,
    };
    if count.regions(&regions, 1).is_none() {
        return false;
    }
    let checkpoint = checkpoint_values(rl, index);
    checkpoint > 0 && count.total <= TAPE_FACTOR.saturating_mul(checkpoint)
}

/// Values the joint checkpoint of the routine stores at least: its active
/// real arguments (whole arrays of known size, scalars, the active real
/// components of a derived-type argument) that are not `intent(out)`,
/// write-first or stored by elements. Globals are left out (a lower
/// bound keeps the test on the safe side).
fn checkpoint_values(rl: &ReplacementList, index: &XaifIndex) -> u64 {
    let mut total = 0u64;
    for arg in rl.argument_list.iter().flatten() {
        let skip = arg.intent == Intent::Out
            || arg.annotation.contains(WRITE_FIRST)
            || arg.annotation.contains(ELEMENT_CHECKPOINT);
        let Some(sym) = index.symbol(arg.scope_id, &arg.symbol_id) else {
            continue;
        };
        if skip {
            continue;
        }
        if sym.type_ == SymbolType::Opaque {
            let prefix = format!("{}%", sym.symbol_id.to_ascii_lowercase());
            for part in index.scope_symbols(arg.scope_id) {
                if part.symbol_id.to_ascii_lowercase().starts_with(&prefix) {
                    total += active_real_values(part).unwrap_or(0);
                }
            }
        } else {
            total += active_real_values(sym).unwrap_or(0);
        }
    }
    total
}

/// Number of values of an active real variable of known size.
fn active_real_values(sym: &Symbol) -> Option<u64> {
    if !sym.active || sym.type_ != SymbolType::Real || sym.pointer {
        return None;
    }
    size(sym)
}

/// Number of elements of a variable with compile-time bounds.
fn size(sym: &Symbol) -> Option<u64> {
    let rank = sym.shape.rank();
    if rank == 0 {
        return Some(1);
    }
    if sym.pointer || sym.dimension_bounds.len() != rank {
        return None;
    }
    sym.dimension_bounds.iter().try_fold(1u64, |acc, d| {
        let extent = u64::try_from((d.upper - d.lower + 1).max(0)).ok()?;
        acc.checked_mul(extent)
    })
}

struct TapeCount<'a, 'c> {
    index: &'a XaifIndex<'a>,
    view: &'a CfgView<'c>,
    vertices: &'c [ControlFlowVertex],
    /// Values pushed per call, so far.
    total: u64,
}

impl TapeCount<'_, '_> {
    /// Counts the pushes of `regions` (the shared nesting of the tape
    /// section), each `times` times. `None`: a push or loop whose count
    /// is unknown (a loop without a counted trip, or left by an exit).
    fn regions(&mut self, regions: &[Region], times: u64) -> Option<()> {
        for region in regions {
            match region {
                Region::Block(k) => {
                    if let ControlFlowVertex::BasicBlock(b) = &self.vertices[*k] {
                        for e in &b.elements {
                            let n = self.pushed(e)?;
                            self.total = self.total.checked_add(n.checked_mul(times)?)?;
                        }
                    }
                }
                // Every edge into an arm runs it.
                Region::Branch { arms, .. } => {
                    for arm in arms {
                        let runs = u64::try_from(arm.edges.len()).ok()?;
                        self.regions(&arm.body, times.checked_mul(runs)?)?;
                    }
                }
                Region::Loop {
                    vertex,
                    body,
                    leading_exit: None,
                    ..
                } => {
                    let ControlFlowVertex::ForLoop(f) = &self.vertices[*vertex] else {
                        return None;
                    };
                    let first = self.view.successor_on(&f.vertex_id, 1)?;
                    let trips = trip_bound(f, self.view, first, self.index)?;
                    self.regions(body, times.checked_mul(trips)?)?;
                }
                Region::Loop { .. } => return None,
            }
        }
        Some(())
    }

    /// Values one statement of the tape section pushes; `None` when the
    /// statement calls a routine or stores something not counted here.
    fn pushed(&self, e: &BasicBlockElement) -> Option<u64> {
        match e {
            BasicBlockElement::Assignment(_)
            | BasicBlockElement::Marker(_)
            | BasicBlockElement::DerivativePropagator(_) => Some(0),
            BasicBlockElement::SubroutineCall(_) => None,
            BasicBlockElement::InlinableSubroutineCall(c) => match c.subroutine_name.as_str() {
                "push_real" | "push_int" => Some(1),
                name if name == SNAPSHOT_PUSH => match c.arguments.first().map(|a| &a.value) {
                    Some(ArgumentValue::Variable(v)) => {
                        let (scope, id) = whole_symbol(v)?;
                        size(self.index.symbol(scope, id)?)
                    }
                    _ => None,
                },
                _ => None,
            },
        }
    }
}

/// The symbol of a reference to a whole variable.
fn whole_symbol(v: &VariableReference) -> Option<(u64, &str)> {
    match v.vertices.as_slice() {
        [VariableReferenceVertex::SymbolReference(s)] => Some((s.scope_id, &s.symbol_id)),
        _ => None,
    }
}

/// An upper bound of the trip count of a counted loop: the extent of an
/// array dimension its body subscripts with `i`, `i + c` or `i - c` (`i`
/// the loop index) in every iteration (a statement of the body outside
/// branches, possibly in an inner loop). Distinct iterations give
/// distinct subscripts, all within the declared bounds. (Cost model only:
/// an inner loop that runs zero times makes it a guess.)
fn trip_bound(f: &ForLoop, view: &CfgView, body: &str, index: &XaifIndex) -> Option<u64> {
    let (_, var) = whole_symbol(&f.initialization.as_ref()?.lhs.reference)?;
    let var = var.to_ascii_lowercase();
    let mut best: Option<u64> = None;
    let mut seen: std::collections::HashSet<&str> = std::collections::HashSet::new();
    let mut todo = vec![body];
    while let Some(cur) = todo.pop() {
        if !seen.insert(cur) || seen.len() > 10_000 {
            continue;
        }
        match view.by_id.get(cur) {
            Some(ControlFlowVertex::BasicBlock(b)) => {
                for e in &b.elements {
                    let BasicBlockElement::Assignment(a) = e else {
                        continue;
                    };
                    let mut refs: Vec<&VariableReference> = vec![&a.lhs.reference];
                    collect_refs(&a.rhs, &mut refs);
                    for r in refs {
                        if let Some(extent) = subscript_extent(r, &var, index) {
                            best = Some(best.map_or(extent, |b| b.min(extent)));
                        }
                    }
                }
                todo.extend(view.single_successor(cur));
            }
            Some(ControlFlowVertex::ForLoop(inner)) if inner.vertex_id != f.vertex_id => {
                todo.extend(view.successor_on(cur, 1));
                todo.extend(view.successor_on(cur, 0));
            }
            Some(ControlFlowVertex::EndLoop(_)) => todo.extend(view.single_successor(cur)),
            // Branches (conditional code), the loop's own header, exits.
            _ => {}
        }
    }
    best
}

fn collect_refs<'e>(x: &'e Expression, out: &mut Vec<&'e VariableReference>) {
    for v in &x.vertices {
        if let ExpressionVertex::VariableReference(r) = v {
            out.push(r);
        }
    }
}

/// The extent of the dimension of `r`'s array that `r` subscripts with
/// the loop variable `var` (plus or minus a constant).
fn subscript_extent(r: &VariableReference, var: &str, index: &XaifIndex) -> Option<u64> {
    let [VariableReferenceVertex::SymbolReference(s), VariableReferenceVertex::ArrayElementReference(el)] =
        r.vertices.as_slice()
    else {
        return None;
    };
    let sym = index.symbol(s.scope_id, &s.symbol_id)?;
    if sym.pointer || sym.dimension_bounds.len() != el.index_triplets.len() {
        return None;
    }
    el.index_triplets
        .iter()
        .zip(&sym.dimension_bounds)
        .filter(|(t, _)| t.bound.is_none() && t.stride.is_none())
        .filter(|(t, _)| t.index.as_ref().is_some_and(|x| is_shifted_index(x, var)))
        .filter_map(|(_, d)| u64::try_from(d.upper - d.lower + 1).ok())
        .min()
}

/// `var`, `var + c` or `var - c` (c an integer literal).
fn is_shifted_index(x: &Expression, var: &str) -> bool {
    let is_var = |v: &ExpressionVertex| match v {
        ExpressionVertex::VariableReference(r) => {
            whole_symbol(r).is_some_and(|(_, id)| id.eq_ignore_ascii_case(var))
        }
        _ => false,
    };
    match x.vertices.as_slice() {
        [v] => is_var(v),
        [a, b, ExpressionVertex::Intrinsic(op)]
            if matches!(op.name.as_str(), "add_scal_scal" | "sub_scal_scal") =>
        {
            // `c - i` as well: any of these maps distinct `i` to distinct
            // subscripts.
            let literal = |v: &ExpressionVertex| matches!(v, ExpressionVertex::Constant(_));
            (is_var(a) && literal(b)) || (literal(a) && is_var(b))
        }
        _ => false,
    }
}
