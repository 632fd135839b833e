//! Array snapshots: the arrays a loop only reads, taped once per loop
//! execution for the runs whose partials the reverse sweep recomputes
//! (paper 003 §5.2, TBR and recomputation, applied to a loop rather than
//! to a run).
//!
//! A recomputed run (`recompute.rs`) tapes every value it reads, once per
//! execution: shallow_water's cell reads `h(i-1)`, `h(i)`, `h(i+1)` and
//! the same of `q`, six pushes per cell, although the cell loop writes
//! neither `h` nor `q` and each element is read by three cells. When an
//! enclosing loop does not change an array, the values its iterations read
//! are those the array holds when the loop exits; so the forward sweep
//! pushes the whole array once after the loop (`oad_snap_push`, with its
//! bounds), the reverse sweep pops it into a copy of its own
//! (`oad_snap_N`, allocatable, kept between sweeps) before the reversed
//! loop, and the replay reads `oad_snap_N(i-1)` at the subscripts the run
//! tapes for its propagation anyway. Two values per cell instead of six.
//!
//! Which loop: the outermost enclosing loop (inside the innermost
//! enclosing branch, as for hoisted entries) that cannot change the array
//! (`hoist.rs`, `Changes`: no call, no opaque statement, no assignment to
//! the array at any depth) and that *sweeps* it: every subscript of the
//! reference mentions the index of that loop or of a loop inside it. A
//! reference with a subscript fixed during the loop (`h(i, t)` in a loop
//! over `i` inside the time loop over `t`) reads one column of a big array:
//! copying the whole array per execution would tape far more than the
//! elements read, so it is not snapshot (the run tapes it per execution as
//! before). This is a static guess that the loop's trips cover the array's
//! extent in each swept dimension; a loop over 3 elements of a long array
//! would copy the whole array per execution (correct, but costly).
//!
//! What qualifies: an element (all subscripts scalar) of a real array of
//! rank 1 to 3 (the runtime's `oad_snap_push`/`oad_snap_pop`) that
//! is not a pointer (its target may change through another name), not an
//! assumed-size dummy (no bounds to copy), not a derived-type component
//! path with an array part before the leaf (`cells(1)%h`: no Fortran
//! designator names it whole; `s%h` is fine), with no function call in its
//! subscripts.
//!
//! Stack order: the pushes follow the loop's hoisted values after the loop
//! (guarded by the trip count, `reversal.rs`); the reverse sweep pops them
//! first, before the hoisted values, then runs the reversed loop.
//!
//! Why the copy is exact in every sweep: the values pushed after the loop
//! are the array's values during every iteration (the loop does not change
//! it); the copy is filled right before the reversed loop and nothing
//! between that point and the end of the reversed loop writes it (each
//! copy belongs to one loop, and a loop with a call in it takes no
//! snapshot, so no re-entrant use of the same copy in between). Split
//! mode's second call, joint mode's re-runs and checkpointed loops' turns
//! balance pushes and pops per loop execution like hoisted values.

use std::collections::HashSet;

use xaif_schema::model::{SymbolType, VariableReference, VariableReferenceVertex};

use super::hoist::{reference_has_function_call, BlockHoist, Changes, Snapshot};
use super::later_writes::never_overwritten_after;
use super::riding;
use super::taping::subscript_expressions;
use super::temps::AdjointTemps;
use crate::expr::{base_symbol, symbols_in_expression};

/// The runtime call pushing a whole array with its bounds (argument: the
/// array; the back end adds the bounds).
pub const SNAPSHOT_PUSH: &str = "oad_snap_push";
/// The runtime call popping an array pushed by [`SNAPSHOT_PUSH`] into an
/// allocatable copy, (re)allocated with the pushed bounds.
pub const SNAPSHOT_POP: &str = "oad_snap_pop";

impl BlockHoist<'_, '_> {
    /// The loop out of which `r` (an array element a recomputed run reads)
    /// can be snapshot: the outermost enclosing loop that cannot change
    /// the array and sweeps every subscript.
    fn snapshot_target(&self, r: &VariableReference) -> Option<usize> {
        let (symbol, subscripts) = self.snapshot_element(r)?;
        let h = &*self.hoister;
        let loops = h.enclosing.get(&self.block)?;
        loops.iter().copied().find(|&l| {
            let swept = h
                .loop_indices
                .get(&l)
                .is_some_and(|ix| subscripts.iter().all(|s| s.iter().any(|v| ix.contains(v))));
            swept && self.keeps_read(l, r, &symbol)
        })
    }

    /// The loop out of which `r` can be read from a snapshot when the run
    /// also reads the elements `companions`: its own target
    /// ([`Self::snapshot_target`]), or the target of a companion of the
    /// same array that sweeps, when that loop keeps the element `r` reads
    /// too (`riding.rs`: the sweep is a cost guess, the keeping is what
    /// makes the copy exact).
    pub(super) fn snapshot_target_with(
        &self,
        r: &VariableReference,
        companions: &[&VariableReference],
    ) -> Option<usize> {
        if let Some(l) = self.snapshot_target(r) {
            return Some(l);
        }
        let (symbol, _) = self.snapshot_element(r)?;
        companions
            .iter()
            .filter(|c| {
                base_symbol(c).is_some_and(|(id, scope)| id == symbol.0 && scope == symbol.1)
            })
            .filter_map(|c| self.snapshot_target(c))
            .find(|&l| riding::rides(self, l, r, &symbol))
    }

    /// Whether loop `l` cannot change the element `r` reads between the
    /// read and the loop's exit: it does not write the array, or (TBR,
    /// `later_writes.rs`) writes only elements that differ from the one
    /// read in the same and every later iteration.
    pub(super) fn keeps_read(
        &self,
        l: usize,
        r: &VariableReference,
        symbol: &(String, u64),
    ) -> bool {
        let h = &*self.hoister;
        match h.changes.get(&l) {
            Some(c) if !c.may_change(symbol) => true,
            Some(Changes::Symbols(_)) => h.counted.get(&l).is_some_and(|c| {
                let writes = h.writes.get(&l).map_or(&[][..], |w| w.as_slice());
                never_overwritten_after(r, symbol, writes, c)
            }),
            _ => false,
        }
    }

    /// `r`'s array and the symbols of each subscript, when `r` is an
    /// element a snapshot can hold (module documentation, "What
    /// qualifies").
    #[allow(clippy::type_complexity)]
    fn snapshot_element(
        &self,
        r: &VariableReference,
    ) -> Option<((String, u64), Vec<HashSet<(String, u64)>>)> {
        let h = &*self.hoister;
        let [VariableReferenceVertex::SymbolReference(_), VariableReferenceVertex::ArrayElementReference(a)] =
            r.vertices.as_slice()
        else {
            return None;
        };
        let (id, scope) = base_symbol(r)?;
        let info = h.symbols.lookup(scope, id)?;
        if info.pointer
            || info.assumed_size
            || info.type_ != SymbolType::Real
            || !(1..=3).contains(&info.shape.rank())
            || (id.contains('%') && id.contains('('))
            || a.index_triplets.len() != info.shape.rank()
            || a.index_triplets
                .iter()
                .any(|t| t.index.is_none() || t.bound.is_some() || t.stride.is_some())
            || reference_has_function_call(r)
        {
            return None;
        }
        let subscripts = subscript_expressions(r)
            .into_iter()
            .map(|e| {
                let mut m = Vec::new();
                symbols_in_expression(e, &mut m);
                m.into_iter().collect()
            })
            .collect();
        Some(((id.to_string(), scope), subscripts))
    }

    /// Whether `snapshot` would take `r` from a copy (nothing is recorded),
    /// the run also reading `companions`.
    pub(super) fn would_snapshot(
        &self,
        r: &VariableReference,
        companions: &[&VariableReference],
    ) -> bool {
        self.snapshot_target_with(r, companions).is_some()
    }

    /// Whether `r` would come from a copy another run already takes (the
    /// same array out of the same loop).
    pub(super) fn has_snapshot(
        &self,
        r: &VariableReference,
        companions: &[&VariableReference],
    ) -> bool {
        let Some(target) = self.snapshot_target_with(r, companions) else {
            return false;
        };
        base_symbol(r).is_some_and(|(id, scope)| {
            self.hoister
                .snapshot_of
                .contains_key(&(target, (id.to_string(), scope)))
        })
    }

    /// The whole copy the replay reads `r` from (the array then is pushed
    /// once per execution of the loop found by `snapshot_target_with`), or
    /// `None`: tape `r` per execution of the run.
    pub(super) fn snapshot(
        &mut self,
        r: &VariableReference,
        companions: &[&VariableReference],
        temps: &mut AdjointTemps,
    ) -> Option<VariableReference> {
        let target = self.snapshot_target_with(r, companions)?;
        let (id, scope) = base_symbol(r)?;
        let key = (target, (id.to_string(), scope));
        let h = &mut *self.hoister;
        if let Some(c) = h.snapshot_of.get(&key) {
            return Some(c.clone());
        }
        let shape = h.symbols.lookup(scope, id)?.shape;
        let copy = temps.snapshot_copy(shape);
        let mut array = r.clone();
        array
            .vertices
            .retain(|v| matches!(v, VariableReferenceVertex::SymbolReference(_)));
        array.edges.clear();
        array.deriv = false;
        h.snapshots.entry(target).or_default().push(Snapshot {
            array,
            copy: copy.clone(),
        });
        h.snapshot_of.insert(key, copy.clone());
        Some(copy)
    }
}

/// `element` (a reference with subscripts, already restored for the
/// reverse sweep) read from `copy` instead of its array.
pub(super) fn copy_element(
    element: &VariableReference,
    copy: &VariableReference,
) -> VariableReference {
    let mut out = element.clone();
    let Some(VariableReferenceVertex::SymbolReference(c)) = copy.vertices.first() else {
        return out;
    };
    for v in &mut out.vertices {
        if let VariableReferenceVertex::SymbolReference(s) = v {
            s.symbol_id = c.symbol_id.clone();
            s.scope_id = c.scope_id;
            s.annotation.clear();
        }
    }
    out.active = xaif_schema::model::ActiveUse::False;
    out.deriv = false;
    out
}
