//! Whether a loop may overwrite, after a read, the array element the read
//! took its value from: the to-be-recorded question of paper 003 asked of
//! array elements and sections, decided by a dependence test on the
//! subscripts (`array_snapshots.rs` uses it).
//!
//! An array snapshot pushes a whole array once after a loop and lets the
//! reverse sweep read the values the loop's iterations read from that copy.
//! That is exact when the element a read took stays unchanged from the read
//! until the loop exits: the copy then holds what the read saw. Writes to
//! the array *before* the read (in earlier iterations, or earlier in the
//! same iteration) do not matter; only a write that may come after it does.
//!
//! glacier's time loop computes column `t+1` of `h` from column `t`: it
//! writes `h(i, t+1)`, `h(1, t+1)`, `h(n, t+1)` and reads `h(i, t)`,
//! `h(i+1, t)`. In iteration `k` it reads column `k`; every write in an
//! iteration `k' >= k` goes to column `k'+1 > k`. So a copy of `h` after
//! the time loop holds every value the loop read, and nothing needs taping
//! per step.
//!
//! The test, for a read `R` and every write `W` of the same array inside a
//! counted loop `do t = lo, hi, s` (literal step `s`, `t` assigned nowhere
//! in the body), is that some subscript position separates them for every
//! pair of iterations `k' >= k` (the write in the same or a later
//! iteration than the read):
//!
//! - both subscripts are integer literals, and different ones (`c(1, i)`
//!   against `c(2, i)`): never the same element;
//! - both are `t + c` with literal offsets (`t`, `t + 1`, `1 + t`,
//!   `t - 1`), the read at `t + c_r` and the write at `t + c_w`, with
//!   `c_w > c_r` when `s > 0` (a later iteration writes a higher column
//!   than any the read took) or `c_w < c_r` when `s < 0`. Equal offsets are
//!   the same element within one iteration (a write after the read in
//!   program order, or a later statement of the same iteration), so they do
//!   not separate.
//!
//! Anything else is a possible overwrite (conservative): a write of a
//! whole array or a section in the separating position, subscripts that
//! mention other variables there, a write through a call or an opaque
//! statement (the loop's `Changes::Anything`: no snapshot at all), a
//! non-literal step.

use std::collections::HashSet;

use xaif_schema::model::{
    ConstantType, Expression, ExpressionVertex, VariableReference, VariableReferenceVertex,
};

use crate::expr::{exact_integer_literal, variable_key, ExprView};

/// A counted loop's index and literal step (`t = t + s`).
#[derive(Debug, Clone)]
pub struct CountedIndex {
    /// The index (symbol id, scope).
    pub index: (String, u64),
    /// The literal step, never 0.
    pub step: i64,
}

/// One subscript position, as far as the test needs it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Position {
    /// An integer literal.
    Literal(i64),
    /// The loop index plus a literal.
    Index(i64),
    /// Anything else (other variables, a section, a missing index).
    Other,
}

/// The subscript positions of `r` (an array element or section), or `None`
/// for a reference without subscripts (a whole array).
fn positions(r: &VariableReference, index: &(String, u64)) -> Option<Vec<Position>> {
    let a = r.vertices.iter().find_map(|v| match v {
        VariableReferenceVertex::ArrayElementReference(a) => Some(a),
        _ => None,
    })?;
    Some(
        a.index_triplets
            .iter()
            .map(|t| match (&t.index, &t.bound, &t.stride) {
                (Some(e), None, None) => position(e, index),
                _ => Position::Other,
            })
            .collect(),
    )
}

fn position(e: &Expression, index: &(String, u64)) -> Position {
    match affine_offset(e) {
        Some((None, c)) => Position::Literal(c),
        Some((Some(v), c)) if v == *index => Position::Index(c),
        _ => Position::Other,
    }
}

/// A subscript as `v + c` (`v`, `v + c`, `c + v`, `v - c` over a scalar
/// variable `v`, `c` an integer literal, possibly negated) or as a literal
/// `c` (`None` for `v`); `None` for anything else.
pub fn affine_offset(e: &Expression) -> Option<(Option<(String, u64)>, i64)> {
    let view = ExprView::new(e).ok()?;
    let root = view.root().ok()?;
    let variable = |v: usize| match view.vertex(v) {
        ExpressionVertex::VariableReference(r)
            if matches!(
                r.vertices.as_slice(),
                [VariableReferenceVertex::SymbolReference(_)]
            ) =>
        {
            crate::expr::base_symbol(r).map(|(id, scope)| (id.to_string(), scope))
        }
        _ => None,
    };
    if let Some(c) = signed_literal(&view, root) {
        return Some((None, c));
    }
    if let Some(v) = variable(root) {
        return Some((Some(v), 0));
    }
    let ExpressionVertex::Intrinsic(op) = view.vertex(root) else {
        return None;
    };
    let [a, b] = view.args[root].as_slice() else {
        return None;
    };
    let (v, c) = match op.name.as_str() {
        "add_scal_scal" => match (variable(*a), variable(*b)) {
            (Some(v), _) => (v, signed_literal(&view, *b)?),
            (_, Some(v)) => (v, signed_literal(&view, *a)?),
            _ => return None,
        },
        "sub_scal_scal" => (variable(*a)?, signed_literal(&view, *b)?.checked_neg()?),
        _ => return None,
    };
    Some((Some(v), c))
}

/// An integer literal, or the negation of one (`minus_scal(1)`, as the
/// front end writes `-1` in `do t = nt, 1, -1`).
pub(super) fn signed_literal(view: &ExprView, v: usize) -> Option<i64> {
    match (view.vertex(v), view.args[v].as_slice()) {
        (ExpressionVertex::Constant(c), _) if c.type_ == ConstantType::Integer => {
            exact_integer_literal(c)
        }
        (ExpressionVertex::Intrinsic(m), [x]) if m.name == "minus_scal" => {
            signed_literal(view, *x).and_then(i64::checked_neg)
        }
        _ => None,
    }
}

/// Whether no write of `writes` (left-hand sides of assignments at any
/// depth of the loop, any symbol) can store into the element `read` takes,
/// after the read and before the loop exits.
pub fn never_overwritten_after(
    read: &VariableReference,
    symbol: &(String, u64),
    writes: &[VariableReference],
    lp: &CountedIndex,
) -> bool {
    let Some(rp) = positions(read, &lp.index) else {
        return false;
    };
    let mut seen = HashSet::new();
    writes
        .iter()
        .filter(|w| {
            crate::expr::base_symbol(w)
                .is_some_and(|(id, scope)| id == symbol.0 && scope == symbol.1)
        })
        .filter(|w| seen.insert(variable_key(w)))
        .all(|w| {
            let Some(wp) = positions(w, &lp.index) else {
                return false;
            };
            wp.len() == rp.len() && rp.iter().zip(&wp).any(|(r, w)| separated(*r, *w, lp.step))
        })
}

/// Whether one subscript position keeps a write in the same or a later
/// iteration off the element a read took.
fn separated(read: Position, write: Position, step: i64) -> bool {
    match (read, write) {
        (Position::Literal(a), Position::Literal(b)) => a != b,
        (Position::Index(cr), Position::Index(cw)) => {
            (step > 0 && cw > cr) || (step < 0 && cw < cr)
        }
        _ => false,
    }
}
