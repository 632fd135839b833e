//! Adjoint basic blocks (paper 001, section 3): each statement of a block
//! becomes a forward piece (the statement plus pushes of what the reverse
//! sweep needs) and a reverse piece (pops, then the adjoint propagation);
//! the reverse block is the reverse pieces in reverse statement order.
//!
//! Taped per active assignment `y = f(x1..xn)`: the non-constant entries
//! `a_i` of its statement-level local Jacobian (computed from the values
//! the statement reads, before it overwrites anything) and the values of
//! the non-constant subscript expressions of `y` and the `x_i`. The reverse
//! sweep pops the subscripts into integer temporaries and uses those in
//! place of the original expressions, so it never reads a program variable.
//! Subroutine calls tape the subscripts of their actual arguments only.

use std::collections::HashMap;

use xaif_schema::model::{
    Argument, ArgumentValue, Assignment, AssignmentLhs, Ax, BasicBlockElement,
    DerivativePropagator, Expression, ExpressionVertex, InlinableSubroutineCall, PropagatorEntry,
    SubroutineCall, Symbol, SymbolType, VariableReference, VariableReferenceVertex,
};

use super::hoist::BlockHoist;
use super::temps::{AdjointTemp, AdjointTemps};
use crate::catalogue::Catalogue;
use crate::du_chains::DuChains;
use crate::expr::{
    base_symbol, exact_integer_literal, symbols_in_expression, variable_expression, variable_key,
    ExprView,
};
use crate::linearize::Linearization;
use crate::preaccumulate::{preaccumulate_statement, Factor};
use crate::symbols::SymbolIndex;
use crate::temporaries::TempPool;

/// Static tape use of a piece of code (pushes per execution).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TapeCounts {
    pub reals: usize,
    pub integers: usize,
    /// Runs whose partials the reverse sweep recomputes from taped
    /// values instead of popping them (`recompute.rs`).
    pub recomputed: usize,
}

impl std::ops::AddAssign for TapeCounts {
    fn add_assign(&mut self, o: TapeCounts) {
        self.reals += o.reals;
        self.integers += o.integers;
        self.recomputed += o.recomputed;
    }
}

/// The two sweeps of one basic block.
#[derive(Debug, Clone, Default)]
pub struct BlockSweeps {
    pub forward: Vec<BasicBlockElement>,
    pub reverse: Vec<BasicBlockElement>,
    pub tape: TapeCounts,
}

/// A statement the adjoint cannot handle, with the statement's id.
pub use crate::error::StatementError;

/// What the block reversal needs from the whole program.
pub struct BlockContext<'a> {
    pub catalogue: &'a Catalogue,
    pub symbols: &'a SymbolIndex<'a>,
    /// Symbols of subroutines that get an adjoint (active control flow graphs).
    pub active_subroutines: &'a std::collections::HashSet<String>,
    /// Per subroutine with an adjoint: the variables of other scopes
    /// (module, common) it may read, with their symbols.
    pub callee_globals: &'a HashMap<String, Vec<(VariableReference, Symbol)>>,
    /// Per subroutine with an adjoint: the positions of its passive
    /// `intent(in)` dummy arguments.
    pub callee_read_only: &'a HashMap<String, std::collections::HashSet<u64>>,
    /// (symbol, scope) pairs some graph names outside its own scope.
    pub host_referenced: &'a std::collections::HashSet<(String, u64)>,
    /// Per subroutine with a graph: the positions of its scalar dummies.
    pub scalar_dummies: &'a HashMap<String, std::collections::HashSet<u64>>,
    /// Passive `intent(in)` dummies of every graph, as (name, scope).
    pub read_only_dummies: &'a std::collections::HashSet<(String, u64)>,
    /// What every routine with a graph may change and read
    /// (checkpointed loops' state).
    pub callee_effects: &'a HashMap<String, super::callee_effects::CalleeEffects>,
    /// Integer dummies whose forward value every reverse sweep of their
    /// routine has (`stable_dummies.rs`), as (name, scope).
    pub stable_dummies: &'a std::collections::HashSet<(String, u64)>,
    pub scopes: &'a ScopeTree<'a>,
    /// The front end's du chains: which assigned values are read later.
    pub chains: &'a DuChains,
    pub options: &'a super::AdjointOptions,
}

/// Which scope's symbol a name means where: the shared scope index, plus
/// the variables each graph's code names (a module variable is nameable
/// where the code already names it: `use` association is not in the
/// scope hierarchy).
pub struct ScopeTree<'a> {
    pub scopes: &'a xaif_schema::index::ScopeIndex<'a>,
    /// By graph scope, (name, scope) of every variable the code names.
    pub referenced: HashMap<u64, std::collections::HashSet<(String, u64)>>,
}

impl ScopeTree<'_> {
    /// Whether `name` of scope `target` is what `name` means in `from`
    /// (an enclosing scope, not shadowed on the way).
    pub fn sees(&self, from: u64, target: u64, name: &str) -> bool {
        if self
            .referenced
            .get(&from)
            .is_some_and(|r| r.contains(&(name.to_string(), target)))
        {
            return true;
        }
        self.scopes
            .chain(from)
            .find(|&s| s == target || self.scopes.symbol(s, name).is_some())
            == Some(target)
    }
}

/// A tape operation: `push_real(x)`, `pop_int(i)`, ...
pub fn tape_call(name: &str, value: ArgumentValue, statement_id: String) -> BasicBlockElement {
    BasicBlockElement::InlinableSubroutineCall(InlinableSubroutineCall {
        subroutine_name: name.to_string().into(),
        statement_id: statement_id.into(),
        arguments: vec![Argument {
            position: 1,
            annotation: Default::default(),
            value,
        }],
    })
}

/// Annotation of the argument of a checkpoint operation the booster puts
/// around a call, followed by the callee's symbol: the back end may drop
/// the operation when it never re-runs that callee (joint leaf template).
pub const CALLSITE_CHECKPOINT: &str = "callsite:";

/// A call-site checkpoint operation (`cp_store_*` / `cp_restore_*`) for a
/// call of `callee`, marked with [`CALLSITE_CHECKPOINT`].
fn callsite_checkpoint(
    callee: &str,
    name: &str,
    value: ArgumentValue,
    statement_id: String,
) -> BasicBlockElement {
    let mut op = tape_call(name, value, statement_id);
    if let BasicBlockElement::InlinableSubroutineCall(c) = &mut op {
        c.arguments[0].annotation = format!("{CALLSITE_CHECKPOINT}{callee}").into();
    }
    op
}

/// Per statement slot of a block: forward code before the slot's index
/// pushes, forward code after them, and the reverse piece (run after the
/// slot's index pops).
pub(super) type Piece = (
    Vec<BasicBlockElement>,
    Vec<BasicBlockElement>,
    Vec<BasicBlockElement>,
);

/// The sweeps of one basic block under construction.
pub(super) struct BlockBuilder<'c, 'a, 's> {
    pub(super) ctx: &'c BlockContext<'a>,
    pub(super) untaped: &'s std::collections::HashSet<(String, u64)>,
    pub(super) shared: SharedIndices,
    pub(super) pieces: Vec<Piece>,
    pub(super) counts: TapeCounts,
}

impl BlockBuilder<'_, '_, '_> {
    /// Opens the slot of the next statement; its index.
    pub(super) fn slot(&mut self) -> usize {
        self.shared.pushes.push(Vec::new());
        self.shared.pops.push(Vec::new());
        self.pieces.len()
    }

    /// Statement-level adjoint of one assignment.
    pub(super) fn statement(
        &mut self,
        a: &Assignment,
        lin: Linearization,
        pool: &mut TempPool,
        temps: &mut AdjointTemps,
        hoist: &mut BlockHoist,
    ) -> Result<(), StatementError> {
        temps.reset();
        pool.reset();
        let s = self.slot();
        let mut st = StatementTape::new(
            &a.statement_id,
            temps,
            self.untaped,
            Some((&mut self.shared, s)),
        );
        let (tail, piece) = st.assignment(a, lin, self.ctx, pool, hoist)?;
        self.counts += st.counts;
        let head = std::mem::take(&mut st.forward);
        drop(st);
        // Subscripts that read the variable assigned here change after
        // this statement: their values are final.
        if let Some(written) = base_symbol(&a.lhs.reference) {
            let written = (written.0.to_string(), written.1);
            self.shared
                .close(temps, |symbols| symbols.contains(&written));
        }
        self.pieces.push((head, tail, piece));
        Ok(())
    }
}

/// Subscript values shared by the statements of a basic block: a
/// subscript expression is pushed once, at the last statement that uses it
/// before a variable it reads changes (or a call or opaque statement, or
/// the end of the block), and popped in that statement's reverse piece,
/// which the reverse sweep runs before the pieces of the earlier users.
#[derive(Default)]
pub(super) struct SharedIndices {
    /// Live expressions by key, in first-use order.
    live: Vec<(String, LiveIndex)>,
    /// Pushes and pops (forward order) placed at each statement.
    pub(super) pushes: Vec<Vec<BasicBlockElement>>,
    pub(super) pops: Vec<Vec<BasicBlockElement>>,
    pub(super) counts: TapeCounts,
    serial: usize,
}

struct LiveIndex {
    expression: Expression,
    symbols: Vec<(String, u64)>,
    /// The popped temporary the reverse pieces read.
    temp: VariableReference,
    last_use: usize,
    /// The statement id of slot `last_use`.
    last_statement: String,
}

impl SharedIndices {
    /// The temporary standing for `e` in statement `s` (id `statement_id`).
    fn use_at(
        &mut self,
        key: &str,
        e: &Expression,
        (s, statement_id): (usize, &str),
        temps: &mut AdjointTemps,
    ) -> VariableReference {
        if let Some((_, live)) = self.live.iter_mut().find(|(k, _)| k == key) {
            live.last_use = s;
            live.last_statement = statement_id.to_string();
            return live.temp.clone();
        }
        let mut symbols = Vec::new();
        symbols_in_expression(e, &mut symbols);
        let temp = temps.take(AdjointTemp::Index);
        self.live.push((
            key.to_string(),
            LiveIndex {
                expression: e.clone(),
                symbols,
                temp: temp.clone(),
                last_use: s,
                last_statement: statement_id.to_string(),
            },
        ));
        temp
    }

    /// Emits the push and pop of every live expression whose symbols match.
    pub(super) fn close(
        &mut self,
        temps: &mut AdjointTemps,
        matches: impl Fn(&[(String, u64)]) -> bool,
    ) {
        let (closing, staying): (Vec<_>, Vec<_>) = std::mem::take(&mut self.live)
            .into_iter()
            .partition(|(_, l)| matches(&l.symbols));
        self.live = staying;
        for (_, l) in closing {
            self.serial += 1;
            // Named after the statement whose slot holds the push and pop
            // (a derived id: the back end's line map links it there).
            let id = |k: usize| format!("{}_oad_ix{}_{k}", l.last_statement, self.serial);
            let value = match l.expression.vertices.as_slice() {
                [ExpressionVertex::VariableReference(v)] => ArgumentValue::Variable(v.clone()),
                _ => {
                    let t = temps.take(AdjointTemp::IndexExpression);
                    self.pushes[l.last_use].push(BasicBlockElement::Assignment(Assignment {
                        statement_id: id(1).into(),
                        do_chain: 0,
                        line_number: 0,
                        lhs: AssignmentLhs {
                            reference: t.clone(),
                            live: true,
                        },
                        rhs: l.expression.clone(),
                    }));
                    ArgumentValue::Variable(t)
                }
            };
            self.pushes[l.last_use].push(tape_call("push_int", value, id(2)));
            self.pops[l.last_use].push(tape_call(
                "pop_int",
                ArgumentValue::Variable(l.temp),
                id(3),
            ));
            self.counts.integers += 1;
        }
    }
}

/// The forward piece of one statement under construction, and the pops
/// that undo its pushes.
pub(super) struct StatementTape<'t, 'a, 's> {
    pub(super) statement_id: String,
    pub(super) temps: &'t mut AdjointTemps<'a>,
    /// Variables the reverse sweep has restored (not taped).
    untaped: &'s std::collections::HashSet<(String, u64)>,
    /// Block-shared subscripts and this statement's number in the block;
    /// `None`: the statement tapes its own subscripts (calls).
    shared: Option<(&'s mut SharedIndices, usize)>,
    pub(super) forward: Vec<BasicBlockElement>,
    /// Pops in forward order; the reverse piece runs them backwards.
    pops: Vec<BasicBlockElement>,
    /// Subscript expression key → popped integer temporary.
    index_of: HashMap<String, VariableReference>,
    pub(super) counts: TapeCounts,
    serial: usize,
}

impl<'t, 'a, 's> StatementTape<'t, 'a, 's> {
    pub(super) fn new(
        statement_id: &str,
        temps: &'t mut AdjointTemps<'a>,
        untaped: &'s std::collections::HashSet<(String, u64)>,
        shared: Option<(&'s mut SharedIndices, usize)>,
    ) -> Self {
        StatementTape {
            statement_id: statement_id.to_string(),
            temps,
            untaped,
            shared,
            forward: Vec::new(),
            pops: Vec::new(),
            index_of: HashMap::new(),
            counts: TapeCounts::default(),
            serial: 0,
        }
    }

    fn next_id(&mut self) -> String {
        self.serial += 1;
        format!("{}_oad_t{}", self.statement_id, self.serial)
    }

    /// The pops of this statement, last pushed first.
    pub(super) fn reverse_pops(&self) -> Vec<BasicBlockElement> {
        self.pops.iter().rev().cloned().collect()
    }

    /// Pushes the value of `value` here and pops it into `target` in the
    /// reverse piece (the taped inputs of a recomputed run).
    pub(super) fn tape_value(
        &mut self,
        value: &VariableReference,
        target: VariableReference,
        integer: bool,
    ) {
        let (push, pop) = if integer {
            ("push_int", "pop_int")
        } else {
            ("push_real", "pop_real")
        };
        let push_id = self.next_id();
        let pop_id = self.next_id();
        self.forward.push(tape_call(
            push,
            ArgumentValue::Variable(value.clone()),
            push_id,
        ));
        self.pops
            .push(tape_call(pop, ArgumentValue::Variable(target), pop_id));
        if integer {
            self.counts.integers += 1;
        } else {
            self.counts.reals += 1;
        }
    }

    fn push_real(&mut self, value: ArgumentValue) -> VariableReference {
        let target = self.temps.take(AdjointTemp::Jacobian);
        let push_id = self.next_id();
        let pop_id = self.next_id();
        self.forward.push(tape_call("push_real", value, push_id));
        self.pops.push(tape_call(
            "pop_real",
            ArgumentValue::Variable(target.clone()),
            pop_id,
        ));
        self.counts.reals += 1;
        target
    }

    /// Tapes a Jacobian entry: hoisted out of a loop in which it is
    /// invariant (`hoist.rs`), else pushed here. Returns what the reverse
    /// sweep reads.
    fn tape_factor(
        &mut self,
        value: ArgumentValue,
        definitions: &[Assignment],
        hoist: &mut BlockHoist,
    ) -> VariableReference {
        if let ArgumentValue::Variable(v) = &value {
            let id = format!("{}_oad_h{}", self.statement_id, self.serial + 1);
            if let Some(h) = hoist.tape_factor(v, definitions, self.temps, id) {
                self.serial += 1;
                self.forward.push(BasicBlockElement::Assignment(h.save));
                return h.read;
            }
        }
        self.push_real(value)
    }

    /// Tapes every non-constant subscript expression of `r` (once per
    /// statement for equal expressions).
    pub(super) fn tape_subscripts(&mut self, r: &VariableReference) {
        for e in subscript_expressions(r) {
            self.tape_index_expression(e);
        }
    }

    fn tape_index_expression(&mut self, e: &Expression) {
        self.tape_index_expression_at(e, None);
    }

    /// Tapes one subscript expression. With `deferred`, the value is
    /// computed into a temporary now and its push is appended to
    /// `deferred`, to be emitted later (after a call: the callee pushes
    /// its own tape in between, and pops it before ours in reverse).
    fn tape_index_expression_at(
        &mut self,
        e: &Expression,
        deferred: Option<&mut Vec<BasicBlockElement>>,
    ) {
        if is_constant_expression(e) {
            return;
        }
        if untaped_subscript(e, self.untaped, self.temps.symbol_index()) {
            return;
        }
        let Some(key) = expression_key(e) else {
            return;
        };
        if self.index_of.contains_key(&key) {
            return;
        }
        if deferred.is_none() {
            if let Some((shared, s)) = self.shared.as_mut() {
                let temp = shared.use_at(&key, e, (*s, &self.statement_id), self.temps);
                self.index_of.insert(key, temp);
                return;
            }
        }
        // A variable is pushed as it is; anything else (and anything whose
        // push is deferred) is computed into a temporary first.
        let value = match e.vertices.as_slice() {
            [ExpressionVertex::VariableReference(v)] if deferred.is_none() => {
                ArgumentValue::Variable(v.clone())
            }
            _ => {
                let t = self.temps.take(AdjointTemp::IndexExpression);
                let id = self.next_id();
                self.forward.push(BasicBlockElement::Assignment(Assignment {
                    statement_id: id.into(),
                    do_chain: 0,
                    line_number: 0,
                    lhs: AssignmentLhs {
                        reference: t.clone(),
                        live: true,
                    },
                    rhs: e.clone(),
                }));
                ArgumentValue::Variable(t)
            }
        };
        let target = self.temps.take(AdjointTemp::Index);
        let push_id = self.next_id();
        let pop_id = self.next_id();
        let push = tape_call("push_int", value, push_id);
        match deferred {
            Some(later) => later.push(push),
            None => self.forward.push(push),
        }
        self.pops.push(tape_call(
            "pop_int",
            ArgumentValue::Variable(target.clone()),
            pop_id,
        ));
        self.counts.integers += 1;
        self.index_of.insert(key, target);
    }

    /// `r` with its taped subscripts replaced by the popped temporaries.
    pub(super) fn restored(&self, r: &VariableReference) -> VariableReference {
        let mut r = r.clone();
        for v in &mut r.vertices {
            let VariableReferenceVertex::ArrayElementReference(a) = v else {
                continue;
            };
            for t in &mut a.index_triplets {
                for e in [&mut t.index, &mut t.bound, &mut t.stride]
                    .into_iter()
                    .flatten()
                {
                    if let Some(temp) = expression_key(e).and_then(|k| self.index_of.get(&k)) {
                        *e = variable_expression(temp);
                    }
                }
            }
        }
        r
    }

    /// The factor the reverse sweep reads for `f`: constants as they are;
    /// anything else taped by `tape_factor` (pushed now and popped into a
    /// temporary, or hoisted out of a loop in which it is invariant);
    /// `definitions` compute the temporaries `f` reads. Equal values (by
    /// expression) in `popped` are taped once.
    pub(super) fn taped_factor(
        &mut self,
        f: &Factor,
        popped: &mut HashMap<String, Expression>,
        definitions: &[Assignment],
        hoist: &mut BlockHoist,
    ) -> Result<Factor, StatementError> {
        let (Factor::Atom(e) | Factor::NegAtom(e)) = f else {
            return Ok(f.clone());
        };
        let value = match atom_value(e) {
            Some(ArgumentValue::Constant(_)) => return Ok(f.clone()),
            None => {
                return Err(StatementError::internal(
                    None,
                    "internal error: a Jacobian factor is not a single value",
                ))
            }
            Some(value) => value,
        };
        let key = expression_key(e).unwrap_or_default();
        let t = match popped.get(&key) {
            Some(t) => t.clone(),
            None => {
                let t = variable_expression(&self.tape_factor(value, definitions, hoist));
                popped.insert(key, t.clone());
                t
            }
        };
        Ok(match f {
            Factor::NegAtom(_) => Factor::NegAtom(t),
            _ => Factor::Atom(t),
        })
    }

    fn assignment(
        &mut self,
        a: &Assignment,
        lin: Linearization,
        ctx: &BlockContext,
        pool: &mut TempPool,
        hoist: &mut BlockHoist,
    ) -> Result<(Vec<BasicBlockElement>, Vec<BasicBlockElement>), StatementError> {
        let tail = vec![BasicBlockElement::Assignment(a.clone())];
        let fail = |e: StatementError| e.at(&a.statement_id);
        let graph = match lin {
            Linearization::Passive => return Ok((tail, Vec::new())),
            Linearization::ZeroDerivative(y) => {
                self.tape_subscripts(&y);
                let mut piece = self.reverse_pops();
                piece.push(propagator(
                    vec![PropagatorEntry::ZeroDeriv(self.restored(&y))],
                    &a.statement_id,
                ));
                return Ok((tail, piece));
            }
            Linearization::Graph(g) => g,
        };
        // A value nobody reads has a zero adjoint (every read of it would
        // have incremented it, and every earlier overwrite zeroes it), so
        // its statement has nothing to propagate (du chains, as in the
        // tangent mode).
        if !ctx.chains.value_needed_outside(a, &Default::default()) {
            return Ok((tail, Vec::new()));
        }
        let acc = preaccumulate_statement(&graph, a, pool, ctx.symbols);
        let [row] = acc.rows.as_slice() else {
            return Err(StatementError::internal(
                Some(a.statement_id.to_string()),
                format!(
                    "internal error: statement Jacobian with {} rows",
                    acc.rows.len()
                ),
            ));
        };
        self.forward.extend(
            acc.preamble
                .iter()
                .cloned()
                .map(BasicBlockElement::Assignment),
        );
        // Non-constant factors are pushed (their value before the
        // assignment) and popped into temporaries, or, when invariant in an
        // enclosing loop, kept and taped once per loop execution.
        let mut popped: HashMap<String, Expression> = HashMap::new();
        let mut factors: Vec<(VariableReference, Factor)> = Vec::new();
        for (x, f) in &row.entries {
            let taped = self
                .taped_factor(f, &mut popped, &acc.preamble, hoist)
                .map_err(fail)?;
            factors.push((x.clone(), taped));
        }
        self.tape_subscripts(&row.dependent);
        for (x, _) in &row.entries {
            self.tape_subscripts(x);
        }

        let y = self.restored(&row.dependent);
        let terms: Vec<(VariableReference, Factor)> = factors
            .into_iter()
            .map(|(x, f)| (self.restored(&x), f))
            .collect();
        let mut piece = self.reverse_pops();
        piece.push(propagator(
            self.adjoint_entries(&y, &terms),
            &a.statement_id,
        ));
        Ok((tail, piece))
    }

    /// The adjoint of `y = f(x_1..x_n)` with local partials `a_i`:
    /// - no `x_i` shares `y`'s base symbol: `x_i%d += a_i * y%d` for every
    ///   i, then `y%d = 0`;
    /// - the only such `x_i` is `y` itself (`s = s + ...`, `x = x*x`):
    ///   the other increments first (they read `y%d` before it changes),
    ///   then `y%d = a_y * y%d` (nothing when `a_y` is 1);
    /// - otherwise (`a(i) = a(j)*c`, equal at run time or not): `y%d` is
    ///   moved into a derivative temporary `t` (`t%d = y%d; y%d = 0`) and
    ///   every increment reads `t%d`.
    ///
    /// Why this is right is argued in docs/adjoint.md.
    fn adjoint_entries(
        &mut self,
        y: &VariableReference,
        terms: &[(VariableReference, Factor)],
    ) -> Vec<PropagatorEntry> {
        let y_key = variable_key(y);
        let (same_symbol, others): (Vec<_>, Vec<_>) = terms
            .iter()
            .partition(|(x, _)| base_symbol(x) == base_symbol(y));
        let mut out = Vec::new();
        match same_symbol.as_slice() {
            [] => {
                out.extend(others.iter().map(|(x, f)| increment(x, f, y)));
                out.push(PropagatorEntry::ZeroDeriv(y.clone()));
            }
            [(x, f)] if variable_key(x) == y_key => {
                out.extend(others.iter().map(|(x, f)| increment(x, f, y)));
                match f {
                    Factor::Int(1) => {}
                    Factor::Int(-1) => out.push(PropagatorEntry::SetNegDeriv {
                        tgt: y.clone(),
                        src: y.clone(),
                    }),
                    _ => out.push(PropagatorEntry::Sax {
                        ax: vec![Ax {
                            a: f.to_expression(),
                            x: y.clone(),
                        }],
                        y: y.clone(),
                    }),
                }
            }
            _ => {
                let t = self.temps.take(AdjointTemp::DerivativeCopy);
                out.push(PropagatorEntry::SetDeriv {
                    tgt: t.clone(),
                    src: y.clone(),
                });
                out.push(PropagatorEntry::ZeroDeriv(y.clone()));
                out.extend(terms.iter().map(|(x, f)| increment(x, f, &t)));
            }
        }
        out
    }

    /// A call runs forward as it is; the reverse sweep calls it again (the
    /// template runs the callee's reverse sweep) when the callee has an
    /// adjoint, with its arguments' subscripts restored.
    pub(super) fn call(
        &mut self,
        c: &SubroutineCall,
        ctx: &BlockContext,
    ) -> Result<Vec<BasicBlockElement>, StatementError> {
        let has_adjoint = c
            .symbol_id
            .as_ref()
            .is_some_and(|s| ctx.active_subroutines.contains(s.as_str()));
        if !has_adjoint {
            self.forward
                .push(BasicBlockElement::SubroutineCall(c.clone()));
            return Ok(Vec::new());
        }
        // Subscript values are those at the call (the callee may change
        // the variables); they are pushed after the call so that the
        // callee's reverse sweep pops its own tape first.
        let mut after_call = Vec::new();
        for arg in &c.arguments {
            if let ArgumentValue::Variable(r) = &arg.value {
                for e in subscript_expressions(r) {
                    self.tape_index_expression_at(e, Some(&mut after_call));
                }
            }
        }
        // The global variables the callee reads, as they are at the call:
        // copied before it, checkpointed after it (the callee's own
        // argument checkpoint, joint mode, comes first on that stack), and
        // restored before the call in the reverse sweep, where a joint
        // callee re-runs its forward sweep. The back end checkpoints
        // arguments only.
        let globals = c
            .symbol_id
            .as_ref()
            .and_then(|s| ctx.callee_globals.get(s.as_str()))
            .cloned()
            .unwrap_or_default();
        let callee = c.symbol_id.clone().unwrap_or_default();
        let mut stores = Vec::new();
        let mut restores = Vec::new();
        for (g, symbol) in &globals {
            let Some(kind) = checkpoint_kind(symbol) else {
                continue;
            };
            // A common block variable known here under another name (or
            // not at all) cannot be named here.
            let visible = base_symbol(g)
                .is_some_and(|(id, scope)| ctx.scopes.sees(self.temps.scope_id, scope, id));
            if !visible {
                continue;
            }
            let copy = self.temps.global_copy(symbol);
            let id = self.next_id();
            self.forward.push(BasicBlockElement::Assignment(Assignment {
                statement_id: id.into(),
                do_chain: 0,
                line_number: 0,
                lhs: AssignmentLhs {
                    reference: copy.clone(),
                    live: true,
                },
                rhs: variable_expression(g),
            }));
            let (store_id, restore_id) = (self.next_id(), self.next_id());
            stores.push(callsite_checkpoint(
                &callee,
                &format!("cp_store_{kind}"),
                ArgumentValue::Variable(copy),
                store_id,
            ));
            restores.push(callsite_checkpoint(
                &callee,
                &format!("cp_restore_{kind}"),
                ArgumentValue::Variable(g.clone()),
                restore_id,
            ));
        }
        // Passive values the callee only reads through its arguments (a
        // loop index, a coefficient), as they are at the call: a joint
        // callee re-runs its forward sweep from them in the reverse sweep,
        // when the caller may have changed them, and its own argument
        // checkpoint cannot restore an `intent(in)` dummy. The callee does
        // not change them, so they are stored after the call (after the
        // callee's own checkpoint) and restored, at the subscripts the
        // call had, before the reverse sweep calls it again.
        let read_only = c
            .symbol_id
            .as_ref()
            .and_then(|s| ctx.callee_read_only.get(s.as_str()));
        for arg in &c.arguments {
            let ArgumentValue::Variable(r) = &arg.value else {
                continue;
            };
            if r.constant || !read_only.is_some_and(|p| p.contains(&arg.position)) {
                continue;
            }
            // The caller's own intent(in) dummy cannot be assigned here,
            // and does not change while the caller runs.
            if base_symbol(r)
                .is_some_and(|(id, scope)| ctx.read_only_dummies.contains(&(id.to_string(), scope)))
            {
                continue;
            }
            // A passive pointer: the association it had at the call is
            // restored first (the caller may re-point it later), then the
            // values through it.
            let passive_pointer = is_passive_pointer(r, ctx.symbols);
            let Some(kind) = argument_checkpoint_kind(r, ctx.symbols)
                .or_else(|| opaque_checkpoint_kind(r, ctx.symbols))
                .or_else(|| {
                    passive_pointer
                        .then(|| pointer_value_checkpoint_kind(r, ctx.symbols))
                        .flatten()
                })
            else {
                continue;
            };
            let (store_id, restore_id) = (self.next_id(), self.next_id());
            stores.push(callsite_checkpoint(
                &callee,
                &format!("cp_store_{kind}"),
                ArgumentValue::Variable(r.clone()),
                store_id,
            ));
            restores.push(callsite_checkpoint(
                &callee,
                &format!("cp_restore_{kind}"),
                ArgumentValue::Variable(self.restored(r)),
                restore_id,
            ));
            if passive_pointer {
                let (store_id, restore_id) = (self.next_id(), self.next_id());
                stores.push(callsite_checkpoint(
                    &callee,
                    "cp_store_pointer",
                    ArgumentValue::Variable(r.clone()),
                    store_id,
                ));
                // Restores run in reverse: the association comes back first.
                restores.push(callsite_checkpoint(
                    &callee,
                    "cp_restore_pointer",
                    ArgumentValue::Variable(r.clone()),
                    restore_id,
                ));
            }
        }
        self.forward
            .push(BasicBlockElement::SubroutineCall(c.clone()));
        self.forward.extend(after_call);
        self.forward.extend(stores);
        let mut reverse_call = c.clone();
        for arg in &mut reverse_call.arguments {
            if let ArgumentValue::Variable(r) = &mut arg.value {
                *r = self.restored(r);
            }
        }
        let mut piece = self.reverse_pops();
        piece.extend(restores.into_iter().rev());
        piece.push(BasicBlockElement::SubroutineCall(reverse_call));
        Ok(piece)
    }
}

/// A derivative propagator computing the derivatives of statement
/// `statement_id` (the id only locates the generated code).
pub(super) fn propagator(entries: Vec<PropagatorEntry>, statement_id: &str) -> BasicBlockElement {
    BasicBlockElement::DerivativePropagator(DerivativePropagator::of_statement(
        entries,
        statement_id,
    ))
}

/// The value of a one-vertex expression as a call argument.
pub(super) fn atom_value(e: &Expression) -> Option<ArgumentValue> {
    match e.vertices.as_slice() {
        [ExpressionVertex::VariableReference(r)] => Some(ArgumentValue::Variable(r.clone())),
        [ExpressionVertex::Constant(c)] => Some(ArgumentValue::Constant(c.clone())),
        _ => None,
    }
}

/// Whether the reverse sweep can evaluate subscript expression `e` itself:
/// every variable it reads is restored there (`untaped`: explicitly
/// reversed loop indices), is a named constant, or is the array argument of a bound inquiry
/// (`lbound`, `ubound`, `size`) on a non-pointer array. Such inquiries give
/// the same value at the mirrored point of the reverse sweep: the
/// allocation replay (mirror markers, docs/adjoint.md "Allocation")
/// re-creates every array with the bounds it had, and a dummy array keeps
/// its shape for the whole call. A pointer may be re-pointed at an array of
/// other bounds, so an inquiry on a pointer is taped.
fn untaped_subscript(
    e: &Expression,
    untaped: &std::collections::HashSet<(String, u64)>,
    symbols: &SymbolIndex,
) -> bool {
    // Restored loop indices and stable dummies, or named constants.
    let stable = |(id, scope): &(String, u64)| {
        untaped.contains(&(id.clone(), *scope))
            || symbols.lookup(*scope, id).is_some_and(|info| info.constant)
    };
    let Ok(view) = ExprView::new(e) else {
        let mut mentioned = Vec::new();
        symbols_in_expression(e, &mut mentioned);
        return mentioned.iter().all(stable);
    };
    // Vertices that are the array argument of a bound inquiry.
    let mut inquired = vec![false; e.vertices.len()];
    for (v, vertex) in e.vertices.iter().enumerate() {
        let ExpressionVertex::Intrinsic(i) = vertex else {
            continue;
        };
        if !matches!(i.name.as_str(), "lbound" | "ubound" | "size") {
            continue;
        }
        let Some(&array) = view.args[v].first() else {
            continue;
        };
        let ExpressionVertex::VariableReference(r) = &e.vertices[array] else {
            continue;
        };
        let whole_array = matches!(
            r.vertices.as_slice(),
            [VariableReferenceVertex::SymbolReference(_)]
        );
        let not_pointer = base_symbol(r)
            .and_then(|(id, scope)| symbols.lookup(scope, id))
            .is_some_and(|info| !info.pointer && info.shape.rank() > 0);
        if whole_array && not_pointer && view.uses[array] == 1 {
            inquired[array] = true;
        }
    }
    e.vertices
        .iter()
        .enumerate()
        .all(|(v, vertex)| match vertex {
            ExpressionVertex::VariableReference(r) => {
                inquired[v] || {
                    let mut mentioned = Vec::new();
                    crate::expr::symbols_in_reference(r, &mut mentioned);
                    mentioned.iter().all(stable)
                }
            }
            ExpressionVertex::FunctionCall(_) => false,
            _ => true,
        })
}

fn is_constant_expression(e: &Expression) -> bool {
    match e.vertices.as_slice() {
        [ExpressionVertex::Constant(c)] => exact_integer_literal(c).is_some(),
        _ => false,
    }
}

pub(super) fn expression_key(e: &Expression) -> Option<String> {
    let view = ExprView::new(e).ok()?;
    let root = view.root().ok()?;
    Some(view.key(root))
}

/// Every subscript expression of a reference (indices, bounds, strides).
pub(super) fn subscript_expressions(r: &VariableReference) -> Vec<&Expression> {
    let mut out = Vec::new();
    for v in &r.vertices {
        if let VariableReferenceVertex::ArrayElementReference(a) = v {
            for t in &a.index_triplets {
                out.extend([&t.index, &t.bound, &t.stride].into_iter().flatten());
            }
        }
    }
    out
}

/// `x%d += f * src%d`.
pub(super) fn increment(
    x: &VariableReference,
    f: &Factor,
    src: &VariableReference,
) -> PropagatorEntry {
    match f {
        Factor::Int(1) => PropagatorEntry::IncDeriv {
            tgt: x.clone(),
            src: src.clone(),
        },
        Factor::Int(-1) => PropagatorEntry::DecDeriv {
            tgt: x.clone(),
            src: src.clone(),
        },
        _ => PropagatorEntry::Saxpy {
            ax: vec![Ax {
                a: f.to_expression(),
                x: src.clone(),
            }],
            y: x.clone(),
        },
    }
}

/// `real_scalar`, `integer_array`, ... for the checkpoint routines; `None`
/// for what needs no checkpoint (characters) or cannot get a copy (arrays
/// without known bounds).
/// The checkpoint routine suffix for the value an actual argument passes:
/// `integer_scalar` for `i` or `idx(k)`, `real_array` for `c` or
/// `c(2:n)`; `None` for what has no checkpoint routine (characters,
/// derived types) or no known extent (a whole array without bounds may be
/// assumed-size).
fn argument_checkpoint_kind(r: &VariableReference, symbols: &SymbolIndex) -> Option<String> {
    let (id, scope) = base_symbol(r)?;
    let info = symbols.lookup(scope, id)?;
    let kind = match info.type_ {
        SymbolType::Real => "real",
        SymbolType::Integer => "integer",
        SymbolType::Bool => "bool",
        _ => return None,
    };
    if info.pointer {
        return None;
    }
    let shape = if symbols.is_scalar_reference(r) {
        "scalar"
    } else {
        "array"
    };
    Some(format!("{kind}_{shape}"))
}

/// A passive pointer passed to a read-only dummy: its association is
/// checkpointed at the call site besides its values (`cp_store_pointer`;
/// the back end refuses, in joint mode, what the runtime cannot put back:
/// a part of a pointer, or one that is not real(8) of rank 0 to 4).
fn is_passive_pointer(r: &VariableReference, symbols: &SymbolIndex) -> bool {
    base_symbol(r)
        .and_then(|(id, scope)| symbols.lookup(scope, id))
        .is_some_and(|info| info.pointer && !info.active)
}

/// The value checkpoint of the data a passive pointer reference reaches
/// (`real_array`, `integer_scalar`, ...).
fn pointer_value_checkpoint_kind(r: &VariableReference, symbols: &SymbolIndex) -> Option<String> {
    let (id, scope) = base_symbol(r)?;
    let kind = match symbols.lookup(scope, id)?.type_ {
        SymbolType::Real => "real",
        SymbolType::Integer => "integer",
        SymbolType::Bool => "bool",
        _ => return None,
    };
    let shape = if symbols.is_scalar_reference(r) {
        "scalar"
    } else {
        "array"
    };
    Some(format!("{kind}_{shape}"))
}

/// A derived-type value (opaque to the booster) or character data passed
/// to a read-only dummy: stored and restored whole (`cp_store_opaque_scalar`, or
/// `cp_store_opaque_array` for a whole array or a section of one; the back
/// end knows its type, and leaves data with active parts to the callee's
/// own checkpoint). Its integer components have no symbols of their own,
/// so a checkpoint per component could not restore them.
fn opaque_checkpoint_kind(r: &VariableReference, symbols: &SymbolIndex) -> Option<String> {
    let (id, scope) = base_symbol(r)?;
    let info = symbols.lookup(scope, id)?;
    // Character data too: a string that selects a branch in the callee.
    let by_bits = matches!(
        info.type_,
        SymbolType::Opaque | SymbolType::Char | SymbolType::String
    );
    if !by_bits || info.pointer {
        return None;
    }
    Some(if symbols.is_scalar_reference(r) {
        "opaque_scalar".to_string()
    } else {
        "opaque_array".to_string()
    })
}

fn checkpoint_kind(symbol: &Symbol) -> Option<String> {
    let kind = match symbol.type_ {
        SymbolType::Real => "real",
        SymbolType::Integer => "integer",
        SymbolType::Bool => "bool",
        _ => return None,
    };
    let shape = if symbol.shape.rank() == 0 {
        "scalar"
    } else if symbol.dimension_bounds.len() == symbol.shape.rank() {
        "array"
    } else {
        return None;
    };
    Some(format!("{kind}_{shape}"))
}
