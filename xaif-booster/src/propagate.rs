//! Tangent propagation: a Jacobian row `d(y) = Σ a_i · d(x_i)` as
//! `DerivativePropagator` entries.
//!
//! Unit factors become `SetDeriv`/`SetNegDeriv`/`IncDeriv`/`DecDeriv`, so no
//! generated statement multiplies by one; the others go into one `Sax` (or
//! a `Saxpy` after the first statement).
//!
//! Correctness when `y` is among the `x_i` (`x = x*sin(x)`, `a(i) = a(j)+1`):
//! a propagator entry is one Fortran assignment whose right-hand side is
//! evaluated before `d(y)` is stored, so an entry may read the `d(y)` it
//! writes. Only the *first* entry of a row may do so, since later ones see
//! the updated `d(y)`. Hence every term whose variable may be the same
//! storage as `y` (same base symbol, whatever the subscripts) goes into the
//! first entry; the remaining terms only read other symbols. A term that is
//! exactly `1 · d(y)` is the identity and needs no entry.

use xaif_schema::model::{Ax, PropagatorEntry, VariableReference};

use crate::expr::{base_symbol, variable_key};
use crate::preaccumulate::{Factor, JacobianRow};

/// The propagator entries of one row.
pub fn row_entries(row: &JacobianRow) -> Vec<PropagatorEntry> {
    let y = &row.dependent;
    if row.entries.is_empty() {
        return vec![PropagatorEntry::ZeroDeriv(y.clone())];
    }
    let y_symbol = base_symbol(y);
    let y_key = variable_key(y);
    let (mut aliased, others): (Vec<_>, Vec<_>) = row
        .entries
        .iter()
        .cloned()
        .partition(|(x, _)| base_symbol(x) == y_symbol);

    let mut out = Vec::new();
    // Whether `d(y)` already holds part of the sum (accumulate from now on).
    let mut started = false;
    if !aliased.is_empty() {
        // `1 · d(y)` with y itself: d(y) already holds that term.
        if let Some(k) = aliased
            .iter()
            .position(|(x, f)| *f == Factor::Int(1) && variable_key(x) == y_key)
        {
            aliased.remove(k);
            started = true;
        }
        if !aliased.is_empty() {
            out.push(first_entry(y, &aliased, started));
            started = true;
        }
    }

    let (units, scaled): (Vec<_>, Vec<_>) = others
        .into_iter()
        .partition(|(_, f)| matches!(f, Factor::Int(1) | Factor::Int(-1)));
    if !scaled.is_empty() {
        let ax = scaled
            .iter()
            .map(|(x, f)| Ax {
                a: f.to_expression(),
                x: x.clone(),
            })
            .collect();
        out.push(if started {
            PropagatorEntry::Saxpy { ax, y: y.clone() }
        } else {
            PropagatorEntry::Sax { ax, y: y.clone() }
        });
        started = true;
    }
    // Positive units first, so a row like `d(y) = d(b) - d(a)` starts
    // with a plain copy.
    let mut units = units;
    units.sort_by_key(|(_, f)| *f != Factor::Int(1));
    for (x, f) in units {
        let plus = f == Factor::Int(1);
        let (tgt, src) = (y.clone(), x);
        out.push(match (started, plus) {
            (false, true) => PropagatorEntry::SetDeriv { tgt, src },
            (false, false) => PropagatorEntry::SetNegDeriv { tgt, src },
            (true, true) => PropagatorEntry::IncDeriv { tgt, src },
            (true, false) => PropagatorEntry::DecDeriv { tgt, src },
        });
        started = true;
    }
    out
}

/// The single entry holding every term that may alias `y`.
fn first_entry(
    y: &VariableReference,
    terms: &[(VariableReference, Factor)],
    accumulate: bool,
) -> PropagatorEntry {
    if let [(x, f)] = terms {
        let (tgt, src) = (y.clone(), x.clone());
        match (accumulate, f) {
            (false, Factor::Int(1)) => return PropagatorEntry::SetDeriv { tgt, src },
            (false, Factor::Int(-1)) => return PropagatorEntry::SetNegDeriv { tgt, src },
            (true, Factor::Int(1)) => return PropagatorEntry::IncDeriv { tgt, src },
            (true, Factor::Int(-1)) => return PropagatorEntry::DecDeriv { tgt, src },
            _ => {}
        }
    }
    let ax = terms
        .iter()
        .map(|(x, f)| Ax {
            a: f.to_expression(),
            x: x.clone(),
        })
        .collect();
    if accumulate {
        PropagatorEntry::Saxpy { ax, y: y.clone() }
    } else {
        PropagatorEntry::Sax { ax, y: y.clone() }
    }
}
