//! The two sweeps of one basic block: its statements in order, active
//! assignments gathered into runs (`super::runs`) or taped one by one
//! (`super::taping`), calls with their call-site checkpoints, and the
//! reverse pieces assembled in reverse order.

use std::collections::HashSet;

use xaif_schema::model::BasicBlockElement;

use super::hoist::BlockHoist;
use super::runs::flush_run;
use super::taping::{
    BlockBuilder, BlockContext, BlockSweeps, SharedIndices, StatementTape, TapeCounts,
};
use super::temps::AdjointTemps;
use crate::error::StatementError;
use crate::flatten::{changes_own_subscripts, Flattener};
use crate::linearize::{Linearization, Linearizer};
use crate::tangent::Preaccumulation;
use crate::temporaries::TempPool;

/// Builds both sweeps of a basic block.
/// `untaped`: variables the control flow reversal restores around this
/// block (explicitly reversed loop indices); subscripts made only of them
/// (and of bound inquiries, see `untaped_subscript`) are read directly by
/// the reverse sweep. `hoist`: where loop-invariant Jacobian entries of
/// this block go (`hoist.rs`).
///
/// With basic-block preaccumulation (`ctx.options`), maximal runs of
/// active assignments are flattened as in the tangent mode and each run
/// tapes its preaccumulated Jacobian (`super::runs`); otherwise, and for
/// runs where statement-level code is cheaper, each statement tapes its
/// own local partials.
pub fn reverse_block(
    elements: &[BasicBlockElement],
    ctx: &BlockContext,
    untaped: &HashSet<(String, u64)>,
    pool: &mut TempPool,
    temps: &mut AdjointTemps,
    hoist: &mut BlockHoist,
) -> Result<BlockSweeps, StatementError> {
    temps.reset_block();
    let mut b = BlockBuilder {
        ctx,
        untaped,
        shared: SharedIndices::default(),
        pieces: Vec::new(),
        counts: TapeCounts::default(),
    };
    let block_mode = ctx.options.preaccumulation != Preaccumulation::Statement;
    let mut run = Flattener::new();
    for element in elements {
        match element {
            BasicBlockElement::Assignment(a) => {
                let linearizer = Linearizer {
                    catalogue: ctx.catalogue,
                    symbols: ctx.symbols,
                };
                let lin = linearizer
                    .linearize_assignment(a)
                    .map_err(|e| e.at(&a.statement_id))?;
                // A statement changing its own subscripts is taped alone
                // (its subscripts are pushed before it).
                let flattened = block_mode
                    && matches!(&lin, Linearization::Graph(g) if !changes_own_subscripts(a, g));
                match lin {
                    Linearization::Graph(g) if flattened => {
                        if let Err((a, g)) = run.try_append(a.clone(), g) {
                            flush_run(&mut run, &mut b, pool, temps, hoist)?;
                            let id = a.statement_id.clone();
                            if run.try_append(a, g).is_err() {
                                return Err(StatementError::internal(
                                    Some(id.to_string()),
                                    "internal error: a new graph rejected a statement",
                                ));
                            }
                        }
                    }
                    lin => {
                        flush_run(&mut run, &mut b, pool, temps, hoist)?;
                        b.statement(a, lin, pool, temps, hoist)?;
                    }
                }
            }
            BasicBlockElement::SubroutineCall(c) => {
                flush_run(&mut run, &mut b, pool, temps, hoist)?;
                // The callee may change any variable.
                b.shared.close(temps, |_| true);
                temps.reset();
                b.slot();
                let mut st = StatementTape::new(&c.statement_id, temps, untaped, None);
                let piece = st.call(c, ctx)?;
                b.counts += st.counts;
                b.pieces.push((st.forward, Vec::new(), piece));
            }
            // Opaque statements (I/O, allocation, ...) run forward; the
            // reverse sweep gets a mirror marker at their position (the
            // back end re-allocates/deallocates there). They may change
            // any variable.
            BasicBlockElement::Marker(m) => {
                flush_run(&mut run, &mut b, pool, temps, hoist)?;
                b.shared.close(temps, |_| true);
                b.slot();
                b.pieces.push((
                    vec![element.clone()],
                    Vec::new(),
                    vec![super::mirror::mirror_marker(m)],
                ));
            }
            BasicBlockElement::DerivativePropagator(_)
            | BasicBlockElement::InlinableSubroutineCall(_) => {
                return Err(StatementError::new(
                    None,
                    "booster output (derivative propagator or inlinable call) in the input",
                ))
            }
        }
    }
    flush_run(&mut run, &mut b, pool, temps, hoist)?;
    b.shared.close(temps, |_| true);
    let BlockBuilder {
        mut shared,
        pieces,
        mut counts,
        ..
    } = b;
    counts += shared.counts;
    let mut sweeps = BlockSweeps {
        tape: counts,
        ..BlockSweeps::default()
    };
    let mut reverse_pieces = Vec::with_capacity(pieces.len());
    for (s, (head, tail, piece)) in pieces.into_iter().enumerate() {
        sweeps.forward.extend(head);
        sweeps.forward.append(&mut shared.pushes[s]);
        sweeps.forward.extend(tail);
        let mut reverse: Vec<BasicBlockElement> = shared.pops[s].drain(..).rev().collect();
        reverse.extend(piece);
        reverse_pieces.push(reverse);
    }
    sweeps.reverse = reverse_pieces.into_iter().rev().flatten().collect();
    Ok(sweeps)
}
