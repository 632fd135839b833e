//! Control flow reversal (paper 001, Algorithms 2–5).
//!
//! Structured graphs are walked region by region (`structure::nest`):
//! - forward sweep: the original vertices; each branch arm ends with a
//!   push of the arm's number (the marker of Algorithm 3, pushed on the
//!   edge into the EndBranch); each loop has a trip counter zeroed before
//!   it, incremented at the end of its body and pushed on the exit edge
//!   (Algorithm 4).
//! - reverse sweep: the regions in reverse order; a branch becomes a pop of
//!   the arm number and a Branch on it whose arms are the reversed arms; a
//!   loop becomes a pop of its trip count and a counted ForLoop over the
//!   reversed body; a basic block its adjoint block.
//!
//! Regions whose reversal does nothing (no adjoint statement anywhere
//! inside) are copied to the forward sweep without control flow taping and
//! left out of the reverse sweep.
//!
//! A loop's leading exit (`structure::LeadingExit`) is repeated in the
//! forward sweep before the body, its edge out joining the loop's exit
//! edge; the counter then counts full iterations, which is all the
//! reverse sweep runs.
//!
//! Unstructured graphs (gotos, other loop exits, `structured="false"`): the
//! forward sweep is the original graph with every basic block that has an
//! adjoint ending in a push of its number, after a push of 0 at the entry;
//! the reverse sweep is a loop popping numbers until 0, branching on each
//! to the adjoint block (the general method of paper 001, section 5).

use xaif_schema::model::{
    ArgumentValue, Assignment, AssignmentLhs, BasicBlock, BasicBlockElement, BooleanOp,
    BooleanOperation, ConditionVertex, ControlFlowEdge, ControlFlowVertex, Expression, ForLoop,
    ForLoopReversal, VariableReference,
};

use std::collections::HashMap;

use super::array_snapshots::{SNAPSHOT_POP, SNAPSHOT_PUSH};
use super::branch_paths::{leaf_arms, nested_branch};
use super::builder::{set_vertex_id, GraphBuilder, PendingEdge};
use super::explicit_loops::ExplicitLoop;
use super::hoist::Snapshot;
use super::structure::{Arm, Region};
use super::taping::{tape_call, BlockSweeps};
use super::temps::AdjointTemps;
use crate::error::StatementError;
use crate::expr::{integer_expression, variable_expression, ExprBuilder};

/// A control flow graph of one sweep.
#[derive(Debug, Clone, Default)]
pub struct SweepGraph {
    pub structured: bool,
    pub vertices: Vec<ControlFlowVertex>,
    pub edges: Vec<ControlFlowEdge>,
}

/// The original graph and the adjoint of each of its basic blocks
/// (indexed like the vertices; `None` for other vertices).
pub struct Reversal<'g, 't, 'a> {
    pub vertices: &'g [ControlFlowVertex],
    pub edges: &'g [ControlFlowEdge],
    pub blocks: &'g [Option<BlockSweeps>],
    pub scope_id: u64,
    pub temps: &'t mut AdjointTemps<'a>,
    serial: usize,
    /// Trip counter and reverse index of each taped loop vertex.
    loop_counters: Vec<(usize, VariableReference, VariableReference)>,
    /// Explicitly reversed loops and the temporary holding their taped
    /// start value.
    explicit: HashMap<usize, ExplicitLoop>,
    loop_starts: HashMap<usize, VariableReference>,
    /// Per loop vertex: loop-invariant values taped once per execution of
    /// the loop (`hoist.rs`), in push order.
    pub hoisted: HashMap<usize, Vec<VariableReference>>,
    /// Per loop vertex: the arrays pushed whole after it (`array_snapshots.rs`).
    pub snapshots: HashMap<usize, Vec<Snapshot>>,
}

impl<'g, 't, 'a> Reversal<'g, 't, 'a> {
    pub fn new(
        vertices: &'g [ControlFlowVertex],
        edges: &'g [ControlFlowEdge],
        blocks: &'g [Option<BlockSweeps>],
        scope_id: u64,
        temps: &'t mut AdjointTemps<'a>,
    ) -> Self {
        Reversal {
            vertices,
            edges,
            blocks,
            scope_id,
            temps,
            serial: 0,
            loop_counters: Vec::new(),
            explicit: HashMap::new(),
            loop_starts: HashMap::new(),
            hoisted: HashMap::new(),
            snapshots: HashMap::new(),
        }
    }

    fn statement_id(&mut self) -> String {
        self.serial += 1;
        format!("oad_cf_{}", self.serial)
    }

    fn push_int(&mut self, value: ArgumentValue) -> BasicBlockElement {
        let id = self.statement_id();
        tape_call("push_int", value, id)
    }

    fn pop_int(&mut self, target: &VariableReference) -> BasicBlockElement {
        let id = self.statement_id();
        tape_call("pop_int", ArgumentValue::Variable(target.clone()), id)
    }

    fn assign(&mut self, target: &VariableReference, rhs: Expression) -> Assignment {
        Assignment {
            statement_id: self.statement_id().into(),
            do_chain: 0,
            line_number: 0,
            lhs: AssignmentLhs {
                reference: target.clone(),
                live: true,
            },
            rhs,
        }
    }

    fn block_has_adjoint(&self, v: usize) -> bool {
        self.blocks[v]
            .as_ref()
            .is_some_and(|b| !b.reverse.is_empty())
    }

    fn has_adjoint(&self, regions: &[Region]) -> bool {
        regions.iter().any(|r| match r {
            Region::Block(v) => self.block_has_adjoint(*v),
            Region::Branch { arms, .. } => arms.iter().any(|a| self.has_adjoint(&a.body)),
            Region::Loop { body, .. } => self.has_adjoint(body),
        })
    }

    fn forward_elements(&self, v: usize) -> Vec<BasicBlockElement> {
        match (&self.blocks[v], &self.vertices[v]) {
            (Some(b), _) => b.forward.clone(),
            (None, ControlFlowVertex::BasicBlock(b)) => b.elements.clone(),
            _ => Vec::new(),
        }
    }

    fn copy_vertex(&self, b: &mut GraphBuilder, v: usize) -> String {
        let mut vertex = self.vertices[v].clone();
        let id = b.fresh_id();
        set_vertex_id(&mut vertex, id);
        b.add(vertex)
    }

    fn pending_for(&self, source: &str, edges: &[usize]) -> Vec<PendingEdge> {
        edges
            .iter()
            .map(|&e| PendingEdge {
                source: source.to_string(),
                condition: self.edges[e]
                    .has_condition_value
                    .then_some(self.edges[e].condition_value),
            })
            .collect()
    }

    // ------------------------------------------------------------------
    // Structured graphs
    // ------------------------------------------------------------------

    /// Forward and reverse sweeps of a nested graph.
    pub fn structured(
        &mut self,
        regions: &[Region],
        explicit: &HashMap<usize, ExplicitLoop>,
    ) -> (SweepGraph, SweepGraph) {
        self.explicit = explicit.clone();
        let mut fwd = GraphBuilder::new(self.scope_id);
        fwd.add_plain(ControlFlowVertex::Entry);
        self.forward_sequence(&mut fwd, regions);
        fwd.add_plain(ControlFlowVertex::Exit);

        let mut rev = GraphBuilder::new(self.scope_id);
        rev.add_plain(ControlFlowVertex::Entry);
        self.reverse_sequence(&mut rev, regions);
        rev.add_plain(ControlFlowVertex::Exit);
        (finish(fwd, true), finish(rev, true))
    }

    fn forward_sequence(&mut self, b: &mut GraphBuilder, regions: &[Region]) {
        for r in regions {
            self.forward_region(b, r);
        }
    }

    fn forward_region(&mut self, b: &mut GraphBuilder, region: &Region) {
        let taped = self.has_adjoint(std::slice::from_ref(region));
        match region {
            Region::Block(v) => {
                let elements = self.forward_elements(*v);
                b.statements(elements);
            }
            Region::Branch { vertex, arms } => {
                let mut path = 1;
                self.forward_branch(b, *vertex, arms, taped, &mut path);
            }
            Region::Loop {
                vertex,
                body_edge,
                exit_edge,
                body,
                leading_exit,
            } => {
                let hoisted = self.hoisted.get(vertex).cloned().unwrap_or_default();
                // A hoisted value's temporary starts at zero: what the push
                // after the loop tapes when no iteration set it (never read).
                for t in &hoisted {
                    let zero = self.assign(t, crate::preaccumulate::double_constant(0.0));
                    b.statement(BasicBlockElement::Assignment(zero));
                }
                let counter = if taped {
                    let (ctr, rctr) = self.temps.loop_counters();
                    self.loop_counters.push((*vertex, ctr.clone(), rctr));
                    let zero = self.assign(&ctr, integer_expression(0));
                    b.statement(BasicBlockElement::Assignment(zero));
                    if let Some(l) = self.explicit.get(vertex).cloned() {
                        let lo = self.temps.loop_start();
                        let save = self.assign(&lo, l.start.clone());
                        b.statement(BasicBlockElement::Assignment(save));
                        self.loop_starts.insert(*vertex, lo);
                    }
                    Some(ctr)
                } else {
                    None
                };
                let id = self.copy_vertex(b, *vertex);
                b.set_pending(self.pending_for(&id, &[*body_edge]));
                // The leading exit's test, before the counter counts the
                // iteration: its edge out joins the loop's exit edge.
                let mut exits = Vec::new();
                if let Some(le) = leading_exit {
                    let test = self.copy_vertex(b, le.test);
                    exits.push(PendingEdge {
                        source: test.clone(),
                        condition: Some(le.exit_value),
                    });
                    b.set_pending(vec![PendingEdge {
                        source: test,
                        condition: Some(le.stay_value),
                    }]);
                    b.add_plain(ControlFlowVertex::EndBranch);
                }
                self.forward_sequence(b, body);
                if let Some(ctr) = &counter {
                    let inc = self.assign(ctr, increment(ctr));
                    b.statement(BasicBlockElement::Assignment(inc));
                }
                let end = b.add_plain(ControlFlowVertex::EndLoop);
                b.edge(&end, &id, None);
                let mut after = self.pending_for(&id, &[*exit_edge]);
                after.extend(exits);
                b.set_pending(after);
                // Once per loop execution with trips, after the body's own
                // pushes (so popped before the reversed body runs) and
                // before the trip count (popped first: it decides the pop).
                let snapshots = self.snapshots.get(vertex).cloned().unwrap_or_default();
                if let (false, Some(ctr)) = (hoisted.is_empty() && snapshots.is_empty(), &counter) {
                    let mut pushes: Vec<BasicBlockElement> = hoisted
                        .into_iter()
                        .map(|t| {
                            let id = self.statement_id();
                            tape_call("push_real", ArgumentValue::Variable(t), id)
                        })
                        .collect();
                    for s in snapshots {
                        let id = self.statement_id();
                        pushes.push(tape_call(
                            SNAPSHOT_PUSH,
                            ArgumentValue::Variable(s.array),
                            id,
                        ));
                    }
                    when_positive(b, ctr, pushes);
                }
                if let Some(ctr) = &counter {
                    if let Some(lo) = self.loop_starts.get(vertex).cloned() {
                        let push = self.push_int(ArgumentValue::Variable(lo));
                        b.statement(push);
                    }
                    let push = self.push_int(ArgumentValue::Variable(ctr.clone()));
                    b.statement(push);
                }
            }
        }
    }

    /// A branch of the forward sweep; when taped, the end of each path
    /// pushes its number (`branch_paths`: an arm holding only a nested
    /// taped branch takes that branch's paths, numbered on from `path`).
    fn forward_branch(
        &mut self,
        b: &mut GraphBuilder,
        vertex: usize,
        arms: &[Arm],
        taped: bool,
        path: &mut i64,
    ) {
        let id = self.copy_vertex(b, vertex);
        let mut joins = Vec::new();
        for arm in arms {
            b.set_pending(self.pending_for(&id, &arm.edges));
            let nested = if taped {
                nested_branch(&arm.body, &|r: &Region| {
                    self.has_adjoint(std::slice::from_ref(r))
                })
            } else {
                None
            };
            match nested {
                Some(k) => {
                    let Region::Branch {
                        vertex: inner,
                        arms: inner_arms,
                    } = &arm.body[k]
                    else {
                        unreachable!("nested_branch returns branches only");
                    };
                    self.forward_sequence(b, &arm.body[..k]);
                    self.forward_branch(b, *inner, inner_arms, true, path);
                    self.forward_sequence(b, &arm.body[k + 1..]);
                }
                None => {
                    self.forward_sequence(b, &arm.body);
                    if taped {
                        let push = self.push_int(ArgumentValue::Constant(
                            crate::preaccumulate::integer_constant(*path),
                        ));
                        b.statement(push);
                        *path += 1;
                    }
                }
            }
            joins.extend(b.take_pending());
        }
        b.set_pending(joins);
        b.add_plain(ControlFlowVertex::EndBranch);
    }

    fn reverse_sequence(&mut self, b: &mut GraphBuilder, regions: &[Region]) {
        for r in regions.iter().rev() {
            if !self.has_adjoint(std::slice::from_ref(r)) {
                continue;
            }
            match r {
                Region::Block(v) => {
                    let elements = self.blocks[*v]
                        .as_ref()
                        .map(|s| s.reverse.clone())
                        .unwrap_or_default();
                    b.statements(elements);
                }
                Region::Branch { arms, .. } => {
                    let id_var = self.temps.branch_id();
                    let pop = self.pop_int(&id_var);
                    b.statement(pop);
                    let branch_id = b.fresh_id();
                    let branch = b.add(ControlFlowVertex::Branch(ConditionVertex {
                        vertex_id: branch_id.into(),
                        annotation: Default::default(),
                        line_number: 0,
                        condition: Some(variable_expression(&id_var)),
                    }));
                    let mut joins = Vec::new();
                    let leaves = leaf_arms(arms, &|r: &Region| {
                        self.has_adjoint(std::slice::from_ref(r))
                    });
                    for (k, body) in leaves.into_iter().enumerate() {
                        b.set_pending(vec![PendingEdge {
                            source: branch.clone(),
                            condition: Some(k as i64 + 1),
                        }]);
                        self.reverse_sequence(b, body);
                        joins.extend(b.take_pending());
                    }
                    b.set_pending(joins);
                    b.add_plain(ControlFlowVertex::EndBranch);
                }
                Region::Loop { vertex, body, .. } => {
                    // The forward sweep of this loop ran first and made
                    // its counters; the reverse sweep pops into the same one.
                    let counters = self
                        .loop_counters
                        .iter()
                        .find(|(v, _, _)| v == vertex)
                        .map(|(_, c, r)| (c.clone(), r.clone()));
                    let Some((ctr, rctr)) = counters else {
                        continue;
                    };
                    let pop = self.pop_int(&ctr);
                    b.statement(pop);
                    let start = self.loop_starts.get(vertex).cloned();
                    if let Some(lo) = &start {
                        let pop = self.pop_int(lo);
                        b.statement(pop);
                    }
                    let hoisted = self.hoisted.get(vertex).cloned().unwrap_or_default();
                    let snapshots = self.snapshots.get(vertex).cloned().unwrap_or_default();
                    if !hoisted.is_empty() || !snapshots.is_empty() {
                        let mut pops = Vec::new();
                        for s in snapshots.iter().rev() {
                            let id = self.statement_id();
                            pops.push(tape_call(
                                SNAPSHOT_POP,
                                ArgumentValue::Variable(s.copy.clone()),
                                id,
                            ));
                        }
                        for t in hoisted.iter().rev() {
                            let id = self.statement_id();
                            pops.push(tape_call(
                                "pop_real",
                                ArgumentValue::Variable(t.clone()),
                                id,
                            ));
                        }
                        when_positive(b, &ctr, pops);
                    }
                    let init = self.assign(&rctr, integer_expression(1));
                    let update = self.assign(&rctr, increment(&rctr));
                    let loop_id = b.fresh_id();
                    let l = b.add(ControlFlowVertex::ForLoop(Box::new(ForLoop {
                        vertex_id: loop_id.into(),
                        annotation: Default::default(),
                        line_number: 0,
                        reversal: ForLoopReversal::Anonymous,
                        initialization: Some(init),
                        condition: Some(comparison(BooleanOp::LessOrEqual, &rctr, &ctr)),
                        update: Some(update),
                    })));
                    b.set_pending(vec![PendingEdge {
                        source: l.clone(),
                        condition: Some(1),
                    }]);
                    // i = lo + (ctr - rctr)*c: the index of forward
                    // iteration ctr - rctr + 1.
                    if let (Some(lo), Some(e)) = (&start, self.explicit.get(vertex).cloned()) {
                        let value = index_value(lo, &ctr, &rctr, e.step);
                        let restore = self.assign(&e.index, value);
                        b.statement(BasicBlockElement::Assignment(restore));
                    }
                    self.reverse_sequence(b, body);
                    let end = b.add_plain(ControlFlowVertex::EndLoop);
                    b.edge(&end, &l, None);
                    b.set_pending(vec![PendingEdge {
                        source: l,
                        condition: Some(0),
                    }]);
                }
            }
        }
    }

    // ------------------------------------------------------------------
    // Unstructured graphs
    // ------------------------------------------------------------------

    /// Forward and reverse sweeps recording the basic blocks executed.
    pub fn unstructured(&mut self) -> Result<(SweepGraph, SweepGraph), StatementError> {
        let recorded: Vec<usize> = (0..self.vertices.len())
            .filter(|&v| self.block_has_adjoint(v))
            .collect();
        let number_of = |v: usize| recorded.iter().position(|&r| r == v).map(|k| k as i64 + 1);

        // Forward: the original graph, blocks taped and numbered.
        let mut forward = SweepGraph {
            structured: false,
            vertices: Vec::with_capacity(self.vertices.len() + 1),
            edges: self.edges.to_vec(),
        };
        for (v, vertex) in self.vertices.iter().enumerate() {
            let mut vertex = vertex.clone();
            if let ControlFlowVertex::BasicBlock(bb) = &mut vertex {
                bb.elements = self.forward_elements(v);
                if let Some(k) = number_of(v) {
                    let push = self.push_int(ArgumentValue::Constant(
                        crate::preaccumulate::integer_constant(k),
                    ));
                    bb.elements.push(push);
                }
            }
            forward.vertices.push(vertex);
        }
        let entry = self
            .vertices
            .iter()
            .find(|v| matches!(v, ControlFlowVertex::Entry(_)))
            .map(|v| v.vertex_id().to_string())
            .ok_or_else(|| StatementError::semantic("control flow graph without an Entry"))?;
        let taken = |id: &str| forward.vertices.iter().any(|v| v.vertex_id() == id);
        let mut start_id = "oad_start".to_string();
        while taken(&start_id) {
            start_id.push('_');
        }
        let sentinel = self.push_int(ArgumentValue::Constant(
            crate::preaccumulate::integer_constant(0),
        ));
        forward
            .vertices
            .push(ControlFlowVertex::BasicBlock(BasicBlock {
                vertex_id: start_id.clone().into(),
                annotation: Default::default(),
                scope_id: self.scope_id,
                elements: vec![sentinel],
            }));
        let mut entry_edges = 0;
        for e in &mut forward.edges {
            if e.source == entry {
                e.source = start_id.clone().into();
                entry_edges += 1;
            }
        }
        if entry_edges != 1 {
            return Err(StatementError::semantic(
                "the Entry must have exactly one successor",
            ));
        }
        let mut edge_id = "oad_start_edge".to_string();
        while forward.edges.iter().any(|e| e.edge_id == edge_id) {
            edge_id.push('_');
        }
        forward.edges.push(ControlFlowEdge {
            edge_id: edge_id.into(),
            source: entry.into(),
            target: start_id.into(),
            ..ControlFlowEdge::default()
        });

        // Reverse: pop block numbers until the sentinel.
        let id_var = self.temps.branch_id();
        let mut b = GraphBuilder::new(self.scope_id);
        b.add_plain(ControlFlowVertex::Entry);
        if !recorded.is_empty() {
            let pop = self.pop_int(&id_var);
            b.statement(pop);
            let loop_id = b.fresh_id();
            let l = b.add(ControlFlowVertex::PreLoop(ConditionVertex {
                vertex_id: loop_id.into(),
                annotation: Default::default(),
                line_number: 0,
                condition: Some(comparison_with_constant(BooleanOp::NotEqual, &id_var, 0)),
            }));
            b.set_pending(vec![PendingEdge {
                source: l.clone(),
                condition: Some(1),
            }]);
            let branch_id = b.fresh_id();
            let branch = b.add(ControlFlowVertex::Branch(ConditionVertex {
                vertex_id: branch_id.into(),
                annotation: Default::default(),
                line_number: 0,
                condition: Some(variable_expression(&id_var)),
            }));
            let mut joins = Vec::new();
            for (k, &v) in recorded.iter().enumerate() {
                b.set_pending(vec![PendingEdge {
                    source: branch.clone(),
                    condition: Some(k as i64 + 1),
                }]);
                let elements = self.blocks[v]
                    .as_ref()
                    .map(|s| s.reverse.clone())
                    .unwrap_or_default();
                b.statements(elements);
                joins.extend(b.take_pending());
            }
            b.set_pending(joins);
            b.add_plain(ControlFlowVertex::EndBranch);
            let pop = self.pop_int(&id_var);
            b.statement(pop);
            let end = b.add_plain(ControlFlowVertex::EndLoop);
            b.edge(&end, &l, None);
            b.set_pending(vec![PendingEdge {
                source: l,
                condition: Some(0),
            }]);
        } else {
            // Only the sentinel was pushed.
            let pop = self.pop_int(&id_var);
            b.statement(pop);
        }
        b.add_plain(ControlFlowVertex::Exit);
        Ok((forward, finish(b, true)))
    }
}

fn finish(b: GraphBuilder, structured: bool) -> SweepGraph {
    SweepGraph {
        structured,
        vertices: b.vertices,
        edges: b.edges,
    }
}

/// `v + 1`.
fn increment(v: &VariableReference) -> Expression {
    let mut e = ExprBuilder::new();
    let x = e.variable(v);
    let one = e.constant_int(1);
    let sum = e.intrinsic("add_scal_scal", &[x, one]);
    if let Some(xaif_schema::model::ExpressionVertex::Intrinsic(i)) = e.expr.vertices.get_mut(sum) {
        i.r_type = xaif_schema::model::SymbolType::Integer;
    }
    e.finish(sum)
}

/// `if (ctr > 0) then; elements; end if`.
fn when_positive(b: &mut GraphBuilder, ctr: &VariableReference, elements: Vec<BasicBlockElement>) {
    let id = b.fresh_id();
    let test = b.add(ControlFlowVertex::If(ConditionVertex {
        vertex_id: id.into(),
        annotation: Default::default(),
        line_number: 0,
        condition: Some(comparison_with_constant(BooleanOp::GreaterThan, ctr, 0)),
    }));
    b.set_pending(vec![PendingEdge {
        source: test.clone(),
        condition: Some(1),
    }]);
    b.statements(elements);
    let mut joins = b.take_pending();
    joins.push(PendingEdge {
        source: test,
        condition: Some(0),
    });
    b.set_pending(joins);
    b.add_plain(ControlFlowVertex::EndBranch);
}

fn comparison(op: BooleanOp, a: &VariableReference, b: &VariableReference) -> Expression {
    let mut e = ExprBuilder::new();
    let x = e.variable(a);
    let y = e.variable(b);
    boolean(e, op, x, y)
}

fn comparison_with_constant(op: BooleanOp, a: &VariableReference, c: i64) -> Expression {
    let mut e = ExprBuilder::new();
    let x = e.variable(a);
    let y = e.constant_int(c);
    boolean(e, op, x, y)
}

fn boolean(mut e: ExprBuilder, op: BooleanOp, x: usize, y: usize) -> Expression {
    let id = (e.expr.vertices.len() + 1).to_string();
    e.expr
        .vertices
        .push(xaif_schema::model::ExpressionVertex::BooleanOperation(
            BooleanOperation {
                vertex_id: id.into(),
                annotation: Default::default(),
                name: op,
            },
        ));
    let v = e.expr.vertices.len() - 1;
    e.edge(x, v, 1);
    e.edge(y, v, 2);
    e.finish(v)
}

/// `lo + (ctr - rctr)*step`.
fn index_value(
    lo: &VariableReference,
    ctr: &VariableReference,
    rctr: &VariableReference,
    step: i64,
) -> Expression {
    let mut e = ExprBuilder::new();
    let l = e.variable(lo);
    let c = e.variable(ctr);
    let r = e.variable(rctr);
    let trips = e.intrinsic("sub_scal_scal", &[c, r]);
    let s = e.constant_int(step);
    let offset = e.intrinsic("mul_scal_scal", &[trips, s]);
    let sum = e.intrinsic("add_scal_scal", &[l, offset]);
    for v in &mut e.expr.vertices {
        if let xaif_schema::model::ExpressionVertex::Intrinsic(i) = v {
            i.r_type = xaif_schema::model::SymbolType::Integer;
        }
    }
    e.finish(sum)
}
