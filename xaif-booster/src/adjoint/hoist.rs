//! Loop-invariant Jacobian entries, taped once per loop execution instead
//! of once per iteration (a TBR-style argument, paper 003 section 5.2).
//!
//! A taped factor whose value is computed (through the assignments that
//! define it: the statement's `oad_lin_N`/`oad_acc_N` preamble, followed
//! back to program variables) only from variables that nothing in an
//! enclosing loop's body can change has the same value in every iteration
//! of that loop. It is then not pushed in the body:
//!
//! - forward sweep: the body copies the value into a temporary of its own
//!   (`oad_hv_N = value` where the push was); the temporary is set to zero
//!   before the loop and pushed once after the loop exits, before the trip
//!   count, if the trip count is positive;
//! - reverse sweep: after the trip count is popped, if it is positive, the
//!   value is popped into the same temporary, before the reversed loop, and
//!   the body's propagators read it (the per-statement `oad_jac_N` would be
//!   clobbered by other statements).
//!
//! A value is hoisted out of the outermost enclosing loop in which it is
//! invariant (`dt` in a time loop around a space loop: once per run of the
//! routine). Invariance in a loop implies invariance in every loop inside
//! it, so the search goes from the outermost loop inwards.
//!
//! Why the copy and not a recomputation after the loop: the pushed value is
//! one the original statement computed, so nothing is evaluated that the
//! original program did not evaluate (no division by a value a branch
//! guarded against, no array element that may not exist after the loop).
//! The copy costs a scalar store per iteration into a local the compiler
//! keeps in a register (and usually moves out of the loop with the value).
//!
//! Stack order. The forward sweep pushes the hoisted values after the loop
//! has exited, so after every push of the body's iterations, and before the
//! trip count; the reverse sweep pops the trip count first (integer tape),
//! then the hoisted values (real tape, last pushed first), then runs the
//! reversed body, which pops the body's entries. The guard is the same
//! condition on both sides: the trip count the forward sweep pushes is the
//! one the reverse sweep pops, so a value is popped exactly when it was
//! pushed, and a zero-trip execution tapes nothing. The guard is for tape
//! economy only (the copy makes even an unguarded push safe). When the
//! loop ran but the statement did not (an inner loop without trips), the
//! zero set before the loop is pushed, and the reverse sweep, which does
//! not run that statement's piece either, never reads it.
//!
//! Branches. Entries of a statement under a branch inside a loop are not
//! hoisted out of that loop (only out of loops inside the branch): the
//! branch may be taken in few or no iterations, and one push per loop
//! execution would then tape more than the pushes it replaces (tracer2d's
//! `react`: two iterations per call, the arm with the invariant entry
//! almost never taken). With this rule hoisting never tapes more than
//! per-statement taping did, except when an inner loop between the hoist
//! loop and the statement has no trips in a whole execution of it.
//!
//! Safety rules (what "nothing can change it" means):
//! - a loop whose body, at any depth, contains a subroutine call, an opaque
//!   statement (`Marker`: I/O, allocate, ...), a function call in an
//!   expression, or an assignment through a pointer or to a component of a
//!   derived-type variable may change anything: nothing is hoisted out of it
//!   (it may still be out of an inner loop without such statements);
//! - otherwise the loop changes the base symbols of the left-hand sides of
//!   every assignment in its body (at any depth), its own index and update
//!   and those of inner loops (loop conditions cannot assign);
//! - a value qualifies only if it reads scalars or array elements with
//!   integer literal subscripts (never a whole array, nor an element with a
//!   variable subscript), none of them a pointer (a pointer's target may
//!   change through another name), and no function call;
//! - graphs without a region tree (unstructured: gotos, loop exits) hoist
//!   nothing; distinct symbols are distinct storage (as everywhere in the
//!   booster: EQUIVALENCE is not detected).
//!
//! Equal values (by their expression, temporaries expanded) hoisted out of
//! the same loop share one temporary and one push.

use std::collections::{HashMap, HashSet};

use xaif_schema::model::{
    Assignment, AssignmentLhs, BasicBlockElement, ControlFlowVertex, Expression, ExpressionVertex,
    VariableReference, VariableReferenceVertex,
};

use super::explicit_loops::step_of;
use super::later_writes::CountedIndex;
use super::structure::Region;
use super::temps::AdjointTemps;
use crate::expr::{
    base_symbol, exact_integer_literal, variable_expression, variable_key, ExprView,
};
use crate::symbols::SymbolIndex;

/// What executing a loop may change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Changes {
    /// A call, an opaque statement, ...: any variable.
    Anything,
    /// These symbols (symbol id, scope) and no others.
    Symbols(HashSet<(String, u64)>),
}

impl Changes {
    fn none() -> Changes {
        Changes::Symbols(HashSet::new())
    }

    fn add(&mut self, symbol: (String, u64)) {
        if let Changes::Symbols(s) = self {
            s.insert(symbol);
        }
    }

    fn merge(&mut self, other: Changes) {
        match (self as &mut Changes, other) {
            (Changes::Anything, _) => {}
            (me, Changes::Anything) => *me = Changes::Anything,
            (Changes::Symbols(a), Changes::Symbols(b)) => a.extend(b),
        }
    }

    pub(super) fn may_change(&self, symbol: &(String, u64)) -> bool {
        match self {
            Changes::Anything => true,
            Changes::Symbols(s) => s.contains(symbol),
        }
    }
}

/// A factor the forward sweep keeps instead of pushing.
#[derive(Debug, Clone)]
pub struct HoistedFactor {
    /// `oad_hv_N = value`, in the forward sweep where the push would be.
    pub save: Assignment,
    /// What the reverse sweep reads in place of the popped entry.
    pub read: VariableReference,
}

/// The loops of one control flow graph and the values hoisted out of them.
pub struct Hoister<'a> {
    pub(super) symbols: &'a SymbolIndex<'a>,
    /// Per basic block (vertex index): the loops its entries may be hoisted
    /// out of, outermost first: the enclosing loops inside the innermost
    /// enclosing branch.
    pub(super) enclosing: HashMap<usize, Vec<usize>>,
    /// Per loop vertex: what its execution may change.
    pub(super) changes: HashMap<usize, Changes>,
    /// Per loop vertex: the temporaries of the values hoisted out of it, in
    /// first-use order (pushed in this order after the loop).
    hoisted: HashMap<usize, Vec<VariableReference>>,
    by_key: HashMap<(usize, String), VariableReference>,
    /// Per loop vertex: the indices of the loop and of the loops inside it
    /// (`array_snapshots.rs`: which array dimensions a loop sweeps).
    pub(super) loop_indices: HashMap<usize, HashSet<(String, u64)>>,
    /// Per loop vertex: the arrays copied once per loop execution, in
    /// first-use order (`array_snapshots.rs`).
    pub(super) snapshots: HashMap<usize, Vec<Snapshot>>,
    pub(super) snapshot_of: HashMap<(usize, (String, u64)), VariableReference>,
    /// Per loop vertex: the left-hand sides of the assignments in its body
    /// at any depth (`later_writes.rs`: which elements the loop writes).
    pub(super) writes: HashMap<usize, Vec<VariableReference>>,
    /// Per counted loop vertex whose body does not assign its index: the
    /// index and the literal step.
    pub(super) counted: HashMap<usize, CountedIndex>,
}

impl<'a> Hoister<'a> {
    /// The loops of a nesting; `None` (an unstructured graph): no hoisting.
    pub fn new(
        vertices: &[ControlFlowVertex],
        regions: Option<&[Region]>,
        symbols: &'a SymbolIndex<'a>,
    ) -> Hoister<'a> {
        let mut h = Hoister {
            symbols,
            enclosing: HashMap::new(),
            changes: HashMap::new(),
            hoisted: HashMap::new(),
            by_key: HashMap::new(),
            loop_indices: HashMap::new(),
            snapshots: HashMap::new(),
            snapshot_of: HashMap::new(),
            writes: HashMap::new(),
            counted: HashMap::new(),
        };
        if let Some(regions) = regions {
            h.walk(vertices, regions, &mut Vec::new(), 0, &mut Vec::new());
        }
        h
    }

    /// Records the loops a block's entries may be hoisted out of (those of
    /// `loops` from `barrier` on: inside the innermost enclosing branch)
    /// and returns what the regions may change; appends the left-hand sides
    /// of their assignments to `writes`.
    fn walk(
        &mut self,
        vertices: &[ControlFlowVertex],
        regions: &[Region],
        loops: &mut Vec<usize>,
        barrier: usize,
        writes: &mut Vec<VariableReference>,
    ) -> Changes {
        let mut changes = Changes::none();
        for r in regions {
            match r {
                Region::Block(v) => {
                    self.enclosing.insert(*v, loops[barrier..].to_vec());
                    if let ControlFlowVertex::BasicBlock(b) = &vertices[*v] {
                        for e in &b.elements {
                            changes.merge(self.element_changes(e));
                            if let BasicBlockElement::Assignment(a) = e {
                                writes.push(a.lhs.reference.clone());
                            }
                        }
                    }
                }
                Region::Branch { vertex, arms } => {
                    changes.merge(header_changes(&vertices[*vertex]));
                    for a in arms {
                        changes.merge(self.walk(vertices, &a.body, loops, loops.len(), writes));
                    }
                }
                Region::Loop { vertex, body, .. } => {
                    loops.push(*vertex);
                    let mut own = header_changes(&vertices[*vertex]);
                    let mut inner = Vec::new();
                    let in_body = self.walk(vertices, body, loops, barrier, &mut inner);
                    if let Some(c) = counted_index(&vertices[*vertex]) {
                        if !in_body.may_change(&c.index) {
                            self.counted.insert(*vertex, c);
                        }
                    }
                    own.merge(in_body);
                    writes.extend(inner.iter().cloned());
                    self.writes.insert(*vertex, inner);
                    loops.pop();
                    let mut indices = loop_index(&vertices[*vertex]);
                    for inner in inner_loops(body) {
                        if let Some(i) = self.loop_indices.get(&inner) {
                            indices.extend(i.iter().cloned());
                        }
                    }
                    self.loop_indices.insert(*vertex, indices);
                    self.changes.insert(*vertex, own.clone());
                    changes.merge(own);
                }
            }
        }
        changes
    }

    fn element_changes(&self, e: &BasicBlockElement) -> Changes {
        match e {
            BasicBlockElement::Assignment(a) => {
                let r = &a.lhs.reference;
                let symbols = r
                    .vertices
                    .iter()
                    .filter(|v| matches!(v, VariableReferenceVertex::SymbolReference(_)))
                    .count();
                let pointer = base_symbol(r)
                    .and_then(|(id, scope)| self.symbols.lookup(scope, id))
                    .is_none_or(|info| info.pointer);
                if symbols != 1
                    || pointer
                    || has_function_call(&a.rhs)
                    || reference_has_function_call(r)
                {
                    return Changes::Anything;
                }
                let mut c = Changes::none();
                if let Some((id, scope)) = base_symbol(r) {
                    c.add((id.to_string(), scope));
                }
                c
            }
            _ => Changes::Anything,
        }
    }

    /// The arrays copied once per execution of a loop (by vertex index),
    /// in push order.
    pub fn snapshots(&self) -> &HashMap<usize, Vec<Snapshot>> {
        &self.snapshots
    }

    /// The hoisting context of the statements of basic block `block`.
    pub fn for_block(&mut self, block: usize) -> BlockHoist<'_, 'a> {
        BlockHoist {
            hoister: self,
            block,
        }
    }

    /// The temporaries of the values hoisted out of a loop (by vertex
    /// index), in push order.
    pub fn hoisted(&self) -> &HashMap<usize, Vec<VariableReference>> {
        &self.hoisted
    }
}

/// The index of a `ForLoop` (the symbol its initialisation assigns).
fn loop_index(v: &ControlFlowVertex) -> HashSet<(String, u64)> {
    let mut out = HashSet::new();
    if let ControlFlowVertex::ForLoop(f) = v {
        if let Some((id, scope)) = f
            .initialization
            .as_ref()
            .and_then(|a| base_symbol(&a.lhs.reference))
        {
            out.insert((id.to_string(), scope));
        }
    }
    out
}

/// The index and literal step of a counted `ForLoop` over a scalar
/// (`t = lo; ...; t = t + s`).
fn counted_index(v: &ControlFlowVertex) -> Option<CountedIndex> {
    let ControlFlowVertex::ForLoop(f) = v else {
        return None;
    };
    let init = f.initialization.as_ref()?;
    let update = f.update.as_ref()?;
    let index = &init.lhs.reference;
    if !matches!(
        index.vertices.as_slice(),
        [VariableReferenceVertex::SymbolReference(_)]
    ) || variable_key(&update.lhs.reference) != variable_key(index)
    {
        return None;
    }
    let step = step_of(update, index)?;
    let (id, scope) = base_symbol(index)?;
    Some(CountedIndex {
        index: (id.to_string(), scope),
        step,
    })
}

/// The loops directly or indirectly inside `regions` that are outermost
/// there (their own inner loops are already in their index sets).
fn inner_loops(regions: &[Region]) -> Vec<usize> {
    let mut out = Vec::new();
    for r in regions {
        match r {
            Region::Block(_) => {}
            Region::Branch { arms, .. } => {
                for a in arms {
                    out.extend(inner_loops(&a.body));
                }
            }
            Region::Loop { vertex, .. } => out.push(*vertex),
        }
    }
    out
}

/// What a control vertex itself may change: a `ForLoop` its index (through
/// initialisation and update); any condition with a function call anything.
fn header_changes(v: &ControlFlowVertex) -> Changes {
    let mut c = Changes::none();
    match v {
        ControlFlowVertex::ForLoop(f) => {
            for a in [&f.initialization, &f.update].into_iter().flatten() {
                if has_function_call(&a.rhs) {
                    return Changes::Anything;
                }
                match base_symbol(&a.lhs.reference) {
                    Some((id, scope)) => c.add((id.to_string(), scope)),
                    None => return Changes::Anything,
                }
            }
            if f.condition.as_ref().is_some_and(has_function_call) {
                return Changes::Anything;
            }
        }
        ControlFlowVertex::If(cv)
        | ControlFlowVertex::Branch(cv)
        | ControlFlowVertex::PreLoop(cv)
        | ControlFlowVertex::PostLoop(cv)
            if cv.condition.as_ref().is_some_and(has_function_call) =>
        {
            return Changes::Anything;
        }
        _ => {}
    }
    c
}

fn has_function_call(e: &Expression) -> bool {
    e.vertices.iter().any(|v| match v {
        ExpressionVertex::FunctionCall(_) => true,
        ExpressionVertex::VariableReference(r) => reference_has_function_call(r),
        _ => false,
    })
}

pub(super) fn reference_has_function_call(r: &VariableReference) -> bool {
    r.vertices.iter().any(|v| match v {
        VariableReferenceVertex::ArrayElementReference(a) => a.index_triplets.iter().any(|t| {
            [&t.index, &t.bound, &t.stride]
                .into_iter()
                .flatten()
                .any(has_function_call)
        }),
        _ => false,
    })
}

/// The hoisting context of one basic block: the entry point for anything
/// that tapes a Jacobian entry (statement-level factors in `taping.rs`, and
/// any other taping of accumulated entries).
pub struct BlockHoist<'h, 'a> {
    pub(super) hoister: &'h mut Hoister<'a>,
    pub(super) block: usize,
}

impl BlockHoist<'_, '_> {
    /// Tapes the Jacobian entry `value` (a program variable or a temporary)
    /// of a statement in this block, hoisting it out of the outermost
    /// enclosing loop in which it is invariant. `definitions`: the
    /// assignments computing the temporaries `value` may read, in execution
    /// order, all before the point of the push (the statement's
    /// preaccumulation); `statement_id`: the id for the saving assignment.
    ///
    /// `Some`: the caller puts `save` where the push would be and lets the
    /// reverse sweep read `read`; the push after the loop and the pop before
    /// the reversed loop are the control flow reversal's (`hoisted`).
    /// `None`: not invariant in any enclosing loop; the caller pushes the
    /// value where it is computed, as before.
    pub fn tape_factor(
        &mut self,
        value: &VariableReference,
        definitions: &[Assignment],
        temps: &mut AdjointTemps,
        statement_id: String,
    ) -> Option<HoistedFactor> {
        let (target, key) = self.hoist_target(value, definitions)?;
        let h = &mut *self.hoister;
        let read = match h.by_key.get(&(target, key.clone())) {
            Some(t) => t.clone(),
            None => {
                let t = temps.hoisted_value();
                h.hoisted.entry(target).or_default().push(t.clone());
                h.by_key.insert((target, key), t.clone());
                t
            }
        };
        let save = Assignment {
            statement_id: statement_id.into(),
            do_chain: 0,
            line_number: 0,
            lhs: AssignmentLhs {
                reference: read.clone(),
                live: true,
            },
            rhs: variable_expression(value),
        };
        Some(HoistedFactor { save, read })
    }
}

impl BlockHoist<'_, '_> {
    /// Whether `tape_factor` would hoist `value` (nothing is recorded):
    /// for costing code before choosing it.
    pub fn would_hoist(&self, value: &VariableReference, definitions: &[Assignment]) -> bool {
        self.hoist_target(value, definitions).is_some()
    }

    /// The outermost enclosing loop in which `value` is invariant, and the
    /// key of its expanded expression.
    fn hoist_target(
        &self,
        value: &VariableReference,
        definitions: &[Assignment],
    ) -> Option<(usize, String)> {
        let h = &*self.hoister;
        let loops = h.enclosing.get(&self.block)?;
        if loops.is_empty() {
            return None;
        }
        let defined: HashMap<String, &Expression> = definitions
            .iter()
            .map(|a| (variable_key(&a.lhs.reference), &a.rhs))
            .collect();
        let mut reads = Vec::new();
        let mut key = String::new();
        let expander = Expander {
            symbols: h.symbols,
            defined: &defined,
        };
        expander.reference(value, 0, &mut reads, &mut key)?;
        let target = *loops.iter().find(|l| match h.changes.get(l) {
            Some(c) => !reads.iter().any(|s| c.may_change(s)),
            None => false,
        })?;
        Some((target, key))
    }
}

/// Follows temporaries back to their definitions, collecting the program
/// variables a value reads and a key of the expanded expression; `None` if
/// the value reads something the safety rules exclude.
struct Expander<'x> {
    symbols: &'x SymbolIndex<'x>,
    defined: &'x HashMap<String, &'x Expression>,
}

/// Deeper definitions chains than this are not followed (no valid
/// preamble is that deep; guards against cycles in bad input).
const MAX_DEPTH: usize = 256;

impl Expander<'_> {
    fn reference(
        &self,
        r: &VariableReference,
        depth: usize,
        reads: &mut Vec<(String, u64)>,
        key: &mut String,
    ) -> Option<()> {
        let k = variable_key(r);
        if let Some(def) = self.defined.get(&k) {
            if depth >= MAX_DEPTH {
                return None;
            }
            let view = ExprView::new(def).ok()?;
            let root = view.root().ok()?;
            return self.vertex(&view, root, depth + 1, reads, key);
        }
        let mut symbols = r
            .vertices
            .iter()
            .filter(|v| matches!(v, VariableReferenceVertex::SymbolReference(_)));
        let (Some(_), None) = (symbols.next(), symbols.next()) else {
            return None;
        };
        let (id, scope) = base_symbol(r)?;
        let info = self.symbols.lookup(scope, id)?;
        if info.pointer {
            return None;
        }
        let mut element = false;
        for v in &r.vertices {
            if let VariableReferenceVertex::ArrayElementReference(a) = v {
                element = true;
                let literal = |e: &Option<Expression>| match e {
                    None => true,
                    Some(e) => matches!(e.vertices.as_slice(),
                        [ExpressionVertex::Constant(c)] if exact_integer_literal(c).is_some()),
                };
                if !a
                    .index_triplets
                    .iter()
                    .all(|t| t.index.is_some() && t.bound.is_none() && literal(&t.index))
                {
                    return None;
                }
            }
        }
        if info.shape.rank() > 0 && !element {
            return None;
        }
        reads.push((id.to_string(), scope));
        key.push_str(&k);
        Some(())
    }

    fn vertex(
        &self,
        view: &ExprView,
        v: usize,
        depth: usize,
        reads: &mut Vec<(String, u64)>,
        key: &mut String,
    ) -> Option<()> {
        match view.vertex(v) {
            ExpressionVertex::VariableReference(r) => return self.reference(r, depth, reads, key),
            ExpressionVertex::Constant(c) => {
                key.push_str("c:");
                key.push_str(&c.value);
            }
            ExpressionVertex::Intrinsic(i) => key.push_str(&i.name),
            ExpressionVertex::BooleanOperation(b) => key.push_str(&format!("{:?}", b.name)),
            ExpressionVertex::FunctionCall(_) | ExpressionVertex::ArgumentReference(_) => {
                return None
            }
        }
        if !view.args[v].is_empty() {
            key.push('(');
            for (k, &a) in view.args[v].iter().enumerate() {
                if k > 0 {
                    key.push(',');
                }
                self.vertex(view, a, depth, reads, key)?;
            }
            key.push(')');
        }
        Some(())
    }
}

/// One array copied once per execution of a loop.
#[derive(Debug, Clone)]
pub struct Snapshot {
    /// The whole array (pushed after the loop).
    pub array: VariableReference,
    /// The whole copy (popped into before the reversed loop).
    pub copy: VariableReference,
}
