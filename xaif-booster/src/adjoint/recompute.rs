//! Recomputed partials (paper 003 §5.2: what to record, and recomputation
//! instead of storage). By default the adjoint computes a run's partials
//! in the forward sweep and tapes them (`runs.rs`, `taping.rs`). For a run
//! with many partials and few inputs the tape is cheaper the other way
//! round: the forward sweep pushes the values the run reads before it
//! assigns them, and the reverse piece pops them into temporaries, replays
//! the run's statements on those temporaries, computes the partials there
//! and propagates with them.
//!
//! Why the replay computes what the forward sweep computed. The flattener
//! guarantees that a run does not change the variables its subscripts read
//! and reads every variable either before or after all its assignments in
//! the run; here a run is also refused when it assigns a symbol that it
//! names through two different references (`a(i)` and `a(j)`, possibly one
//! element; `c(1, i)` and `c(2, i)`, different literals in one position,
//! are distinct elements and allowed), so every reference of the run names one location
//! for the whole run and distinct references of a symbol it assigns name
//! distinct locations.
//! Each reference gets one temporary: a value read before the run assigns
//! it is its value at the run's start (taped there: inputs), every later
//! read sees the temporary the replayed assignment wrote. The replay thus
//! reads what the statements read, in the same order, and only the tape:
//! no program variable is read in the reverse sweep except named constants
//! and loop indices the control flow reversal restores (`untaped`), which
//! is what makes it independent of what the program does to its variables
//! between the forward and the reverse sweep (split mode's second call,
//! joint mode's re-runs, checkpointed loops' turns). Inputs invariant in an
//! enclosing loop are taped once per loop execution (`hoist.rs`).
//!
//! Cost model (`--partials auto`): the partials and the propagation cost
//! the same in both forms (computed in the forward sweep or in the
//! reverse); recomputation adds the replay of the statements' values and
//! saves the difference in taped values. One push and its pop are
//! counted as [`PUSH_POP_COST`] operations (a real written to and read
//! back from memory that is not in cache on the big tapes), the replay
//! by [`operation_cost`]. A run is recomputed when
//! `PUSH_POP_COST · taped(B) + replay < PUSH_POP_COST · taped(A)`.

use std::collections::{HashMap, HashSet};

use xaif_schema::model::{
    Assignment, AssignmentLhs, BasicBlockElement, Expression, ExpressionVertex, SymbolType,
    VariableReference,
};

use super::array_snapshots::copy_element;
use super::hoist::BlockHoist;
use super::later_writes::affine_offset;
use super::reciprocals::share_reciprocals;
use super::taping::{
    propagator, subscript_expressions, BlockBuilder, StatementError, StatementTape,
};
use super::temps::{AdjointTemp, AdjointTemps};
use super::transposed::{adjoint_cost, transposed_propagation};
use crate::block_accumulate::accumulate_sequence;
use crate::expr::{
    base_symbol, exact_integer_literal, symbols_in_expression, variable_key, ExprView,
};
use crate::flatten::FlatSequence;
use crate::preaccumulate::{accumulate_reverse, Factor, FactorCode, JacobianRow, OpCounts};
use crate::temporaries::TempPool;

/// Where the reverse sweep gets a run's partials from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Partials {
    /// Computed in the forward sweep and taped (the code before this
    /// option existed).
    Taped,
    /// Recomputed in the reverse sweep from taped inputs wherever a run
    /// allows it (for testing the recomputation everywhere).
    Recomputed,
    /// Per run, whichever the cost model finds cheaper.
    Auto,
}

/// One push and its pop, in the units of [`operation_cost`].
pub const PUSH_POP_COST: usize = 8;

/// The cost of evaluating one intrinsic once: 1 for additions,
/// multiplications, min, max, abs; more for a division, a square root and
/// the transcendental functions (latencies of a current x86 core, in
/// additions, rounded).
pub fn operation_cost(intrinsic: &str) -> usize {
    let base = intrinsic.split('_').next().unwrap_or(intrinsic);
    match base {
        "div" | "mod" => 4,
        "sqrt" => 6,
        "exp" | "ln" | "log" | "log10" | "pow" | "sin" | "cos" | "tan" | "arcsin" | "arccos"
        | "arctan" | "arctan2" | "sinh" | "cosh" | "tanh" | "asin" | "acos" | "atan" | "atan2"
        | "erf" | "erfc" => 20,
        _ => 1,
    }
}

/// What recomputing a run needs: its inputs and the cost of replaying it.
pub(super) struct ReplayPlan {
    /// References read before the run assigns them, in first-read order,
    /// and whether they are integers.
    inputs: Vec<(VariableReference, bool)>,
    /// [`operation_cost`] of the statements' right-hand sides.
    pub(super) replay_ops: usize,
    /// Per statement: whether the replay computes its value (the partials,
    /// or a replayed later statement, read it). A value nobody in the
    /// reverse piece reads is not replayed, and an input only such values
    /// read is not taped: glacier's update `h(i,t+1) = h(i,t) +
    /// dt*(q(i)-q(i-1)) + ...` needs `h(i,t)` for its partials, not `q`.
    replayed: Vec<bool>,
    /// Per input: whether the reverse piece reads it (taped), by the same
    /// rule. The cost model counts every input all the same (the choices
    /// it makes were measured that way, docs/adjoint.md).
    needed: Vec<bool>,
}

/// Which Jacobian the replay computes: the run's preaccumulated one, or
/// each statement's (propagated statement by statement, last first).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Form {
    Block,
    Statement,
}

/// The recomputation of a run, when the run allows one: every reference
/// is a real or integer scalar or array element (no pointer, no whole
/// array or section, no function call), and no symbol the run assigns is
/// named through two references that may be one element (`a(i)`, `a(j)`;
/// `c(1, i)` and `c(2, i)` are distinct).
pub(super) fn plan(seq: &FlatSequence, b: &BlockBuilder, scope_id: u64) -> Option<ReplayPlan> {
    let symbols = b.ctx.symbols;
    let mut assigned: HashSet<String> = HashSet::new();
    let mut seen: HashSet<String> = HashSet::new();
    // Per symbol, its distinct references (by key).
    let mut keys_of: HashMap<(String, u64), HashMap<String, VariableReference>> = HashMap::new();
    let mut assigned_symbols: HashSet<(String, u64)> = HashSet::new();
    let mut inputs = Vec::new();
    // Per statement: its operations, and the symbols it reads.
    // (all, expensive: divisions, roots, transcendental functions).
    let mut statement_ops: Vec<(usize, usize)> = Vec::with_capacity(seq.statements.len());
    let mut reads: Vec<HashSet<(String, u64)>> = Vec::with_capacity(seq.statements.len());
    for st in &seq.statements {
        let a = &st.assignment;
        let view = ExprView::new(&a.rhs).ok()?;
        let mut replay_ops = 0;
        let mut expensive_ops = 0;
        let mut read = HashSet::new();
        for (vi, v) in a.rhs.vertices.iter().enumerate() {
            match v {
                ExpressionVertex::VariableReference(r) => {
                    let (id, scope) = base_symbol(r)?;
                    read.insert((id.to_string(), scope));
                    let key = variable_key(r);
                    keys_of
                        .entry((id.to_string(), scope))
                        .or_default()
                        .insert(key.clone(), r.clone());
                    if kept(r, b.untaped) || assigned.contains(&key) || !seen.insert(key) {
                        continue;
                    }
                    // Whole arrays (the argument of `size(a)`) and
                    // sections have no scalar replay value.
                    let info = symbols.lookup(scope, id)?;
                    if info.pointer || !symbols.is_scalar_reference(r) {
                        return None;
                    }
                    let integer = match info.type_ {
                        SymbolType::Real => false,
                        SymbolType::Integer => true,
                        _ => return None,
                    };
                    inputs.push((r.clone(), integer));
                }
                ExpressionVertex::Intrinsic(i) => {
                    // x**2, x**3: a multiplication or two after gfortran.
                    let small_power = i.name.starts_with("pow")
                        && view.args[vi].get(1).is_some_and(|&e| {
                            matches!(&a.rhs.vertices[e], ExpressionVertex::Constant(k)
                                if exact_integer_literal(k).is_some_and(|p| (0..=4).contains(&p)))
                        });
                    let cost = if small_power {
                        2
                    } else {
                        operation_cost(&i.name)
                    };
                    replay_ops += cost;
                    if !small_power && cost > 1 {
                        expensive_ops += cost;
                    }
                }
                ExpressionVertex::Constant(_) => {}
                _ => return None,
            }
        }
        statement_ops.push((replay_ops, expensive_ops));
        reads.push(read);
        let lhs = &a.lhs.reference;
        let (id, scope) = base_symbol(lhs)?;
        let info = symbols.lookup(scope, id)?;
        if info.pointer || info.type_ != SymbolType::Real || !symbols.is_scalar_reference(lhs) {
            return None;
        }
        let key = variable_key(lhs);
        keys_of
            .entry((id.to_string(), scope))
            .or_default()
            .insert(key.clone(), lhs.clone());
        assigned_symbols.insert((id.to_string(), scope));
        assigned.insert(key);
    }
    // Two references of a symbol the run assigns may be one location,
    // unless some subscript position holds two different literals.
    for s in &assigned_symbols {
        let refs: Vec<&VariableReference> = keys_of
            .get(s)
            .into_iter()
            .flat_map(|m| m.values())
            .collect();
        for (k, a) in refs.iter().enumerate() {
            if refs[k + 1..].iter().any(|b| !distinct_elements(a, b)) {
                return None;
            }
        }
    }
    // The replay computes a value only for a later statement of the run;
    // one nobody in the run reads (the run's last assignments) is dead code
    // in the reverse piece, which the compiler drops, except its expensive
    // operations: the partials need them too (`1/b` of `a/b`, `exp(x)`,
    // `1/sqrt(x)`), and where the taped form computes them once for the
    // value and the partial in the forward sweep, recomputation computes
    // them again in the reverse sweep.
    let replay_ops = seq
        .statements
        .iter()
        .enumerate()
        .map(|(k, st)| {
            let read_later =
                base_symbol(&st.assignment.lhs.reference).is_some_and(|(id, scope)| {
                    let s = (id.to_string(), scope);
                    reads[k + 1..].iter().any(|r| r.contains(&s))
                });
            let (all, expensive) = statement_ops[k];
            if read_later {
                all
            } else {
                expensive
            }
        })
        .sum();
    // What the reverse piece reads: the partial code of either form (the
    // one `emit` picks is not known yet), then, last statement first, the
    // right-hand sides of the statements whose values it reads.
    let mut needed = HashSet::new();
    for form in [Form::Statement, Form::Block] {
        if form == Form::Block && seq.statements.len() == 1 {
            continue;
        }
        let mut scratch = TempPool::new(scope_id);
        let code = partial_code(seq, form, b, &mut scratch).ok()?;
        code_keys(&code, &mut needed);
    }
    let mut replayed = vec![false; seq.statements.len()];
    for (k, st) in seq.statements.iter().enumerate().rev() {
        if needed.contains(&variable_key(&st.assignment.lhs.reference)) {
            replayed[k] = true;
            expression_keys(&st.assignment.rhs, &mut needed);
        }
    }
    let needed = inputs
        .iter()
        .map(|(r, _)| needed.contains(&variable_key(r)))
        .collect();
    Some(ReplayPlan {
        inputs,
        replay_ops,
        replayed,
        needed,
    })
}

/// The keys of the variables an expression reads.
fn expression_keys(e: &Expression, out: &mut HashSet<String>) {
    for v in &e.vertices {
        if let ExpressionVertex::VariableReference(r) = v {
            out.insert(variable_key(r));
        }
    }
}

/// The keys of the variables partial code reads (its temporaries
/// included): the right-hand sides of its assignments and the factors.
fn code_keys(code: &PartialCode, out: &mut HashSet<String>) {
    for a in code.before.iter().flatten().chain(&code.after) {
        expression_keys(&a.rhs, out);
    }
    for (_, f) in code.groups.iter().flatten().flat_map(|r| &r.entries) {
        if let Factor::Atom(e) | Factor::NegAtom(e) = f {
            expression_keys(e, out);
        }
    }
}

/// Whether two references of one array are different elements whatever
/// the variables hold: in some position both subscripts are integer
/// literals, and different ones (`c(1, i)`, `c(2, i)`), or the same
/// variable plus different literals (`h(i, t+1)`, `h(i, t)`: the flattener
/// guarantees that no statement of a run changes a variable its subscripts
/// read, so `t` is one value for the whole run).
fn distinct_elements(a: &VariableReference, b: &VariableReference) -> bool {
    let (sa, sb) = (subscript_expressions(a), subscript_expressions(b));
    sa.len() == sb.len()
        && sa.iter().zip(&sb).any(|(x, y)| {
            matches!((affine_offset(x), affine_offset(y)),
                (Some((v, p)), Some((w, q))) if v == w && p != q)
        })
}

/// A reference the reverse sweep reads as it is: a named constant or a
/// restored loop index, with subscripts made only of restored loop indices
/// and literals.
fn kept(r: &VariableReference, untaped: &HashSet<(String, u64)>) -> bool {
    let Some((id, scope)) = base_symbol(r) else {
        return false;
    };
    let base_kept = r.constant || untaped.contains(&(id.to_string(), scope));
    base_kept
        && subscript_expressions(r).into_iter().all(|e| {
            let mut mentioned = Vec::new();
            symbols_in_expression(e, &mut mentioned);
            mentioned.iter().all(|s| untaped.contains(s))
        })
}

impl ReplayPlan {
    /// The values recomputation tapes per execution of the run: inputs
    /// not taped once per loop execution instead.
    ///
    /// An input read from an array snapshot (`array_snapshots.rs`) costs no push
    /// of its own; each snapshot array is counted once, as one value per
    /// execution (a loop sweeping the array reads about one element of it
    /// per iteration, so its push after the loop amortises to that).
    pub(super) fn taped(&self, hoist: &BlockHoist) -> usize {
        let arrays = self.snapshot_arrays(hoist);
        let companions = self.real_inputs();
        let mut taped = 0;
        for (r, integer) in &self.inputs {
            if *integer {
                taped += 1;
            } else if hoist.would_hoist(r, &[])
                || (snapshot_of(r, &arrays) && hoist.would_snapshot(r, &companions))
            {
            } else {
                taped += 1;
            }
        }
        taped
            + arrays
                .iter()
                .filter(|a| !self.shares_snapshot(a, hoist))
                .count()
    }

    /// Whether the snapshot of `array` this run would read is taken for an
    /// earlier run already (pushed once per loop execution for both).
    fn shares_snapshot(&self, array: &(String, u64), hoist: &BlockHoist) -> bool {
        let companions = self.real_inputs();
        self.inputs.iter().any(|(r, integer)| {
            !integer
                && base_symbol(r).is_some_and(|(id, scope)| id == array.0 && scope == array.1)
                && hoist.has_snapshot(r, &companions)
        })
    }

    /// The real inputs: the elements a snapshot rider
    /// (`riding.rs`) may share a copy with.
    pub(super) fn real_inputs(&self) -> Vec<&VariableReference> {
        self.inputs
            .iter()
            .filter(|(_, integer)| !integer)
            .map(|(r, _)| r)
            .collect()
    }

    /// The arrays this run reads from snapshots: those whose elements can
    /// be snapshot and that the run reads through two or more references
    /// (`h(i-1)`, `h(i+1)`), or whose snapshot an earlier run already
    /// takes (free). An array read through one reference per run is
    /// otherwise taped per run as before: the same number of values (one
    /// element per iteration of a sweeping loop), read back in order
    /// instead of through a copy (hllflux: 3 arrays of one reference each,
    /// measured 3 % slower as snapshots).
    fn snapshot_arrays(&self, hoist: &BlockHoist) -> HashSet<(String, u64)> {
        self.snapshot_arrays_with(hoist, true)
    }

    /// Whether snapshot riders (`riding.rs`) change which arrays the run
    /// reads from copies.
    pub(super) fn rides(&self, hoist: &BlockHoist) -> bool {
        self.snapshot_arrays_with(hoist, true) != self.snapshot_arrays_with(hoist, false)
    }

    fn snapshot_arrays_with(&self, hoist: &BlockHoist, riders: bool) -> HashSet<(String, u64)> {
        let companions = if riders {
            self.real_inputs()
        } else {
            Vec::new()
        };
        let mut count: HashMap<(String, u64), usize> = HashMap::new();
        for (r, integer) in &self.inputs {
            if !integer && !hoist.would_hoist(r, &[]) && hoist.would_snapshot(r, &companions) {
                if let Some((id, scope)) = base_symbol(r) {
                    let n = count.entry((id.to_string(), scope)).or_default();
                    *n += if hoist.has_snapshot(r, &companions) {
                        2
                    } else {
                        1
                    };
                }
            }
        }
        count
            .into_iter()
            .filter(|(_, n)| *n >= 2)
            .map(|(s, _)| s)
            .collect()
    }
}

/// Whether `r` is an element of one of `arrays`.
fn snapshot_of(r: &VariableReference, arrays: &HashSet<(String, u64)>) -> bool {
    base_symbol(r).is_some_and(|(id, scope)| arrays.contains(&(id.to_string(), scope)))
}

/// Whether to recompute a run whose taped form tapes `taped_partials`
/// reals per execution (loop-invariant ones included), of which it pushes
/// `pushed_partials()` per execution (hoisted ones left out): a choice
/// only snapshot riders make possible must win against the latter
/// (`riding.rs`; burgers1d's diffusive term, whose entries but one are
/// invariant, measured 17 % slower recomputed from a copy of `u`).
pub(super) fn chosen(
    plan: &ReplayPlan,
    partials: Partials,
    taped_partials: usize,
    pushed_partials: impl FnOnce() -> usize,
    hoist: &BlockHoist,
) -> bool {
    match partials {
        Partials::Taped => false,
        Partials::Recomputed => true,
        Partials::Auto => {
            let recomputed = PUSH_POP_COST * plan.taped(hoist) + plan.replay_ops;
            recomputed < PUSH_POP_COST * taped_partials
                && (!plan.rides(hoist)
                    || recomputed < PUSH_POP_COST.saturating_mul(pushed_partials()))
        }
    }
}

/// The partial code of a replay (before renaming): assignments before
/// each statement, after the last one, and the Jacobian rows to
/// propagate with, in propagation order.
struct PartialCode {
    before: Vec<Vec<Assignment>>,
    after: Vec<Assignment>,
    /// Groups of rows propagated one after the other (one group for the
    /// run's Jacobian; one per live statement, last statement first).
    groups: Vec<Vec<JacobianRow>>,
    /// Operations of the partials and the propagation.
    ops: usize,
}

fn partial_code(
    seq: &FlatSequence,
    form: Form,
    b: &BlockBuilder,
    pool: &mut TempPool,
) -> Result<PartialCode, StatementError> {
    let ctx = b.ctx;
    match form {
        Form::Block => {
            let code =
                accumulate_sequence(seq, &ctx.options.elimination, false, pool, ctx.symbols)?;
            let ops = adjoint_cost(
                &code.rows,
                code.counts.multiplications + code.counts.additions,
            )
            .1;
            Ok(PartialCode {
                before: code.before_statement,
                after: code.accumulation,
                groups: vec![code.rows],
                ops,
            })
        }
        Form::Statement => {
            // A partial read at the end of the replay may name a variable
            // directly only if no later statement of the run assigns it.
            let n = seq.statements.len();
            let mut assigned_from: Vec<HashSet<(String, u64)>> = vec![HashSet::new(); n + 1];
            for (k, st) in seq.statements.iter().enumerate().rev() {
                let mut set = assigned_from[k + 1].clone();
                if let Some((s, scope)) = base_symbol(&st.assignment.lhs.reference) {
                    set.insert((s.to_string(), scope));
                }
                assigned_from[k] = set;
            }
            let mut out = PartialCode {
                before: Vec::with_capacity(n),
                after: Vec::new(),
                groups: Vec::new(),
                ops: 0,
            };
            for (k, st) in seq.statements.iter().enumerate() {
                // A value nobody reads has a zero adjoint: no partials.
                if !ctx
                    .chains
                    .value_needed_outside(&st.assignment, &Default::default())
                {
                    out.before.push(Vec::new());
                    continue;
                }
                let mut code = FactorCode {
                    pool: &mut *pool,
                    symbols: ctx.symbols,
                    anchor: &st.assignment,
                    overwritten: std::mem::take(&mut assigned_from[k]),
                    preamble: Vec::new(),
                    counts: OpCounts::default(),
                };
                let rows = accumulate_reverse(&st.graph, &mut code);
                out.ops +=
                    adjoint_cost(&rows, code.counts.multiplications + code.counts.additions).1;
                out.before.push(code.preamble);
                out.groups.push(rows);
            }
            out.groups.reverse();
            Ok(out)
        }
    }
}

/// Emits `seq` recomputed: the forward sweep tapes the inputs and runs the
/// statements; the reverse piece pops the inputs, replays the statements
/// and their partials on temporaries and propagates.
pub(super) fn emit(
    seq: &FlatSequence,
    plan: ReplayPlan,
    b: &mut BlockBuilder,
    pool: &mut TempPool,
    temps: &mut AdjointTemps,
    hoist: &mut BlockHoist,
) -> Result<(), StatementError> {
    let first_id = seq.statements[0].assignment.statement_id.clone();
    let fail = |e: StatementError| e.at(&first_id);
    // Statement or run Jacobian: whichever costs fewer operations in the
    // reverse sweep (both tape the same inputs).
    let form = if seq.statements.len() == 1 {
        Form::Statement
    } else {
        let mut scratch = TempPool::new(pool.scope_id);
        let block = partial_code(seq, Form::Block, b, &mut scratch).map_err(fail)?;
        let mut scratch = TempPool::new(pool.scope_id);
        let statement = partial_code(seq, Form::Statement, b, &mut scratch).map_err(fail)?;
        if statement.ops < block.ops {
            Form::Statement
        } else {
            Form::Block
        }
    };
    temps.reset();
    pool.reset();
    let code = partial_code(seq, form, b, pool).map_err(fail)?;

    let s = b.slot();
    let last = &seq.statements[seq.statements.len() - 1].assignment;
    let mut st = StatementTape::new(
        &last.statement_id,
        temps,
        b.untaped,
        Some((&mut b.shared, s)),
    );
    // Inputs: taped before the first statement (a later one may
    // overwrite them), or kept per loop execution when invariant.
    let mut renamed: HashMap<String, VariableReference> = HashMap::new();
    // Inputs read from an array copied once per loop execution, and the copy.
    let mut snapped: Vec<(&VariableReference, VariableReference)> = Vec::new();
    let arrays = plan.snapshot_arrays(hoist);
    let companions = plan.real_inputs();
    for (k, (r, integer)) in plan.inputs.iter().enumerate() {
        if !plan.needed[k] {
            continue;
        }
        if !integer {
            let id = format!("{first_id}_oad_rh{}", k + 1);
            if let Some(h) = hoist.tape_factor(r, &[], st.temps, id) {
                st.forward.push(BasicBlockElement::Assignment(h.save));
                renamed.insert(variable_key(r), h.read);
                continue;
            }
            if snapshot_of(r, &arrays) {
                if let Some(copy) = hoist.snapshot(r, &companions, st.temps) {
                    snapped.push((r, copy));
                    continue;
                }
            }
        }
        let kind = if *integer {
            AdjointTemp::ReplayInteger
        } else {
            AdjointTemp::Replay
        };
        let t = st.temps.take(kind);
        st.tape_value(r, t.clone(), *integer);
        renamed.insert(variable_key(r), t);
    }
    for stmt in &seq.statements {
        let key = variable_key(&stmt.assignment.lhs.reference);
        if let std::collections::hash_map::Entry::Vacant(e) = renamed.entry(key) {
            e.insert(st.temps.take(AdjointTemp::Replay));
        }
    }
    // Subscripts of the propagation's references, shared with the block.
    for row in code.groups.iter().flatten() {
        st.tape_subscripts(&row.dependent);
        for (x, _) in &row.entries {
            st.tape_subscripts(x);
        }
    }
    // The replay reads a snapshot input from the copy, at the subscripts
    // the reverse piece restores.
    for (r, _) in &snapped {
        st.tape_subscripts(r);
    }
    for (r, copy) in &snapped {
        renamed.insert(variable_key(r), copy_element(&st.restored(r), copy));
    }
    let head = std::mem::take(&mut st.forward);
    let tail: Vec<BasicBlockElement> = seq
        .statements
        .iter()
        .map(|s| BasicBlockElement::Assignment(s.assignment.clone()))
        .collect();

    let mut piece = st.reverse_pops();
    let mut replay = Vec::new();
    let mut before = code.before.into_iter();
    for (stmt, replayed) in seq.statements.iter().zip(&plan.replayed) {
        for a in before.next().unwrap_or_default() {
            replay.push(rename_assignment(&a, &renamed, None));
        }
        if *replayed {
            replay.push(rename_assignment(
                &stmt.assignment,
                &renamed,
                Some(format!("{}_oad_replay", stmt.assignment.statement_id)),
            ));
        }
    }
    for a in &code.after {
        replay.push(rename_assignment(a, &renamed, None));
    }
    // The replay feeds only this piece's partials: divisions by one
    // divisor share its reciprocal.
    let replay = share_reciprocals(replay, st.temps, &first_id).map_err(fail)?;
    piece.extend(replay.into_iter().map(BasicBlockElement::Assignment));
    let mut entries = Vec::new();
    for group in &code.groups {
        let rows: Vec<JacobianRow> = group
            .iter()
            .map(|r| JacobianRow {
                dependent: st.restored(&r.dependent),
                entries: r
                    .entries
                    .iter()
                    .map(|(x, f)| (st.restored(x), rename_factor(f, &renamed)))
                    .collect(),
            })
            .collect();
        entries.extend(transposed_propagation(&rows, st.temps));
    }
    if !entries.is_empty() {
        piece.push(propagator(entries, &st.statement_id));
    }
    b.counts += st.counts;
    b.counts.recomputed += 1;
    drop(st);
    // Subscripts of earlier statements reading a variable the run assigned
    // are final now.
    let written: HashSet<(String, u64)> = seq
        .statements
        .iter()
        .filter_map(|st| base_symbol(&st.assignment.lhs.reference))
        .map(|(s, c)| (s.to_string(), c))
        .collect();
    b.shared
        .close(temps, |symbols| symbols.iter().any(|s| written.contains(s)));
    b.pieces.push((head, tail, piece));
    Ok(())
}

/// `r`, or the temporary standing for it in the replay (keeping the
/// vertex id `r` has in its expression).
fn rename_reference(
    r: &VariableReference,
    renamed: &HashMap<String, VariableReference>,
) -> VariableReference {
    match renamed.get(&variable_key(r)) {
        Some(t) => VariableReference {
            vertex_id: r.vertex_id.clone(),
            ..t.clone()
        },
        None => r.clone(),
    }
}

fn rename_expression(e: &Expression, renamed: &HashMap<String, VariableReference>) -> Expression {
    let mut e = e.clone();
    for v in &mut e.vertices {
        if let ExpressionVertex::VariableReference(r) = v {
            *r = rename_reference(r, renamed);
        }
    }
    e
}

fn rename_factor(f: &Factor, renamed: &HashMap<String, VariableReference>) -> Factor {
    match f {
        Factor::Int(c) => Factor::Int(*c),
        Factor::Atom(e) => Factor::Atom(rename_expression(e, renamed)),
        Factor::NegAtom(e) => Factor::NegAtom(rename_expression(e, renamed)),
    }
}

/// The replay's copy of an assignment (a new statement id for copies of
/// program statements: ids stay unique in the output).
fn rename_assignment(
    a: &Assignment,
    renamed: &HashMap<String, VariableReference>,
    statement_id: Option<String>,
) -> Assignment {
    Assignment {
        statement_id: statement_id
            .unwrap_or_else(|| a.statement_id.to_string())
            .into(),
        do_chain: 0,
        line_number: a.line_number,
        lhs: AssignmentLhs {
            reference: rename_reference(&a.lhs.reference, renamed),
            live: true,
        },
        rhs: rename_expression(&a.rhs, renamed),
    }
}
