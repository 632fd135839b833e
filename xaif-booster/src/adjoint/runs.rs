//! Basic-block preaccumulation in the adjoint: a maximal run of active
//! assignments of a basic block is flattened into one graph (paper 002,
//! `crate::flatten`), its local Jacobian is accumulated by elimination
//! (`crate::block_accumulate`, as in the tangent mode), and the forward
//! sweep tapes the Jacobian's nonzero entries instead of every statement's
//! partials. The reverse sweep pops them and propagates with the
//! transposed Jacobian: x̄_j += Σ_k J_kj ȳ_k over the run's independents
//! x_j and dependents y_k, the dependents' adjoints cleared first.
//!
//! Why that is right: the run maps the state before it to the state after
//! it; a location u gets ū_before = [u not assigned in the run]·ū_after +
//! Σ_k J_ku ȳ_k,after. Dependents are the assigned values read after the
//! run (du chains); an assigned value nobody reads has a zero adjoint after
//! the run (see `taping`, dead statements), so leaving it alone is the
//! same as clearing it. Each dependent whose base symbol is also the base
//! symbol of an independent (`s = s + ...`, or `a(i)` and `a(j)` that may
//! be one element) is first copied into an active temporary and cleared,
//! so every increment reads ȳ_after whatever aliases at run time; the
//! other dependents cannot be an independent and are cleared after the
//! increments.
//!
//! With `--preaccumulation auto` (the default), each run is costed both
//! ways (`adjoint_cost`: taped reals, then operations) and the cheaper
//! code is emitted.

use std::collections::{HashMap, HashSet};

use xaif_schema::model::{
    ArgumentValue, Ax, BasicBlockElement, Expression, PropagatorEntry, VariableReference,
};

use super::hoist::BlockHoist;
use super::recompute::Partials;
use super::taping::{
    atom_value, expression_key, increment, propagator, BlockBuilder, StatementError, StatementTape,
};
use super::temps::{AdjointTemp, AdjointTemps};
use crate::block_accumulate::{accumulate_sequence, SequenceCode};
use crate::expr::{base_symbol, variable_key};
use crate::flatten::{FlatSequence, Flattener};
use crate::linearize::Linearization;
use crate::preaccumulate::{Factor, JacobianRow};
use crate::tangent::Preaccumulation;
use crate::temporaries::TempPool;

/// Emits the run gathered so far: as one preaccumulated graph when that is
/// chosen, else statement by statement.
pub(super) fn flush_run(
    run: &mut Flattener,
    b: &mut BlockBuilder,
    pool: &mut TempPool,
    temps: &mut AdjointTemps,
    hoist: &mut BlockHoist,
) -> Result<(), StatementError> {
    if run.is_empty() {
        return Ok(());
    }
    let ctx = b.ctx;
    let mut seq = std::mem::take(run).finish();
    // Values whose every read is a later statement of the run are not
    // dependents: those reads are edges of the graph.
    ctx.chains.prune_dependents(&mut seq);
    let first_id = seq.statements[0].assignment.statement_id.clone();
    let fail = |m: String| StatementError::new(Some(first_id.clone()), m);

    // The flattener keeps every subscript of a run unchanged inside it, so
    // the run's subscripts can be taped once, at its last statement.
    let run_jacobian_cost = || -> Result<(usize, usize), StatementError> {
        let mut scratch = TempPool::new(pool.scope_id);
        let code = accumulate_sequence(
            &seq,
            &ctx.options.elimination,
            false,
            &mut scratch,
            ctx.symbols,
        )
        .map_err(fail)?;
        Ok(block_cost(&code))
    };
    let statements_cost = |b: &BlockBuilder| {
        let mut scratch = TempPool::new(pool.scope_id);
        statement_cost(&seq, b, &mut scratch)
    };
    // The taped form: the run's Jacobian or every statement's partials,
    // and the reals it tapes per execution.
    let (block, taped) = match ctx.options.preaccumulation {
        _ if seq.statements.len() == 1 => (false, None),
        Preaccumulation::Statement => (false, None),
        Preaccumulation::BasicBlock => (true, None),
        Preaccumulation::Auto => {
            let (bc, sc) = (run_jacobian_cost()?, statements_cost(b));
            if bc <= sc {
                (true, Some(bc.0))
            } else {
                (false, Some(sc.0))
            }
        }
    };
    // Partials recomputed in the reverse sweep from taped inputs instead
    // (`recompute.rs`); not with statement-level preaccumulation, which
    // keeps every statement's partials taped.
    if ctx.options.partials != Partials::Taped
        && ctx.options.preaccumulation != Preaccumulation::Statement
        && !seq.graph.dependents.is_empty()
    {
        if let Some(plan) = super::recompute::plan(&seq, b) {
            let taped = match taped {
                Some(t) => t,
                None if block => run_jacobian_cost()?.0,
                None => statements_cost(b).0,
            };
            if super::recompute::chosen(&plan, ctx.options.partials, taped, hoist) {
                return super::recompute::emit(&seq, plan, b, pool, temps, hoist);
            }
        }
    }
    if !block {
        for st in &seq.statements {
            b.statement(
                &st.assignment,
                Linearization::Graph(st.graph.clone()),
                pool,
                temps,
                hoist,
            )?;
        }
        return Ok(());
    }

    temps.reset();
    pool.reset();
    let code = accumulate_sequence(&seq, &ctx.options.elimination, false, pool, ctx.symbols)
        .map_err(fail)?;
    let SequenceCode {
        before_statement,
        accumulation,
        rows,
        ..
    } = code;
    let as_elements = |v: Vec<xaif_schema::model::Assignment>| -> Vec<BasicBlockElement> {
        v.into_iter().map(BasicBlockElement::Assignment).collect()
    };
    let n = seq.statements.len();
    // Everything computing the entries, in execution order (loop-invariant
    // entries are followed back to program variables through it).
    let definitions: Vec<xaif_schema::model::Assignment> = before_statement
        .iter()
        .flatten()
        .chain(&accumulation)
        .cloned()
        .collect();
    let mut before = before_statement.into_iter();
    // Every statement but the last: its partials, then itself; nothing in
    // the reverse sweep.
    for st in &seq.statements[..n - 1] {
        b.slot();
        let head = as_elements(before.next().unwrap_or_default());
        b.pieces.push((
            head,
            vec![BasicBlockElement::Assignment(st.assignment.clone())],
            Vec::new(),
        ));
    }
    // The last statement's slot carries the whole run: after it, the
    // accumulation and the pushes of the entries; its reverse piece pops
    // them and propagates.
    let last = &seq.statements[n - 1].assignment;
    let s = b.slot();
    let head = as_elements(before.next().unwrap_or_default());
    let mut tail = vec![BasicBlockElement::Assignment(last.clone())];
    tail.extend(as_elements(accumulation));
    let mut st = StatementTape::new(
        &last.statement_id,
        temps,
        b.untaped,
        Some((&mut b.shared, s)),
    );
    let mut popped: HashMap<String, Expression> = HashMap::new();
    let mut taped_rows = Vec::with_capacity(rows.len());
    for row in &rows {
        let mut entries = Vec::with_capacity(row.entries.len());
        for (x, f) in &row.entries {
            entries.push((
                x.clone(),
                st.taped_factor(f, &mut popped, &definitions, hoist)
                    .map_err(fail)?,
            ));
        }
        taped_rows.push(JacobianRow {
            dependent: row.dependent.clone(),
            entries,
        });
    }
    for row in &taped_rows {
        st.tape_subscripts(&row.dependent);
        for (x, _) in &row.entries {
            st.tape_subscripts(x);
        }
    }
    tail.append(&mut st.forward);
    let restored: Vec<JacobianRow> = taped_rows
        .iter()
        .map(|r| JacobianRow {
            dependent: st.restored(&r.dependent),
            entries: r
                .entries
                .iter()
                .map(|(x, f)| (st.restored(x), f.clone()))
                .collect(),
        })
        .collect();
    let mut piece = st.reverse_pops();
    let entries = transposed_propagation(&restored, st.temps);
    if !entries.is_empty() {
        piece.push(propagator(entries, &st.statement_id));
    }
    b.counts += st.counts;
    drop(st);
    // Subscripts of earlier statements reading a variable the run assigned
    // are final now.
    let written = assigned_symbols(&seq);
    b.shared
        .close(temps, |symbols| symbols.iter().any(|s| written.contains(s)));
    b.pieces.push((head, tail, piece));
    Ok(())
}

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

/// The base symbols the statements of a run assign.
fn assigned_symbols(seq: &FlatSequence) -> HashSet<(String, u64)> {
    seq.statements
        .iter()
        .filter_map(|st| base_symbol(&st.assignment.lhs.reference))
        .map(|(s, c)| (s.to_string(), c))
        .collect()
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

fn block_cost(code: &SequenceCode) -> (usize, usize) {
    adjoint_cost(
        &code.rows,
        code.counts.multiplications + code.counts.additions,
    )
}

/// The same cost for statement-level code of the run (dead statements
/// cost nothing: they get no adjoint).
fn statement_cost(seq: &FlatSequence, b: &BlockBuilder, scratch: &mut TempPool) -> (usize, usize) {
    let ctx = b.ctx;
    let mut cost = (0, 0);
    for acc in ctx
        .chains
        .live_statement_accumulations(seq, scratch, ctx.symbols)
    {
        let (taped, ops) =
            adjoint_cost(&acc.rows, acc.counts.multiplications + acc.counts.additions);
        cost.0 += taped;
        cost.1 += ops;
    }
    cost
}
