//! Binomial checkpointing of counted loops (`!$openad CHECKPOINT
//! BINOMIAL(snapshots=S)`; the front end marks the loop's `ForLoop` with
//! the annotation `checkpoint:binomial:S`, S an integer literal or
//! `name@scope` of an integer variable).
//!
//! Without it the tape of a time-stepping loop grows with the number of
//! steps. A checkpointed loop L is reversed as a unit instead:
//!
//! - **cut** ([`extract`]): L (its `ForLoop`, body and `EndLoop`) is cut out
//!   of its graph and replaced by a basic block holding one marker
//!   (`checkpoint:loop:N`). The rest of the graph is taped and reversed as
//!   usual; the marker behaves like an opaque statement: it ends subscript
//!   sharing, nothing is hoisted across it, and the reverse sweep gets its
//!   mirror (`mirror:checkpoint:loop:N`) exactly at L's reverse position.
//!   The body becomes a graph of its own (Entry → body → Exit, edges into
//!   the `EndLoop`, i.e. `cycle`, into the Exit), differentiated by the
//!   same machinery: its tape section tapes *one iteration*, its adjoint
//!   section reverses one iteration. Loop-invariant hoisting therefore
//!   never crosses L's boundary (inner loops of the body still hoist).
//! - **tape section**, in place of the marker: save the start `lo` and
//!   step of L, store the *entry state* x(0) on the checkpoint stacks
//!   (`oad_state_store`), run L plainly (callees in plain mode), counting
//!   its iterations, then push `lo`, the step, S (if a variable) and the
//!   trip count on the integer tape.
//! - **adjoint section**, in place of the mirror: pop those, restore x(0)
//!   (`oad_state_restore`), and drive the runtime's revolve schedule
//!   (`OAD_snapshots`/`OAD_revolve`) over the iterations 1..trips with S
//!   snapshots: TAKESHOT stores the *loop state* into a slot, RESTORE
//!   restores it (the slot stays live), ADVANCE runs iterations
//!   `old_capo+1..capo` plainly, FIRSTRUN/YOUTURN runs iteration `capo+1`
//!   with the body's tape code and at once its adjoint code. Iteration k
//!   sets the loop index to `lo + (k-1)*step` first.
//!
//! **Which state.** x(0) must let the recomputation reproduce every
//! iteration from scratch, also in split mode where the adjoint runs in
//! another activation of the routine (locals are gone) and in joint mode
//! where the code after L may have changed anything: it is every variable
//! L reads or writes (whole variables: an array element read makes the
//! array part of it). The snapshots only need what an iteration may
//! change: the variables L writes — assignment targets, actual arguments
//! the callee may modify (its `Mod` list, else every variable actual),
//! module and common variables in the callees' `Mod` lists — since
//! variables L only reads keep their x(0) values throughout. Left out:
//! L's own index (every iteration sets it first), named constants,
//! passive `intent(in)` dummies (nobody can change them; a caller
//! restores them), and read-only pointers and read-only non-numeric
//! variables that outlive the routine's activation; a written variable
//! the checkpoint stacks cannot hold (character, derived type, complex,
//! pointer), or a read-only one that is local, is an error. Active
//! variables are stored by value (`%v`): adjoints are never snapshotted.
//! Opaque statements (`Marker`s) in L cannot write variables (the front
//! end refuses the pragma then), so they add nothing.
//!
//! **Modes.** The code L runs in another sweep's role must give its
//! callees the mode they would have there: plain for the plain run and
//! ADVANCE, the tape section's callee mode for a turn's tape code, the
//! adjoint section's for its adjoint code. The booster does not know the
//! template, so it brackets those pieces with `oad_mode_save`,
//! `oad_mode_plain`, `oad_mode_tape_sweep`, `oad_mode_adjoint_sweep`,
//! `oad_mode_restore` (inlinable calls; the back end expands them for the
//! unit's template).
//!
//! **Why it is right.** The tape and adjoint of one iteration are made
//! from the state it starts from, x(k-1), which the schedule reconstructs
//! from a snapshot or x(0) by plain iterations (plain code computes what
//! the taping code computes). Each turn pushes and pops only its own tape
//! (and its callees' checkpoints), so the stacks are balanced around it,
//! and the adjoints flow through the turns in the order steps, ..., 1: the
//! adjoint of L. Everything outside L sees the tape it would have seen
//! with L a single opaque statement, and the marker's mirror is at the
//! reverse position of that statement, so L's pushes and pops are LIFO
//! with all others.

use std::collections::{BTreeSet, HashMap, HashSet};

use xaif_schema::model::{
    Argument, ArgumentValue, Assignment, AssignmentLhs, BasicBlock, BasicBlockElement, BooleanOp,
    BooleanOperation, ConditionVertex, ControlFlowEdge, ControlFlowVertex, Expression,
    ExpressionVertex, ForLoop, ForLoopReversal, InlinableSubroutineCall, Marker, PlainVertex,
    SymbolType, VariableReference,
};

use super::builder::{set_vertex_id, GraphBuilder, PendingEdge};
use super::callee_effects::CalleeEffects;
use super::reversal::SweepGraph;
use super::temps::AdjointTemps;
use crate::error::StatementError;
use crate::expr::{
    base_symbol, symbols_in_expression, symbols_in_reference, variable_key, ExprBuilder, ExprView,
};
use crate::symbols::SymbolIndex;
use crate::temporaries::temp_reference;

/// Prefix of the `ForLoop/@annotation` of a loop to checkpoint.
pub const ANNOTATION_PREFIX: &str = "checkpoint:binomial:";
/// Prefix of the marker standing for a cut-out loop in its graph.
pub const MARKER_PREFIX: &str = "checkpoint:loop:";

/// The runtime's action codes (`OAD_revolve`).
const TAKESHOT: i64 = 1;
const ADVANCE: i64 = 2;
const FIRSTRUN: i64 = 3;
const YOUTURN: i64 = 4;
const RESTORE: i64 = 5;
const TERMINATE: i64 = 6;

/// The number of snapshots as the generated code uses it.
#[derive(Debug, Clone)]
pub enum Snapshots {
    Literal(i64),
    /// An integer variable, read when the loop starts.
    Variable(VariableReference),
}

/// A checkpointed loop cut out of its graph.
#[derive(Debug, Clone)]
pub struct CheckpointedLoop {
    /// The marker's annotation.
    pub key: String,
    /// The statement id of the loop's initialisation (errors, markers).
    pub statement_id: String,
    pub header: ForLoop,
    /// The loop index and the start and step expressions.
    pub index: VariableReference,
    pub start: Expression,
    pub step: Expression,
    pub snapshots: Snapshots,
    /// The loop vertex, its body and its EndLoop, with the edges among them.
    pub vertices: Vec<ControlFlowVertex>,
    pub edges: Vec<ControlFlowEdge>,
    /// Where the body starts (the target of the loop's body edge).
    pub body_start: String,
    /// The body as a graph of its own.
    pub body: SweepGraph,
}

/// A graph with its checkpointed loops cut out: each is a basic block
/// holding one marker (annotation `checkpoint:loop:N`, N from `first`
/// on). Loops inside a cut-out loop's body stay there (cut when the body
/// is differentiated). `Ok(None)`: nothing to cut. Errors are (statement
/// id, message).
pub fn extract(
    graph: &SweepGraph,
    first: usize,
) -> Result<Option<(SweepGraph, Vec<CheckpointedLoop>)>, StatementError> {
    let vertices = &graph.vertices;
    let edges = &graph.edges;
    let candidates: Vec<usize> = (0..vertices.len())
        .filter(|&v| matches!(&vertices[v], ControlFlowVertex::ForLoop(f) if f.annotation.starts_with(ANNOTATION_PREFIX)))
        .collect();
    if candidates.is_empty() {
        return Ok(None);
    }
    let by_id: HashMap<&str, usize> = vertices
        .iter()
        .enumerate()
        .map(|(i, v)| (v.vertex_id(), i))
        .collect();
    let index_of = |id: &str| {
        by_id
            .get(id)
            .copied()
            .ok_or_else(|| StatementError::new(None, format!("edge to unknown vertex '{id}'")))
    };
    let successors = |u: usize| -> Result<Vec<usize>, StatementError> {
        edges
            .iter()
            .filter(|e| e.source == vertices[u].vertex_id())
            .map(|e| index_of(&e.target))
            .collect()
    };
    let mut bodies: Vec<(usize, BTreeSet<usize>)> = Vec::new();
    for &v in &candidates {
        let ControlFlowVertex::ForLoop(f) = &vertices[v] else {
            continue;
        };
        let statement = f
            .initialization
            .as_ref()
            .map(|a| a.statement_id.to_string());
        let leaves = || {
            StatementError::unsupported(
                statement.clone(),
                "unsupported construct in a CHECKPOINT BINOMIAL loop: its body leaves the loop (exit, return, goto out of it, or cycle of an enclosing loop); the reversal needs every iteration to end at the loop's end",
            )
        };
        let out_of = |value: i64| {
            edges.iter().position(|e| {
                e.source == f.vertex_id && e.has_condition_value && e.condition_value == value
            })
        };
        let (Some(body_edge), Some(exit_edge)) = (out_of(1), out_of(0)) else {
            return Err(StatementError::new(
                statement,
                "malformed checkpointed loop (no body or exit edge)",
            ));
        };
        let exit_target = index_of(&edges[exit_edge].target)?;
        let mut set = BTreeSet::new();
        let mut work = vec![index_of(&edges[body_edge].target)?];
        while let Some(u) = work.pop() {
            if u == v || !set.insert(u) {
                continue;
            }
            if matches!(vertices[u], ControlFlowVertex::Exit(_)) {
                return Err(leaves());
            }
            if u == exit_target {
                return Err(leaves());
            }
            work.extend(successors(u)?);
        }
        // A jump back to code before the loop: that code is reachable
        // from the Entry without passing the loop.
        let mut before = vec![false; vertices.len()];
        let mut work: Vec<usize> = (0..vertices.len())
            .filter(|&u| matches!(vertices[u], ControlFlowVertex::Entry(_)))
            .collect();
        while let Some(u) = work.pop() {
            if u == v || std::mem::replace(&mut before[u], true) {
                continue;
            }
            work.extend(successors(u)?);
        }
        if set.iter().any(|&u| before[u]) {
            return Err(leaves());
        }
        bodies.push((v, set));
    }
    // Outermost loops only.
    let outer: Vec<&(usize, BTreeSet<usize>)> = bodies
        .iter()
        .filter(|(v, _)| !bodies.iter().any(|(_, set)| set.contains(v)))
        .collect();
    let taken = |id: &str| by_id.contains_key(id);
    let fresh = |stem: &str| {
        let mut id = stem.to_string();
        while taken(&id) {
            id.push('_');
        }
        id
    };
    let mut cut: HashSet<usize> = HashSet::new();
    let mut loops = Vec::new();
    let mut markers: HashMap<usize, BasicBlock> = HashMap::new();
    for (n, (v, set)) in outer.iter().enumerate() {
        let ControlFlowVertex::ForLoop(f) = &vertices[*v] else {
            continue;
        };
        let n = first + n;
        let key = format!("{MARKER_PREFIX}{n}");
        let l = cut_loop(vertices, edges, *v, set, f, &key, &fresh)?;
        cut.insert(*v);
        cut.extend(set.iter().copied());
        markers.insert(
            *v,
            BasicBlock {
                vertex_id: f.vertex_id.clone(),
                annotation: Default::default(),
                scope_id: scope_of(vertices),
                elements: vec![BasicBlockElement::Marker(Marker {
                    statement_id: l.statement_id.clone().into(),
                    annotation: key.into(),
                })],
            },
        );
        loops.push(l);
    }
    // The outer graph: the marker block takes the loop vertex's id, so the
    // edges into the loop reach it; the loop's exit edge leaves it.
    let mut out = SweepGraph {
        structured: graph.structured,
        vertices: Vec::new(),
        edges: Vec::new(),
    };
    for (i, v) in vertices.iter().enumerate() {
        if let Some(b) = markers.remove(&i) {
            out.vertices.push(ControlFlowVertex::BasicBlock(b));
        } else if !cut.contains(&i) {
            out.vertices.push(v.clone());
        }
    }
    let loop_ids: HashSet<&str> = outer
        .iter()
        .map(|(v, _)| vertices[*v].vertex_id())
        .collect();
    for e in edges {
        let (s, t) = (index_of(&e.source)?, index_of(&e.target)?);
        let s_loop = loop_ids.contains(e.source.as_str());
        let inside = |i: usize| cut.contains(&i) && !loop_ids.contains(vertices[i].vertex_id());
        if inside(s) || inside(t) {
            continue;
        }
        let mut e = e.clone();
        if s_loop {
            // The loop's exit edge (its body edge leads inside).
            e.has_condition_value = false;
            e.condition_value = 1;
        }
        out.edges.push(e);
    }
    // Cut loops leave gotos only inside themselves.
    if !out
        .vertices
        .iter()
        .any(|v| matches!(v, ControlFlowVertex::Goto(_) | ControlFlowVertex::Label(_)))
    {
        out.structured = true;
    }
    Ok(Some((out, loops)))
}

fn scope_of(vertices: &[ControlFlowVertex]) -> u64 {
    vertices
        .iter()
        .find_map(|v| match v {
            ControlFlowVertex::BasicBlock(b) => Some(b.scope_id),
            _ => None,
        })
        .unwrap_or(0)
}

fn cut_loop(
    vertices: &[ControlFlowVertex],
    edges: &[ControlFlowEdge],
    v: usize,
    set: &BTreeSet<usize>,
    f: &ForLoop,
    key: &str,
    fresh: &dyn Fn(&str) -> String,
) -> Result<CheckpointedLoop, StatementError> {
    let statement = f
        .initialization
        .as_ref()
        .map(|a| a.statement_id.to_string());
    let err = |m: String| StatementError::new(statement.clone(), m);
    let (Some(init), Some(update)) = (&f.initialization, &f.update) else {
        return Err(err(
            "a checkpointed loop needs a counted loop's initialisation and update".into(),
        ));
    };
    let index = init.lhs.reference.clone();
    let step = step_of(update, &index)
        .ok_or_else(|| err("the update of the checkpointed loop is not `i = i + step`".into()))?;
    let snapshots = snapshots_of(&f.annotation).map_err(|e| StatementError {
        statement_id: statement.clone(),
        ..e
    })?;
    if let Some((at, name)) = opaque_writes(&f.annotation).into_iter().next() {
        return Err(StatementError::unsupported(
            Some(at),
            format!("unsupported construct in a CHECKPOINT BINOMIAL loop: a statement kept opaque (read, allocate, pointer, derived-type or character assignment) changes '{name}', which the adjoint cannot snapshot; move it out of the loop or into a subroutine"),
        ));
    }
    let loop_id = f.vertex_id.as_str();
    let in_loop = |id: &str| id == loop_id || set.iter().any(|&u| vertices[u].vertex_id() == id);
    let end_loops: Vec<usize> = set
        .iter()
        .copied()
        .filter(|&u| {
            edges
                .iter()
                .any(|e| e.source == vertices[u].vertex_id() && e.target == loop_id)
        })
        .collect();
    let [end] = end_loops.as_slice() else {
        return Err(err("the checkpointed loop has no single end".into()));
    };
    if !matches!(vertices[*end], ControlFlowVertex::EndLoop(_)) {
        return Err(err("the checkpointed loop has no single end".into()));
    }
    let body_start = edges
        .iter()
        .find(|e| e.source == loop_id && e.has_condition_value && e.condition_value == 1)
        .map(|e| e.target.clone())
        .unwrap_or_default();
    let mut loop_vertices = vec![vertices[v].clone()];
    loop_vertices.extend(set.iter().map(|&u| vertices[u].clone()));
    let loop_edges: Vec<ControlFlowEdge> = edges
        .iter()
        .filter(|e| in_loop(&e.source) && in_loop(&e.target))
        .cloned()
        .collect();
    // The body graph: the EndLoop becomes its Exit.
    let end_id = vertices[*end].vertex_id().to_string();
    let entry_id = fresh("oad_ck_entry");
    let mut body = SweepGraph {
        structured: true,
        vertices: vec![ControlFlowVertex::Entry(PlainVertex {
            vertex_id: entry_id.clone().into(),
            annotation: Default::default(),
        })],
        edges: vec![ControlFlowEdge {
            edge_id: fresh("oad_ck_entry_edge").into(),
            source: entry_id.into(),
            target: body_start.clone(),
            ..ControlFlowEdge::default()
        }],
    };
    for &u in set {
        if u == *end {
            body.vertices.push(ControlFlowVertex::Exit(PlainVertex {
                vertex_id: end_id.clone().into(),
                annotation: Default::default(),
            }));
        } else {
            body.vertices.push(vertices[u].clone());
        }
    }
    body.edges.extend(
        loop_edges
            .iter()
            .filter(|e| e.source != loop_id && e.target != loop_id)
            .cloned(),
    );
    body.structured = !body
        .vertices
        .iter()
        .any(|v| matches!(v, ControlFlowVertex::Goto(_) | ControlFlowVertex::Label(_)));
    Ok(CheckpointedLoop {
        key: key.to_string(),
        statement_id: statement.unwrap_or_default().to_string(),
        header: f.clone(),
        index,
        start: init.rhs.clone(),
        step,
        snapshots,
        vertices: loop_vertices,
        edges: loop_edges,
        body_start: body_start.to_string(),
        body,
    })
}

/// The step of `i = i + step` (or `step + i`, `i - c`).
fn step_of(update: &Assignment, index: &VariableReference) -> Option<Expression> {
    let view = ExprView::new(&update.rhs).ok()?;
    let root = view.root().ok()?;
    let ExpressionVertex::Intrinsic(op) = view.vertex(root) else {
        return None;
    };
    let [a, b] = view.args[root].as_slice() else {
        return None;
    };
    let is_index = |v: usize| matches!(view.vertex(v), ExpressionVertex::VariableReference(r) if variable_key(r) == variable_key(index));
    let mut e = ExprBuilder::new();
    let root = match op.name.as_str() {
        "add_scal_scal" if is_index(*a) => e.copy_subexpression(&view, *b),
        "add_scal_scal" if is_index(*b) => e.copy_subexpression(&view, *a),
        "sub_scal_scal" if is_index(*a) => {
            let c = e.copy_subexpression(&view, *b);
            integer_op(&mut e, "minus_scal", &[c])
        }
        _ => return None,
    };
    Some(e.finish(root))
}

/// The opaque statements of the loop's body that write a variable, as
/// the front end lists them after the snapshot count
/// (`;opaque:sN=name`): (statement id, variable).
fn opaque_writes(annotation: &str) -> Vec<(String, String)> {
    annotation
        .split(';')
        .skip(1)
        .filter_map(|part| part.trim().strip_prefix("opaque:"))
        .filter_map(|w| w.split_once('='))
        .map(|(s, n)| (s.to_string(), n.to_string()))
        .collect()
}

/// The variables the body's opaque statements read into temporaries
/// (`;reads:name@scope`): part of the entry state.
fn opaque_reads(annotation: &str) -> Vec<(String, u64)> {
    annotation
        .split(';')
        .skip(1)
        .filter_map(|part| part.trim().strip_prefix("reads:"))
        .filter_map(|r| r.split_once('@'))
        .filter_map(|(n, s)| Some((n.to_string(), s.parse().ok()?)))
        .collect()
}

fn snapshots_of(annotation: &str) -> Result<Snapshots, StatementError> {
    let text = annotation
        .strip_prefix(ANNOTATION_PREFIX)
        .unwrap_or("")
        .split(';')
        .next()
        .unwrap_or("")
        .trim();
    if let Ok(v) = text.parse::<i64>() {
        if v < 1 || v > i64::from(i32::MAX) {
            return Err(StatementError::semantic(format!(
                "a checkpointed loop needs between 1 and {} snapshots, not {v}",
                i32::MAX
            )));
        }
        return Ok(Snapshots::Literal(v));
    }
    let parsed = text
        .split_once('@')
        .and_then(|(name, scope)| Some((name, scope.parse::<u64>().ok()?)))
        .filter(|(name, _)| !name.is_empty());
    match parsed {
        Some((name, scope)) => Ok(Snapshots::Variable(temp_reference(name, scope))),
        None => Err(StatementError::semantic(format!(
            "malformed checkpoint annotation '{annotation}' (expected '{ANNOTATION_PREFIX}S' with S an integer or name@scope)"
        ))),
    }
}

/// What a checkpointed loop stores: x(0) (read or written) and the
/// snapshots (written), whole variables in a fixed order.
#[derive(Debug, Clone, Default)]
pub struct LoopState {
    pub entry: Vec<VariableReference>,
    pub snapshot: Vec<VariableReference>,
}

/// The program facts the state needs.
pub struct StateContext<'a> {
    pub symbols: &'a SymbolIndex<'a>,
    pub effects: &'a HashMap<String, CalleeEffects>,
    /// Passive `intent(in)` dummies (name, scope): never assignable.
    pub read_only_dummies: &'a HashSet<(String, u64)>,
    /// The routine's scope and its dummies' names.
    pub scope: u64,
    pub formals: &'a HashSet<String>,
}

/// The entry state and the snapshot state of a loop ([`LoopState`]).
pub fn loop_state(l: &CheckpointedLoop, ctx: &StateContext) -> Result<LoopState, StatementError> {
    let mut scan = Scan::default();
    for v in &l.vertices {
        match v {
            ControlFlowVertex::BasicBlock(b) => {
                for e in &b.elements {
                    match e {
                        BasicBlockElement::Assignment(a) => {
                            scan.write(&a.lhs.reference);
                            scan.expression(&a.rhs);
                        }
                        BasicBlockElement::SubroutineCall(c) => {
                            let effects = c.symbol_id.as_deref().and_then(|s| ctx.effects.get(s));
                            for a in &c.arguments {
                                let ArgumentValue::Variable(r) = &a.value else {
                                    continue;
                                };
                                let modified = effects
                                    .and_then(|e| e.modified_positions.as_ref())
                                    .is_none_or(|p| p.contains(&a.position));
                                if modified && !r.constant {
                                    scan.write(r);
                                } else {
                                    scan.reference(r);
                                }
                            }
                            if let Some(e) = effects {
                                scan.read.extend(e.globals_read.iter().cloned());
                                scan.written.extend(e.globals_modified.iter().cloned());
                            }
                        }
                        _ => {}
                    }
                }
            }
            ControlFlowVertex::If(c)
            | ControlFlowVertex::Branch(c)
            | ControlFlowVertex::PreLoop(c)
            | ControlFlowVertex::PostLoop(c) => {
                if let Some(e) = &c.condition {
                    scan.expression(e);
                }
            }
            ControlFlowVertex::ForLoop(f) => {
                for a in [&f.initialization, &f.update].into_iter().flatten() {
                    scan.write(&a.lhs.reference);
                    scan.expression(&a.rhs);
                }
                if let Some(e) = &f.condition {
                    scan.expression(e);
                }
            }
            _ => {}
        }
    }
    scan.read.extend(opaque_reads(&l.header.annotation));
    let Scan {
        read,
        written,
        constants,
    } = scan;
    let index = base_symbol(&l.index).map(|(n, s)| (n.to_string(), s));
    let statement = Some(l.statement_id.clone());
    let mut state = LoopState::default();
    let all: BTreeSet<(String, u64)> = read.union(&written).cloned().collect();
    for key in all {
        if Some(&key) == index.as_ref()
            || constants.contains(&key)
            || ctx.read_only_dummies.contains(&key)
        {
            continue;
        }
        let (name, scope) = &key;
        let Some(info) = ctx.symbols.lookup(*scope, name) else {
            continue;
        };
        let is_written = written.contains(&key);
        let storable = !info.pointer
            && matches!(
                info.type_,
                SymbolType::Real | SymbolType::Integer | SymbolType::Bool
            );
        if !storable {
            let what = match info.type_ {
                _ if info.pointer => "a pointer".to_string(),
                SymbolType::Opaque => "a derived-type variable".to_string(),
                SymbolType::Char | SymbolType::String => "a character variable".to_string(),
                SymbolType::Complex => "a complex variable".to_string(),
                t => format!("of type {t:?}").to_ascii_lowercase(),
            };
            let local = *scope == ctx.scope && !ctx.formals.contains(name);
            if is_written {
                return Err(StatementError::unsupported(
                    statement,
                    format!("unsupported construct in a CHECKPOINT BINOMIAL loop: it changes '{name}', {what}, which a snapshot cannot hold (only real, integer and logical variables)"),
                ));
            }
            if local {
                return Err(StatementError::unsupported(
                    statement,
                    format!("unsupported construct in a CHECKPOINT BINOMIAL loop: it reads the local '{name}', {what}, which the adjoint's recomputation cannot restore (copy what the loop needs into real, integer or logical variables before the loop)"),
                ));
            }
            continue;
        }
        let mut r = temp_reference(name, *scope);
        if info.active {
            r.active = xaif_schema::model::ActiveUse::True;
        }
        if is_written {
            state.snapshot.push(r.clone());
        }
        state.entry.push(r);
    }
    Ok(state)
}

/// The variables a piece of code reads and writes, by (symbol, scope).
#[derive(Default)]
struct Scan {
    read: BTreeSet<(String, u64)>,
    written: BTreeSet<(String, u64)>,
    /// Named constants met (references marked constant).
    constants: HashSet<(String, u64)>,
}

impl Scan {
    /// A reference read: its symbol and its subscripts' symbols.
    fn reference(&mut self, r: &VariableReference) {
        if r.constant {
            if let Some((n, s)) = base_symbol(r) {
                self.constants.insert((n.to_string(), s));
            }
        }
        let mut out = Vec::new();
        symbols_in_reference(r, &mut out);
        self.read.extend(out);
    }

    /// A reference written (whole variable), its subscripts read.
    fn write(&mut self, r: &VariableReference) {
        self.reference(r);
        if let Some((n, s)) = base_symbol(r) {
            self.written.insert((n.to_string(), s));
        }
    }

    fn expression(&mut self, e: &Expression) {
        for v in &e.vertices {
            if let ExpressionVertex::VariableReference(r) = v {
                if r.constant {
                    if let Some((n, s)) = base_symbol(r) {
                        self.constants.insert((n.to_string(), s));
                    }
                }
            }
        }
        let mut out = Vec::new();
        symbols_in_expression(e, &mut out);
        self.read.extend(out);
    }
}

/// Generated statement ids: the loop's own, so diagnostics point at it.
struct Ids {
    base: String,
    next: usize,
}

impl Ids {
    fn next(&mut self) -> String {
        self.next += 1;
        format!("{}_oad_ck{}", self.base, self.next)
    }
}

fn call(ids: &mut Ids, name: &str, args: Vec<ArgumentValue>) -> BasicBlockElement {
    BasicBlockElement::InlinableSubroutineCall(InlinableSubroutineCall {
        subroutine_name: name.to_string().into(),
        statement_id: ids.next().into(),
        arguments: args
            .into_iter()
            .enumerate()
            .map(|(k, value)| Argument {
                position: k as u64 + 1,
                annotation: Default::default(),
                value,
            })
            .collect(),
    })
}

fn var(r: &VariableReference) -> ArgumentValue {
    ArgumentValue::Variable(r.clone())
}

fn assign(ids: &mut Ids, target: &VariableReference, rhs: Expression) -> BasicBlockElement {
    BasicBlockElement::Assignment(Assignment {
        statement_id: ids.next().into(),
        do_chain: 0,
        line_number: 0,
        lhs: AssignmentLhs {
            reference: target.clone(),
            live: true,
        },
        rhs,
    })
}

/// An integer-typed intrinsic application.
fn integer_op(e: &mut ExprBuilder, name: &str, args: &[usize]) -> usize {
    let v = e.intrinsic(name, args);
    if let Some(ExpressionVertex::Intrinsic(i)) = e.expr.vertices.get_mut(v) {
        i.r_type = SymbolType::Integer;
    }
    v
}

/// The temporaries of one checkpointed loop.
struct Temps {
    state: VariableReference,
    lo: VariableReference,
    step: VariableReference,
    trips: VariableReference,
    snaps: VariableReference,
    action: VariableReference,
    first: VariableReference,
    last: VariableReference,
    k: VariableReference,
}

impl Temps {
    fn new(temps: &mut AdjointTemps) -> Temps {
        let (state, ints) = temps.checkpointed_loop(&["lo", "st", "n", "s", "a", "f", "t", "k"]);
        let [lo, step, trips, snaps, action, first, last, k] =
            <[VariableReference; 8]>::try_from(ints).unwrap_or_else(|_| {
                unreachable!("checkpointed_loop returns one temporary per stem")
            });
        Temps {
            state,
            lo,
            step,
            trips,
            snaps,
            action,
            first,
            last,
            k,
        }
    }
}

/// The two pieces of code replacing a checkpointed loop.
pub struct LoopSweeps {
    /// In the tape section, at the loop's marker.
    pub tape: SweepGraph,
    /// In the adjoint section, at the marker's mirror.
    pub adjoint: SweepGraph,
}

/// The code of a checkpointed loop, given the sweeps of its body
/// (`body_tape`: one iteration taped; `body_adjoint`: its reversal).
pub fn loop_sweeps(
    l: &CheckpointedLoop,
    state: &LoopState,
    body_tape: &SweepGraph,
    body_adjoint: &SweepGraph,
    scope: u64,
    temps: &mut AdjointTemps,
) -> LoopSweeps {
    let t = Temps::new(temps);
    let mut ids = Ids {
        base: l.statement_id.clone(),
        next: 0,
    };
    LoopSweeps {
        tape: tape_code(l, state, &t, &mut ids, scope),
        adjoint: adjoint_code(l, state, body_tape, body_adjoint, &t, &mut ids, scope),
    }
}

/// Tape section: save the loop's start and step, store x(0), run the loop
/// plainly counting its trips, push the trip information.
fn tape_code(
    l: &CheckpointedLoop,
    state: &LoopState,
    t: &Temps,
    ids: &mut Ids,
    scope: u64,
) -> SweepGraph {
    let mut b = GraphBuilder::new(scope);
    b.add_plain(ControlFlowVertex::Entry);
    b.statement(assign(ids, &t.lo, l.start.clone()));
    b.statement(assign(ids, &t.step, l.step.clone()));
    if let Snapshots::Variable(s) = &l.snapshots {
        b.statement(assign(ids, &t.snaps, crate::expr::variable_expression(s)));
    }
    b.statement(assign(ids, &t.trips, crate::expr::integer_expression(0)));
    for x in &state.entry {
        b.statement(call(ids, "oad_state_store", vec![var(x)]));
    }
    b.statement(call(ids, "oad_mode_save", vec![var(&t.state)]));
    b.statement(call(ids, "oad_mode_plain", vec![var(&t.state)]));
    // The loop as it is, its body starting with the trip count.
    let mut whole_vertices = Vec::with_capacity(l.vertices.len() + 3);
    let mut whole_edges = Vec::with_capacity(l.edges.len() + 3);
    let entry = "entry".to_string();
    let exit = "exit".to_string();
    let count = "count".to_string();
    whole_vertices.push(ControlFlowVertex::Entry(PlainVertex {
        vertex_id: entry.clone().into(),
        annotation: Default::default(),
    }));
    let loop_id = l.header.vertex_id.clone();
    for v in &l.vertices {
        let mut v = v.clone();
        let id = format!("l{}", v.vertex_id());
        set_vertex_id(&mut v, id);
        whole_vertices.push(v);
    }
    let increment = {
        let mut e = ExprBuilder::new();
        let x = e.variable(&t.trips);
        let one = e.constant_int(1);
        let sum = integer_op(&mut e, "add_scal_scal", &[x, one]);
        e.finish(sum)
    };
    whole_vertices.push(ControlFlowVertex::BasicBlock(BasicBlock {
        vertex_id: count.clone().into(),
        annotation: Default::default(),
        scope_id: scope,
        elements: vec![assign(ids, &t.trips, increment)],
    }));
    whole_vertices.push(ControlFlowVertex::Exit(PlainVertex {
        vertex_id: exit.clone().into(),
        annotation: Default::default(),
    }));
    let edge = |id: &str, s: &str, t: &str, c: Option<i64>| ControlFlowEdge {
        edge_id: id.to_string().into(),
        source: s.to_string().into(),
        target: t.to_string().into(),
        annotation: Default::default(),
        has_condition_value: c.is_some(),
        condition_value: c.unwrap_or(1),
    };
    let lid = |id: &str| format!("l{id}");
    whole_edges.push(edge("in", &entry, &lid(&loop_id), None));
    for e in &l.edges {
        if e.source == loop_id && e.target == l.body_start {
            whole_edges.push(edge(&lid(&e.edge_id), &lid(&loop_id), &count, Some(1)));
        } else {
            let mut e = e.clone();
            e.edge_id = lid(&e.edge_id).into();
            e.source = lid(&e.source).into();
            e.target = lid(&e.target).into();
            whole_edges.push(e);
        }
    }
    whole_edges.push(edge("counted", &count, &lid(&l.body_start), None));
    whole_edges.push(edge("out", &lid(&loop_id), &exit, Some(0)));
    b.splice(
        &whole_vertices,
        &whole_edges,
        &format!("{}t_", prefix_of(l)),
    );
    b.statement(call(ids, "oad_mode_restore", vec![var(&t.state)]));
    b.statement(call(ids, "push_int", vec![var(&t.lo)]));
    b.statement(call(ids, "push_int", vec![var(&t.step)]));
    if matches!(l.snapshots, Snapshots::Variable(_)) {
        b.statement(call(ids, "push_int", vec![var(&t.snaps)]));
    }
    b.statement(call(ids, "push_int", vec![var(&t.trips)]));
    b.add_plain(ControlFlowVertex::Exit);
    SweepGraph {
        structured: true,
        vertices: b.vertices,
        edges: b.edges,
    }
}

/// Vertex id prefix of the pieces spliced for a loop (unique per loop).
fn prefix_of(l: &CheckpointedLoop) -> String {
    format!("ck{}", l.key.trim_start_matches(MARKER_PREFIX))
}

/// Adjoint section: pop the trip information, restore x(0), drive the
/// schedule.
fn adjoint_code(
    l: &CheckpointedLoop,
    state: &LoopState,
    body_tape: &SweepGraph,
    body_adjoint: &SweepGraph,
    t: &Temps,
    ids: &mut Ids,
    scope: u64,
) -> SweepGraph {
    let prefix = prefix_of(l);
    let loop_arg = || var(&t.state);
    let mut b = GraphBuilder::new(scope);
    b.add_plain(ControlFlowVertex::Entry);
    b.statement(call(ids, "pop_int", vec![var(&t.trips)]));
    if matches!(l.snapshots, Snapshots::Variable(_)) {
        b.statement(call(ids, "pop_int", vec![var(&t.snaps)]));
    }
    b.statement(call(ids, "pop_int", vec![var(&t.step)]));
    b.statement(call(ids, "pop_int", vec![var(&t.lo)]));
    for x in state.entry.iter().rev() {
        b.statement(call(ids, "oad_state_restore", vec![var(x)]));
    }
    let snaps = match &l.snapshots {
        Snapshots::Literal(v) => {
            ArgumentValue::Constant(crate::preaccumulate::integer_constant(*v))
        }
        Snapshots::Variable(_) => var(&t.snaps),
    };
    b.statement(call(
        ids,
        "oad_snapshot_start",
        vec![loop_arg(), var(&t.trips), snaps],
    ));
    b.statement(call(ids, "oad_mode_save", vec![loop_arg()]));
    b.statement(assign(ids, &t.action, crate::expr::integer_expression(0)));
    // do while (action /= TERMINATE)
    let driver = {
        let id = b.fresh_id();
        b.add(ControlFlowVertex::PreLoop(ConditionVertex {
            vertex_id: id.into(),
            annotation: Default::default(),
            line_number: 0,
            condition: Some(not_equal(&t.action, TERMINATE)),
        }))
    };
    b.set_pending(vec![PendingEdge {
        source: driver.clone(),
        condition: Some(1),
    }]);
    b.statement(call(
        ids,
        "oad_snapshot_next",
        vec![loop_arg(), var(&t.action)],
    ));
    let branch = {
        let id = b.fresh_id();
        b.add(ControlFlowVertex::Branch(ConditionVertex {
            vertex_id: id.into(),
            annotation: Default::default(),
            line_number: 0,
            condition: Some(crate::expr::variable_expression(&t.action)),
        }))
    };
    let arm = |b: &mut GraphBuilder, values: &[i64]| {
        b.set_pending(
            values
                .iter()
                .map(|&v| PendingEdge {
                    source: branch.clone(),
                    condition: Some(v),
                })
                .collect(),
        );
    };
    let mut joins = Vec::new();
    // TAKESHOT
    arm(&mut b, &[TAKESHOT]);
    b.statement(call(ids, "oad_snapshot_store_begin", vec![loop_arg()]));
    for x in &state.snapshot {
        b.statement(call(ids, "oad_state_store", vec![var(x)]));
    }
    b.statement(call(ids, "oad_snapshot_store_end", vec![loop_arg()]));
    joins.extend(b.take_pending());
    // RESTORE
    arm(&mut b, &[RESTORE]);
    b.statement(call(ids, "oad_snapshot_restore_begin", vec![loop_arg()]));
    for x in state.snapshot.iter().rev() {
        b.statement(call(ids, "oad_state_restore", vec![var(x)]));
    }
    b.statement(call(ids, "oad_snapshot_restore_end", vec![loop_arg()]));
    joins.extend(b.take_pending());
    // ADVANCE: iterations first..last plainly.
    arm(&mut b, &[ADVANCE]);
    b.statement(call(
        ids,
        "oad_snapshot_advance_range",
        vec![loop_arg(), var(&t.first), var(&t.last)],
    ));
    b.statement(call(ids, "oad_mode_plain", vec![loop_arg()]));
    let plain = iterations(l, &l.body, t, ids, scope);
    b.splice(&plain.vertices, &plain.edges, &format!("{prefix}p_"));
    b.statement(call(ids, "oad_mode_restore", vec![loop_arg()]));
    joins.extend(b.take_pending());
    // FIRSTRUN, YOUTURN: tape iteration first, then its adjoint.
    arm(&mut b, &[FIRSTRUN, YOUTURN]);
    b.statement(call(
        ids,
        "oad_snapshot_turn_range",
        vec![loop_arg(), var(&t.first), var(&t.last)],
    ));
    b.statement(call(ids, "oad_mode_tape_sweep", vec![loop_arg()]));
    let taped = iterations(l, body_tape, t, ids, scope);
    b.splice(&taped.vertices, &taped.edges, &format!("{prefix}f_"));
    b.statement(call(ids, "oad_mode_adjoint_sweep", vec![loop_arg()]));
    b.splice(
        &body_adjoint.vertices,
        &body_adjoint.edges,
        &format!("{prefix}r_"),
    );
    b.statement(call(ids, "oad_mode_restore", vec![loop_arg()]));
    joins.extend(b.take_pending());
    // TERMINATE (and ERROR, which the runtime stops at): nothing.
    b.set_pending(joins);
    b.add_plain(ControlFlowVertex::EndBranch);
    let end = b.add_plain(ControlFlowVertex::EndLoop);
    b.edge(&end, &driver, None);
    b.set_pending(vec![PendingEdge {
        source: driver,
        condition: Some(0),
    }]);
    b.statement(call(ids, "oad_mode_restore", vec![loop_arg()]));
    b.add_plain(ControlFlowVertex::Exit);
    SweepGraph {
        structured: true,
        vertices: b.vertices,
        edges: b.edges,
    }
}

/// `do k = first, last; i = lo + (k - 1)*step; body; end do` with `body`
/// a graph (its Exit, where `cycle` leads, becomes the loop's end).
fn iterations(
    l: &CheckpointedLoop,
    body: &SweepGraph,
    t: &Temps,
    ids: &mut Ids,
    scope: u64,
) -> SweepGraph {
    let mut b = GraphBuilder::new(scope);
    b.add_plain(ControlFlowVertex::Entry);
    let init = match assign(ids, &t.k, crate::expr::variable_expression(&t.first)) {
        BasicBlockElement::Assignment(a) => a,
        _ => unreachable!("assign builds an assignment"),
    };
    let update = {
        let mut e = ExprBuilder::new();
        let x = e.variable(&t.k);
        let one = e.constant_int(1);
        let sum = integer_op(&mut e, "add_scal_scal", &[x, one]);
        match assign(ids, &t.k, e.finish(sum)) {
            BasicBlockElement::Assignment(a) => a,
            _ => unreachable!("assign builds an assignment"),
        }
    };
    let condition = {
        let mut e = ExprBuilder::new();
        let x = e.variable(&t.k);
        let y = e.variable(&t.last);
        boolean(e, BooleanOp::LessOrEqual, x, y)
    };
    let head = {
        let id = b.fresh_id();
        b.add(ControlFlowVertex::ForLoop(Box::new(ForLoop {
            vertex_id: id.into(),
            annotation: Default::default(),
            line_number: l.header.line_number,
            reversal: ForLoopReversal::Anonymous,
            initialization: Some(init),
            condition: Some(condition),
            update: Some(update),
        })))
    };
    b.set_pending(vec![PendingEdge {
        source: head.clone(),
        condition: Some(1),
    }]);
    // i = lo + (k - 1)*step
    let index_value = {
        let mut e = ExprBuilder::new();
        let lo = e.variable(&t.lo);
        let k = e.variable(&t.k);
        let one = e.constant_int(1);
        let before = integer_op(&mut e, "sub_scal_scal", &[k, one]);
        let step = e.variable(&t.step);
        let offset = integer_op(&mut e, "mul_scal_scal", &[before, step]);
        let sum = integer_op(&mut e, "add_scal_scal", &[lo, offset]);
        e.finish(sum)
    };
    b.statement(assign(ids, &l.index, index_value));
    b.splice(&body.vertices, &body.edges, "b");
    let end = b.add_plain(ControlFlowVertex::EndLoop);
    b.edge(&end, &head, None);
    b.set_pending(vec![PendingEdge {
        source: head,
        condition: Some(0),
    }]);
    b.add_plain(ControlFlowVertex::Exit);
    SweepGraph {
        structured: true,
        vertices: b.vertices,
        edges: b.edges,
    }
}

/// `a /= c`.
fn not_equal(a: &VariableReference, c: i64) -> Expression {
    let mut e = ExprBuilder::new();
    let x = e.variable(a);
    let y = e.constant_int(c);
    boolean(e, BooleanOp::NotEqual, x, y)
}

fn boolean(mut e: ExprBuilder, op: BooleanOp, x: usize, y: usize) -> Expression {
    let id = (e.expr.vertices.len() + 1).to_string();
    e.expr
        .vertices
        .push(ExpressionVertex::BooleanOperation(BooleanOperation {
            vertex_id: id.into(),
            annotation: Default::default(),
            name: op,
        }));
    let v = e.expr.vertices.len() - 1;
    e.edge(x, v, 1);
    e.edge(y, v, 2);
    e.finish(v)
}

/// Replaces the marker `annotation` in a finished sweep by the graph
/// `sub`: the marker's block is split there, `sub` (ids prefixed with
/// `prefix`) between the halves. Returns whether the marker was found.
pub fn splice_at_marker(
    g: &mut SweepGraph,
    annotation: &str,
    sub: &SweepGraph,
    prefix: &str,
) -> bool {
    let found = g.vertices.iter().enumerate().find_map(|(i, v)| match v {
        ControlFlowVertex::BasicBlock(b) => b
            .elements
            .iter()
            .position(|e| matches!(e, BasicBlockElement::Marker(m) if m.annotation == annotation))
            .map(|k| (i, k)),
        _ => None,
    });
    let Some((i, k)) = found else {
        return false;
    };
    let ControlFlowVertex::BasicBlock(block) = &mut g.vertices[i] else {
        return false;
    };
    let tail = block.elements.split_off(k + 1);
    block.elements.pop();
    let block_id = block.vertex_id.clone();
    let scope_id = block.scope_id;
    let after_id = format!("{prefix}after");
    for e in g.edges.iter_mut().filter(|e| e.source == block_id) {
        e.source = after_id.clone().into();
    }
    g.vertices.push(ControlFlowVertex::BasicBlock(BasicBlock {
        vertex_id: after_id.clone().into(),
        annotation: Default::default(),
        scope_id,
        elements: tail,
    }));
    let entry = sub
        .vertices
        .iter()
        .find(|v| matches!(v, ControlFlowVertex::Entry(_)))
        .map(|v| v.vertex_id().to_string());
    let exit = sub
        .vertices
        .iter()
        .find(|v| matches!(v, ControlFlowVertex::Exit(_)))
        .map(|v| v.vertex_id().to_string());
    for v in &sub.vertices {
        if matches!(v, ControlFlowVertex::Entry(_) | ControlFlowVertex::Exit(_)) {
            continue;
        }
        let mut v = v.clone();
        let id = format!("{prefix}{}", v.vertex_id());
        set_vertex_id(&mut v, id);
        g.vertices.push(v);
    }
    for e in &sub.edges {
        let mut e = e.clone();
        e.edge_id = format!("{prefix}{}", e.edge_id).into();
        e.source = if entry.as_deref() == Some(e.source.as_str()) {
            block_id.clone()
        } else {
            format!("{prefix}{}", e.source).into()
        };
        e.target = if exit.as_deref() == Some(e.target.as_str()) {
            after_id.clone().into()
        } else {
            format!("{prefix}{}", e.target).into()
        };
        g.edges.push(e);
    }
    g.structured &= sub.structured;
    true
}
