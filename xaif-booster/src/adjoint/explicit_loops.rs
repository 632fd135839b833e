//! Counted loops whose index the reverse sweep can recompute instead of
//! taping it (explicit loop reversal): `do i = lo, hi, c` with a literal
//! step `c` and `i` assigned nowhere in the body (Fortran forbids it
//! anyway). In the reverse sweep, iteration `rctr` of the reversed loop is
//! forward iteration `ctr - rctr`, so it sets `i = lo + (ctr - rctr)*c`
//! (`lo` taped once per loop execution) and the body's adjoint reads
//! subscripts made of such indices directly: they are not taped.

use std::collections::{HashMap, HashSet};

use xaif_schema::model::{
    Assignment, BasicBlockElement, ControlFlowVertex, Expression, ExpressionVertex,
    VariableReference, VariableReferenceVertex,
};

use super::later_writes::signed_literal;
use super::structure::Region;
use crate::expr::{base_symbol, ExprView};
use crate::symbols::SymbolIndex;

/// For each basic block (vertex index), the loop indices restored around it.
pub type RestoredIndices = HashMap<usize, HashSet<(String, u64)>>;

/// A loop reversed explicitly.
#[derive(Debug, Clone)]
pub struct ExplicitLoop {
    pub index: VariableReference,
    /// The initial value expression (`lo`).
    pub start: Expression,
    pub step: i64,
}

/// The explicit loops of a nesting (by loop vertex) and, for each basic
/// block, the loop indices the reverse sweep restores around it.
/// Only local indices (of the graph's scope `scope`) qualify: a call could
/// change a module variable.
pub fn explicit_loops(
    vertices: &[ControlFlowVertex],
    regions: &[Region],
    symbols: &SymbolIndex,
    scope: u64,
) -> (HashMap<usize, ExplicitLoop>, RestoredIndices) {
    let mut loops = HashMap::new();
    let mut restored = HashMap::new();
    let ctx = Walk {
        vertices,
        symbols,
        scope,
    };
    ctx.walk(regions, &mut Vec::new(), &mut loops, &mut restored);
    (loops, restored)
}

struct Walk<'a> {
    vertices: &'a [ControlFlowVertex],
    symbols: &'a SymbolIndex<'a>,
    scope: u64,
}

impl Walk<'_> {
    fn walk(
        &self,
        regions: &[Region],
        enclosing: &mut Vec<(String, u64)>,
        loops: &mut HashMap<usize, ExplicitLoop>,
        restored: &mut RestoredIndices,
    ) {
        for r in regions {
            match r {
                Region::Block(v) => {
                    restored.insert(*v, enclosing.iter().cloned().collect());
                }
                Region::Branch { arms, .. } => {
                    for a in arms {
                        self.walk(&a.body, enclosing, loops, restored);
                    }
                }
                Region::Loop { vertex, body, .. } => {
                    let explicit = match &self.vertices[*vertex] {
                        ControlFlowVertex::ForLoop(f) => counted(f, self.symbols, self.scope)
                            .filter(|l| !assigned_in(self.vertices, body, &l.index)),
                        _ => None,
                    };
                    let key = explicit
                        .as_ref()
                        .and_then(|l| base_symbol(&l.index).map(|(s, k)| (s.to_string(), k)));
                    if let Some(l) = explicit {
                        loops.insert(*vertex, l);
                    }
                    let pushed = key.is_some();
                    enclosing.extend(key);
                    self.walk(body, enclosing, loops, restored);
                    if pushed {
                        enclosing.pop();
                    }
                }
            }
        }
    }
}

/// `i = lo; ...; i = i + c` (or `c + i`, `i - c`) over a scalar integer `i`.
fn counted(
    f: &xaif_schema::model::ForLoop,
    symbols: &SymbolIndex,
    scope: u64,
) -> Option<ExplicitLoop> {
    let init = f.initialization.as_ref()?;
    let update = f.update.as_ref()?;
    let index = &init.lhs.reference;
    let [VariableReferenceVertex::SymbolReference(s)] = index.vertices.as_slice() else {
        return None;
    };
    if s.scope_id != scope {
        return None;
    }
    let info = symbols.lookup(s.scope_id, &s.symbol_id)?;
    if info.type_ != xaif_schema::model::SymbolType::Integer || info.shape.rank() != 0 {
        return None;
    }
    if crate::expr::variable_key(&update.lhs.reference) != crate::expr::variable_key(index) {
        return None;
    }
    let step = step_of(update, index)?;
    Some(ExplicitLoop {
        index: index.clone(),
        start: init.rhs.clone(),
        step,
    })
}

/// The literal step of `index = index + c` (`c + index`, `index - c`).
pub(super) fn step_of(update: &Assignment, index: &VariableReference) -> Option<i64> {
    let view = ExprView::new(&update.rhs).ok()?;
    let root = view.root().ok()?;
    let ExpressionVertex::Intrinsic(op) = view.vertex(root) else {
        return None;
    };
    let [a, b] = view.args[root].as_slice() else {
        return None;
    };
    let is_index = |v: usize| match view.vertex(v) {
        ExpressionVertex::VariableReference(r) => {
            crate::expr::variable_key(r) == crate::expr::variable_key(index)
        }
        _ => false,
    };
    // `do t = nt, 1, -1` arrives as `t = t + minus_scal(1)`.
    let literal = |v: usize| signed_literal(&view, v);
    match op.name.as_str() {
        "add_scal_scal" if is_index(*a) => literal(*b),
        "add_scal_scal" if is_index(*b) => literal(*a),
        "sub_scal_scal" if is_index(*a) => literal(*b).and_then(i64::checked_neg),
        _ => None,
    }
    .filter(|&c| c != 0)
}

/// Whether the body assigns the index or may change it (an opaque
/// statement, or an inner loop using it as its own index). Passing it to
/// a call does not count: Fortran forbids redefining an active DO
/// variable by any means, a callee's dummy included (F2018 11.1.7.4.3),
/// and a callee has no other way to it (only local indices qualify).
/// flux_tree's face loop passes its index to the face routine: its index
/// was taped once per face for nothing.
fn assigned_in(vertices: &[ControlFlowVertex], body: &[Region], index: &VariableReference) -> bool {
    let target = base_symbol(index);
    let touches = |r: &VariableReference| base_symbol(r) == target;
    body.iter().any(|r| match r {
        Region::Block(v) => match &vertices[*v] {
            ControlFlowVertex::BasicBlock(b) => b.elements.iter().any(|e| {
                match e {
                    BasicBlockElement::Assignment(a) => touches(&a.lhs.reference),
                    // Opaque statements (read statements) may assign anything.
                    BasicBlockElement::Marker(_) => true,
                    _ => false,
                }
            }),
            _ => false,
        },
        Region::Branch { arms, .. } => arms.iter().any(|a| assigned_in(vertices, &a.body, index)),
        Region::Loop { vertex, body, .. } => {
            let own = match &vertices[*vertex] {
                ControlFlowVertex::ForLoop(f) => [&f.initialization, &f.update]
                    .into_iter()
                    .flatten()
                    .any(|a| touches(&a.lhs.reference)),
                _ => false,
            };
            own || assigned_in(vertices, body, index)
        }
    })
}
