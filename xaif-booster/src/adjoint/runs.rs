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

use xaif_schema::model::{BasicBlockElement, Expression};

use super::hoist::BlockHoist;
use super::recompute::Partials;
use super::taping::{propagator, BlockBuilder, StatementError, StatementTape};
use super::temps::AdjointTemps;
use super::transposed::{adjoint_cost, transposed_propagation};
use crate::block_accumulate::{accumulate_sequence, SequenceCode};
use crate::expr::base_symbol;
use crate::flatten::{FlatSequence, Flattener};
use crate::linearize::Linearization;
use crate::preaccumulate::JacobianRow;
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
    let fail = |e: StatementError| e.at(&first_id);

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
        if let Some(plan) = super::recompute::plan(&seq, b, pool.scope_id) {
            let taped = match taped {
                Some(t) => t,
                None if block => run_jacobian_cost()?.0,
                None => statements_cost(b).0,
            };
            let pushed = || taped_form_pushes(&seq, block, b, hoist, pool.scope_id);
            if super::recompute::chosen(&plan, ctx.options.partials, taped, pushed, hoist) {
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

/// The base symbols the statements of a run assign.
fn assigned_symbols(seq: &FlatSequence) -> HashSet<(String, u64)> {
    seq.statements
        .iter()
        .filter_map(|st| base_symbol(&st.assignment.lhs.reference))
        .map(|(s, c)| (s.to_string(), c))
        .collect()
}

fn block_cost(code: &SequenceCode) -> (usize, usize) {
    adjoint_cost(
        &code.rows,
        code.counts.multiplications + code.counts.additions,
    )
}

/// The reals the taped form (`block`: the run's Jacobian, else every
/// statement's partials) pushes per execution, hoisted entries left out
/// (`riding.rs`, `pushed_entries`).
fn taped_form_pushes(
    seq: &FlatSequence,
    block: bool,
    b: &BlockBuilder,
    hoist: &BlockHoist,
    scope_id: u64,
) -> usize {
    let ctx = b.ctx;
    let mut scratch = TempPool::new(scope_id);
    if block {
        let Ok(code) = accumulate_sequence(
            seq,
            &ctx.options.elimination,
            false,
            &mut scratch,
            ctx.symbols,
        ) else {
            return usize::MAX;
        };
        let definitions: Vec<xaif_schema::model::Assignment> = code
            .before_statement
            .iter()
            .flatten()
            .chain(&code.accumulation)
            .cloned()
            .collect();
        return super::riding::pushed_entries(&code.rows, &definitions, hoist);
    }
    ctx.chains
        .live_statement_accumulations(seq, &mut scratch, ctx.symbols)
        .iter()
        .map(|acc| super::riding::pushed_entries(&acc.rows, &acc.preamble, hoist))
        .sum()
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
