//! Snapshot riders: elements a recomputed run reads from an array snapshot
//! that another of its references justifies (`array_snapshots.rs`).
//!
//! A snapshot is taken out of a loop for a reference that *sweeps* the
//! array (every subscript mentions the index of that loop or of a loop
//! inside it). The sweep is a cost guess, not a correctness condition: it
//! says that the loop reads about one element per iteration, so the whole
//! array pushed once after the loop costs about what the per-run pushes
//! would. hllflux's face reads `q1(i)` and `q1(ip)` (`ip = i + 1`, or 1
//! at the periodic end): `q1(ip)` does not mention `i`, so it was taped per
//! face, and `q1(i)`, one reference, was taped per face as well (the
//! two-references rule): 6 reals per face.
//!
//! Once the run reads a sweeping reference of the array from a copy taken
//! out of loop `L`, every other element it reads of that array can come
//! from the same copy at no extra tape, provided the copy holds the value
//! that element had when the run read it: `L` must keep that element from
//! the read to its exit, by the same test as for the sweeping reference
//! (no write of the array in `L`, or the to-be-recorded test on elements,
//! `later_writes.rs`, passed by the rider's own subscripts). The rider's
//! subscripts are restored in the reverse piece like any input's (taped
//! per run when they are not restored loop indices, as the propagation
//! needs them anyway). hllflux: 3 snapshots per step instead of 6 reals
//! per face, the tape halves.
//!
//! What the keeping test refuses, and why it must: a rider whose element a
//! later write of `L` may hit. A predictor-corrector step storing its
//! predictor in level `t+1` of `u(:, 0:nt)` and reading it through a level
//! variable (`u(ip, nxt)`, `nxt = t + 1`) while the sweeping reference
//! `u(i, t)` passes: the copy after the time loop holds the corrector's
//! values, not the predictor the flux read (corpus `snapshot_riders`).

use std::collections::HashSet;

use xaif_schema::model::{ArgumentValue, Assignment, VariableReference};

use super::hoist::BlockHoist;
use super::taping::{atom_value, expression_key};
use crate::preaccumulate::{Factor, JacobianRow};

/// Whether `r`, an element of `symbol` that does not sweep, may read from
/// the copy taken out of loop `l` for a sweeping reference of the same
/// array in the same run.
pub(super) fn rides(
    hoist: &BlockHoist,
    l: usize,
    r: &VariableReference,
    symbol: &(String, u64),
) -> bool {
    hoist.keeps_read(l, r, symbol)
}

/// The reals the taped form of a run pushes per execution: the distinct
/// non-constant entries of `rows` that are not hoisted out of a loop
/// (`definitions` compute the temporaries they read). The cost model's
/// `taped` count includes the hoisted ones (docs/adjoint.md, "Cost
/// model": an asymmetry in favour of recomputation that the choices made
/// before riders were measured with); a choice that only riders make
/// possible is compared with this count instead.
pub(super) fn pushed_entries(
    rows: &[JacobianRow],
    definitions: &[Assignment],
    hoist: &BlockHoist,
) -> usize {
    let mut pushed = HashSet::new();
    for (_, f) in rows.iter().flat_map(|r| &r.entries) {
        let (Factor::Atom(e) | Factor::NegAtom(e)) = f else {
            continue;
        };
        match atom_value(e) {
            Some(ArgumentValue::Constant(_)) => {}
            Some(ArgumentValue::Variable(v)) if hoist.would_hoist(&v, definitions) => {}
            _ => {
                pushed.insert(expression_key(e).unwrap_or_default());
            }
        }
    }
    pushed.len()
}
