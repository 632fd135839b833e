//! The reverse sweep's propagation through a run with a preaccumulated
//! Jacobian (x̄_j += Σ_k J_kj ȳ_k, `super::runs` says why it is right), and
//! the cost of adjoint code with given Jacobian rows. Shared by the runs
//! whose partials are taped (`super::runs`) and those whose partials are
//! recomputed in the reverse sweep (`super::recompute`).

use std::collections::{HashMap, HashSet};

use xaif_schema::model::{ArgumentValue, Ax, PropagatorEntry, VariableReference};

use super::taping::{atom_value, expression_key, increment};
use super::temps::{AdjointTemp, AdjointTemps};
use crate::expr::{base_symbol, variable_key};
use crate::preaccumulate::{Factor, JacobianRow};

/// Terms `f · src%d` of one increment.
type Terms = Vec<(Factor, VariableReference)>;

/// The reverse sweep's propagation through a run with Jacobian `rows`
/// (references already restored): copies of the dependents that may alias
/// an independent or another dependent (latest first), increments of the independents (one entry per
/// independent, all its terms together), then the in-place update of each
/// dependent that only its own row reads (`ȳ = J_yy ȳ`), and the clearing
/// of the dependents no independent can be.
pub(super) fn transposed_propagation(
    rows: &[JacobianRow],
    temps: &mut AdjointTemps,
) -> Vec<PropagatorEntry> {
    let symbol_of = |r: &VariableReference| base_symbol(r).map(|(s, c)| (s.to_string(), c));
    // Per base symbol: the (row, independent key) pairs reading it.
    let mut readers: HashMap<(String, u64), Vec<(usize, String)>> = HashMap::new();
    for (k, row) in rows.iter().enumerate() {
        for (x, _) in &row.entries {
            if let Some(s) = symbol_of(x) {
                readers.entry(s).or_default().push((k, variable_key(x)));
            }
        }
    }
    // Dependents per base symbol: two of them (`a(i)`, `a(j)`) may be one
    // location, whose final value is the later one's.
    let mut dependents_of: HashMap<(String, u64), usize> = HashMap::new();
    for row in rows {
        if let Some(s) = symbol_of(&row.dependent) {
            *dependents_of.entry(s).or_default() += 1;
        }
    }
    let mut clear_after = Vec::new();
    let mut scale_after = Vec::new();
    let mut sources: Vec<Option<VariableReference>> = vec![None; rows.len()];
    // Rows whose entry for their own dependent is applied last, in place.
    let mut in_place = vec![false; rows.len()];
    let mut copied = Vec::new();
    for (k, row) in rows.iter().enumerate() {
        let y = &row.dependent;
        let y_key = variable_key(y);
        let symbol = symbol_of(y);
        let alone = symbol
            .as_ref()
            .is_none_or(|s| dependents_of.get(s).copied().unwrap_or(0) <= 1);
        let reads = symbol.as_ref().and_then(|s| readers.get(s));
        match reads.map(Vec::as_slice) {
            None | Some([]) if alone => {
                // No independent can be y: clear it after the increments.
                clear_after.push(PropagatorEntry::ZeroDeriv(y.clone()));
                sources[k] = Some(y.clone());
            }
            Some([(j, key)]) if alone && *j == k && *key == y_key => {
                // Only y's own row reads y (`s = s + ...`): the other
                // increments read ȳ first, then ȳ = J_yy ȳ in place.
                in_place[k] = true;
                sources[k] = Some(y.clone());
                let factor = row
                    .entries
                    .iter()
                    .find(|(x, _)| variable_key(x) == y_key)
                    .map(|(_, f)| f.clone());
                match factor {
                    Some(Factor::Int(1)) => {}
                    Some(Factor::Int(-1)) => scale_after.push(PropagatorEntry::SetNegDeriv {
                        tgt: y.clone(),
                        src: y.clone(),
                    }),
                    Some(f) => scale_after.push(PropagatorEntry::Sax {
                        ax: vec![Ax {
                            a: f.to_expression(),
                            x: y.clone(),
                        }],
                        y: y.clone(),
                    }),
                    None => scale_after.push(PropagatorEntry::ZeroDeriv(y.clone())),
                }
            }
            // Some independent or another dependent may be y's storage:
            // every increment reads a copy of ȳ taken before y is cleared.
            _ => copied.push(k),
        }
    }
    // Copies latest dependent first: when two dependents are one location
    // at run time, the later (the location's final value) takes its
    // adjoint and clears it, and the earlier, overwritten inside the run,
    // gets zero.
    let mut out = Vec::new();
    for &k in copied.iter().rev() {
        let y = &rows[k].dependent;
        let t = temps.take(AdjointTemp::DerivativeCopy);
        out.push(PropagatorEntry::SetDeriv {
            tgt: t.clone(),
            src: y.clone(),
        });
        out.push(PropagatorEntry::ZeroDeriv(y.clone()));
        sources[k] = Some(t);
    }
    let sources: Vec<VariableReference> = sources
        .into_iter()
        .zip(rows)
        .map(|(s, r)| s.unwrap_or_else(|| r.dependent.clone()))
        .collect();
    // Terms per independent, in order of first appearance.
    let mut order: Vec<(String, VariableReference, Terms)> = Vec::new();
    for (k, (row, src)) in rows.iter().zip(&sources).enumerate() {
        let y_key = variable_key(&row.dependent);
        for (x, f) in &row.entries {
            let key = variable_key(x);
            if in_place[k] && key == y_key {
                continue;
            }
            match order.iter_mut().find(|(k, _, _)| *k == key) {
                Some((_, _, terms)) => terms.push((f.clone(), src.clone())),
                None => order.push((key, x.clone(), vec![(f.clone(), src.clone())])),
            }
        }
    }
    for (_, x, terms) in order {
        match terms.as_slice() {
            [(f, src)] => out.push(increment(&x, f, src)),
            _ => out.push(PropagatorEntry::Saxpy {
                ax: terms
                    .iter()
                    .map(|(f, src)| Ax {
                        a: f.to_expression(),
                        x: src.clone(),
                    })
                    .collect(),
                y: x,
            }),
        }
    }
    out.extend(scale_after);
    out.extend(clear_after);
    out
}

/// Cost of adjoint code with these Jacobian rows after `forward_ops`
/// operations of accumulation: first the reals it tapes (every distinct
/// non-constant entry), then its operations (the accumulation, and per
/// entry an addition in the reverse sweep and a multiplication unless it
/// is ±1). Compared lexicographically: the tape is what limits the size
/// of the problems an adjoint can handle, and on the benchmarks the
/// smaller tape was also the faster code where the tape dominates the
/// run time (docs/benchmarks.md, 23 Nov); where arithmetic dominates
/// (chembox) the extra accumulation cost 13 %.
pub fn adjoint_cost(rows: &[JacobianRow], forward_ops: usize) -> (usize, usize) {
    let mut taped = HashSet::new();
    let mut ops = forward_ops;
    for row in rows {
        for (_, f) in &row.entries {
            ops += 1;
            if !matches!(f, Factor::Int(1) | Factor::Int(-1)) {
                ops += 1;
            }
            if let Factor::Atom(e) | Factor::NegAtom(e) = f {
                if !matches!(atom_value(e), Some(ArgumentValue::Constant(_))) {
                    taped.insert(expression_key(e).unwrap_or_default());
                }
            }
        }
    }
    (taped.len(), ops)
}
