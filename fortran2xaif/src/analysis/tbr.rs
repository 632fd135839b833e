//! Diff-liveness and to-be-recorded analyses (paper 003, §5.2), for the
//! adjoint (store-all) mode.
//!
//! Diff-live, backward from ∅ at the top unit's exit:
//! `Diff-live⁻(I) = use(I') ∪ (Dep(I) ⊗ Diff-live⁺(I))`,
//! `Diff-live⁺(I) = ∪ Diff-live⁻(succ)`.
//! `Diff-present(I) ⇔ out(I) ∩ Diff-live⁺(I) ≠ ∅` (or I is differentiated).
//! TBR, forward from ∅ at the top unit's entry:
//! `TBR⁺(I) = (TBR⁻(I) ∪ use(I')) ∖ kill(I)` if Diff-present(I), else
//! `TBR⁻(I) ∪ use(I')`; `TBR⁻(I) = ∪ TBR⁺(pred)`.
//! The values to record before a diff-present `I` overwrites them are
//! `out(I) ∩ (TBR⁻(I) ∪ use(I'))`.
//!
//! `use(I')`, the values the derivative of `I` reads: every read of a
//! differentiated assignment (we do not know which partials are linear);
//! for a differentiated call, what is diff-live at the callee's entry; for
//! an opaque statement without definitions (a branch or loop condition),
//! its reads when its unit is active (diff-live control).

use std::collections::HashMap;

use super::activity::Activity;
use super::alias::Alias;
use super::bitset::BitSet;
use super::call_graph::CallGraph;
use super::dependence::{DependenceKind, Summaries};
use super::ir::{Callee, LocationId, LocationKind, Program, Seeds, Stmt, StmtId, UnitId};
use super::side_effects::{bind, SideEffects};

/// Results of diff-liveness and TBR.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Tbr {
    /// Statements whose original computation the differentiated program
    /// keeps (they compute something a derivative needs).
    pub diff_present: BitSet,
    /// Per statement: locations it overwrites whose old value a derivative
    /// instruction needs; store before, restore in the reverse sweep.
    pub to_record: HashMap<StmtId, Vec<LocationId>>,
    /// Per statement: `use(I')`, the locations whose current value the
    /// statement's derivative reads (only statements with any).
    pub derivative_reads: HashMap<StmtId, Vec<LocationId>>,
    /// Per unit: diff-live locations at entry and TBR locations at entry.
    pub entry_diff_live: Vec<BitSet>,
    pub entry_tbr: Vec<BitSet>,
}

struct Ctx<'a> {
    program: &'a Program,
    alias: &'a Alias,
    activity: &'a Activity,
    side_effects: &'a SideEffects,
    dep: Summaries,
    globals: BitSet,
    n: usize,
    /// By statement id: differentiated statements (activity), and the
    /// assignments among them whose derivative reads their operands.
    differentiated: BitSet,
    reads_operands: BitSet,
}

impl Ctx<'_> {
    fn differentiated(&self, id: StmtId) -> bool {
        self.activity.conservative || self.differentiated.contains(id.0 as usize)
    }

    /// Locations a statement may define, aliases included.
    fn out(&self, unit: UnitId, stmt: &Stmt) -> Vec<LocationId> {
        let mut defs: Vec<LocationId> = match stmt {
            Stmt::Assign { def, .. } => vec![def.loc],
            Stmt::Opaque { defs, .. } => defs.iter().map(|d| d.loc).collect(),
            Stmt::Call {
                callee, actuals, ..
            } => self.side_effects.call_defs(self.program, callee, actuals),
        };
        let extra: Vec<LocationId> = defs
            .iter()
            .flat_map(|d| self.alias.partners_of(*d).iter().copied())
            .filter(|p| self.program.is_visible_outside(unit, *p))
            .collect();
        defs.extend(extra);
        defs.sort();
        defs.dedup();
        defs
    }

    /// Locations certainly overwritten as a whole (a call passing `a(1)`
    /// to a dummy the callee always assigns does not overwrite `a`: the
    /// old values of the other elements must stay recorded).
    fn kill(&self, stmt: &Stmt) -> Vec<LocationId> {
        match stmt {
            Stmt::Assign { def, .. } if def.kills => vec![def.loc],
            Stmt::Assign { .. } => Vec::new(),
            Stmt::Opaque { defs, .. } => defs.iter().filter(|d| d.kills).map(|d| d.loc).collect(),
            Stmt::Call {
                callee,
                actuals,
                parts,
                ..
            } => self
                .side_effects
                .call_kills(self.program, callee, actuals, parts),
        }
    }

    /// `use(I')`.
    fn deriv_uses(&self, unit: UnitId, stmt: &Stmt, entry_live: &[BitSet]) -> Vec<LocationId> {
        match stmt {
            // A derivative that only zeroes reads nothing.
            Stmt::Assign { id, uses, .. }
                if self.activity.conservative || self.reads_operands.contains(id.0 as usize) =>
            {
                uses.iter().map(|u| u.loc).collect()
            }
            Stmt::Assign { .. } => Vec::new(),
            Stmt::Opaque { defs, uses, .. } => {
                if defs.is_empty() && self.activity.is_active_unit(unit) {
                    uses.clone()
                } else {
                    Vec::new()
                }
            }
            Stmt::Call {
                id,
                callee,
                actuals,
                ..
            } if self.differentiated(*id) => match callee {
                Callee::External(_) => actuals.iter().flatten().copied().collect(),
                Callee::Unit(c) => entry_live
                    .get(c.index())
                    .map(|live| {
                        live.iter()
                            .filter_map(|l| bind(self.program, LocationId(l as u32), actuals))
                            .collect()
                    })
                    .unwrap_or_default(),
            },
            Stmt::Call { .. } => Vec::new(),
        }
    }

    /// Caller-side set `s` bound to the callee's dummies and globals.
    fn to_callee(&self, callee: UnitId, actuals: &[Option<LocationId>], s: &BitSet) -> BitSet {
        let mut out = s.clone();
        out.intersect_with(&self.globals);
        if let Some(cu) = self.program.unit(callee) {
            for (a, d) in actuals.iter().zip(&cu.dummies) {
                if a.is_some_and(|a| s.contains(a.index())) {
                    out.insert(d.index());
                }
            }
        }
        out
    }

    /// `Diff-live⁻(I)` from `Diff-live⁺(I)`.
    fn live_step(&self, unit: UnitId, live: &mut BitSet, stmt: &Stmt, entry_live: &[BitSet]) {
        let uses = self.deriv_uses(unit, stmt, entry_live);
        match stmt {
            Stmt::Assign { .. } | Stmt::Opaque { .. } => {
                let out = self.out(unit, stmt);
                if out.iter().any(|l| live.contains(l.index())) {
                    for k in self.kill(stmt) {
                        live.remove(k.index());
                    }
                    let reads: Vec<LocationId> = match stmt {
                        Stmt::Assign { uses, .. } => uses.iter().map(|u| u.loc).collect(),
                        Stmt::Opaque { uses, .. } => uses.clone(),
                        Stmt::Call { .. } => Vec::new(),
                    };
                    for r in reads {
                        live.insert(r.index());
                    }
                }
            }
            Stmt::Call {
                callee,
                actuals,
                parts,
                ..
            } => {
                let mut add = Vec::new();
                let effects = self.dep.bound_call(self.program, callee, actuals, parts);
                for (t, sources) in &effects {
                    if live.contains(t.index()) {
                        add.extend(sources.iter().copied());
                    }
                }
                if self.dep.overwrites(callee) {
                    for (t, _) in &effects {
                        live.remove(t.index());
                    }
                }
                for a in add {
                    live.insert(a.index());
                }
            }
        }
        for u in uses {
            live.insert(u.index());
        }
    }

    /// Is `I` kept in the differentiated program?
    fn present(&self, unit: UnitId, stmt: &Stmt, live_after: &BitSet) -> bool {
        self.differentiated(stmt.id())
            || self
                .out(unit, stmt)
                .iter()
                .any(|l| live_after.contains(l.index()))
    }
}

impl Tbr {
    pub fn compute(
        program: &Program,
        // Both analyses start from ∅ (top exit / top entry); every unit is
        // swept, so the seeds are not needed; kept for a uniform signature.
        _seeds: &Seeds,
        call_graph: &CallGraph,
        side_effects: &SideEffects,
        alias: &Alias,
        activity: &Activity,
    ) -> Tbr {
        let n = program.locations.len();
        let nu = program.units.len();
        let ctx = Ctx {
            program,
            alias,
            activity,
            side_effects,
            dep: Summaries::compute(
                program,
                call_graph,
                side_effects,
                alias,
                DependenceKind::All,
            ),
            globals: (0..n)
                .filter(|&l| program.locations[l].kind == LocationKind::Global)
                .collect(),
            n,
            differentiated: activity
                .stmts
                .iter()
                .filter(|(_, s)| s.differentiated)
                .map(|(id, _)| id.0 as usize)
                .collect(),
            reads_operands: activity
                .stmts
                .iter()
                .filter(|(_, s)| s.differentiated && !s.active_uses.is_empty())
                .map(|(id, _)| id.0 as usize)
                .collect(),
        };
        let top_down: Vec<UnitId> = call_graph.bottom_up.iter().rev().copied().collect();
        // Diff-liveness: sweep all units until no entry/exit set changes.
        let mut exit_live = vec![BitSet::new(n); nu];
        let mut entry_live = vec![BitSet::new(n); nu];
        // Worklist: a unit is redone when its exit set grows (a caller's
        // contribution) and its callers when its entry set grows.
        let mut queue = UnitQueue::new(&call_graph.bottom_up, nu);
        {
            while let Some(u) = queue.pop() {
                let unit = &program.units[u.index()];
                let (block_out, block_in) =
                    backward(&ctx, u, &exit_live[u.index()], |live, stmt| {
                        ctx.live_step(u, live, stmt, &entry_live)
                    });
                // Contributions to callees' exits.
                for (b, block) in unit.blocks.iter().enumerate() {
                    let mut live = block_out[b].clone();
                    for stmt in block.stmts.iter().rev() {
                        if let Stmt::Call {
                            callee: Callee::Unit(c),
                            actuals,
                            ..
                        } = stmt
                        {
                            let contribution = ctx.to_callee(*c, actuals, &live);
                            if exit_live[c.index()].union_with(&contribution) {
                                queue.push(*c);
                            }
                        }
                        ctx.live_step(u, &mut live, stmt, &entry_live);
                    }
                }
                let entry = block_in
                    .get(unit.entry.index())
                    .cloned()
                    .unwrap_or_default();
                if entry_live[u.index()].union_with(&entry) {
                    call_graph.callers[u.index()]
                        .iter()
                        .for_each(|c| queue.push(*c));
                }
            }
        }
        // TBR: forward, same scheme.
        let mut entry_tbr = vec![BitSet::new(n); nu];
        let mut exit_tbr = vec![BitSet::new(n); nu];
        let tbr_step =
            |u: UnitId, tbr: &mut BitSet, stmt: &Stmt, live_after: &BitSet, exit_tbr: &[BitSet]| {
                for l in ctx.deriv_uses(u, stmt, &entry_live) {
                    tbr.insert(l.index());
                }
                if let Stmt::Call {
                    callee: Callee::Unit(c),
                    actuals,
                    ..
                } = stmt
                {
                    let inside: Vec<LocationId> = exit_tbr[c.index()]
                        .iter()
                        .filter_map(|l| bind(program, LocationId(l as u32), actuals))
                        .collect();
                    for l in inside {
                        tbr.insert(l.index());
                    }
                }
                if ctx.present(u, stmt, live_after) {
                    for k in ctx.kill(stmt) {
                        tbr.remove(k.index());
                    }
                }
            };
        // Worklist: a unit is redone when its entry set grows (a caller's
        // contribution) and its callers when its exit set grows.
        let mut queue = UnitQueue::new(&top_down, nu);
        {
            while let Some(u) = queue.pop() {
                let unit = &program.units[u.index()];
                let lives = unit_lives(&ctx, u, &exit_live[u.index()], &entry_live);
                let block_in = forward(&ctx, u, &entry_tbr[u.index()], |b, i, tbr, stmt| {
                    tbr_step(u, tbr, stmt, &lives[b][i], &exit_tbr)
                });
                for (b, block) in unit.blocks.iter().enumerate() {
                    let mut tbr = block_in[b].clone();
                    for (i, stmt) in block.stmts.iter().enumerate() {
                        if let Stmt::Call {
                            callee: Callee::Unit(c),
                            actuals,
                            ..
                        } = stmt
                        {
                            let mut before = tbr.clone();
                            for l in ctx.deriv_uses(u, stmt, &entry_live) {
                                before.insert(l.index());
                            }
                            let contribution = ctx.to_callee(*c, actuals, &before);
                            if entry_tbr[c.index()].union_with(&contribution) {
                                queue.push(*c);
                            }
                        }
                        tbr_step(u, &mut tbr, stmt, &lives[b][i], &exit_tbr);
                    }
                    if unit.exit.index() == b
                        && exit_tbr[u.index()].union_with(&visible(program, u, &tbr))
                    {
                        call_graph.callers[u.index()]
                            .iter()
                            .for_each(|c| queue.push(*c));
                    }
                }
            }
        }
        // Read the results off both fixed points.
        let mut out = Tbr {
            diff_present: BitSet::new(0),
            ..Tbr::default()
        };
        for (u, unit) in program.units.iter().enumerate() {
            let uid = UnitId(u as u32);
            // Block sets are recomputed from the final entry/exit sets rather
            // than kept for every unit (memory).
            let lives = unit_lives(&ctx, uid, &exit_live[u], &entry_live);
            let tbr_in = forward(&ctx, uid, &entry_tbr[u], |b, i, tbr, stmt| {
                tbr_step(uid, tbr, stmt, &lives[b][i], &exit_tbr)
            });
            for (b, block) in unit.blocks.iter().enumerate() {
                let mut tbr = tbr_in.get(b).cloned().unwrap_or_default();
                for (i, stmt) in block.stmts.iter().enumerate() {
                    let id = stmt.id();
                    let present = ctx.present(uid, stmt, &lives[b][i]);
                    if present {
                        out.diff_present.insert(id.0 as usize);
                    }
                    let mut needed = tbr.clone();
                    let mut reads = ctx.deriv_uses(uid, stmt, &entry_live);
                    for l in &reads {
                        needed.insert(l.index());
                    }
                    reads.sort();
                    reads.dedup();
                    if !reads.is_empty() {
                        out.derivative_reads.insert(id, reads);
                    }
                    let record: Vec<LocationId> = ctx
                        .out(uid, stmt)
                        .into_iter()
                        .filter(|l| needed.contains(l.index()))
                        .collect();
                    // Statements left out of the derivative program overwrite nothing.
                    if present && !record.is_empty() {
                        out.to_record.insert(id, record);
                    }
                    tbr_step(uid, &mut tbr, stmt, &lives[b][i], &exit_tbr);
                }
            }
        }
        out.entry_diff_live = entry_live;
        out.entry_tbr = entry_tbr;
        out
    }

    /// Is `stmt` kept in the differentiated program?
    pub fn is_diff_present(&self, stmt: StmtId) -> bool {
        self.diff_present.contains(stmt.0 as usize)
    }

    /// Locations whose value the derivative of `stmt` reads (`use(I')`).
    pub fn derivative_reads(&self, stmt: StmtId) -> &[LocationId] {
        self.derivative_reads
            .get(&stmt)
            .map_or(&[], |v| v.as_slice())
    }

    /// Locations `stmt` overwrites that must be recorded first.
    pub fn recorded(&self, stmt: StmtId) -> &[LocationId] {
        self.to_record.get(&stmt).map_or(&[], |v| v.as_slice())
    }
}

/// Units waiting to be (re)analysed, each at most once in the queue.
struct UnitQueue {
    queue: std::collections::VecDeque<UnitId>,
    queued: Vec<bool>,
}

impl UnitQueue {
    fn new(order: &[UnitId], units: usize) -> UnitQueue {
        let mut q = UnitQueue {
            queue: Default::default(),
            queued: vec![false; units],
        };
        order.iter().for_each(|u| q.push(*u));
        q
    }

    fn push(&mut self, u: UnitId) {
        if let Some(flag) = self.queued.get_mut(u.index()) {
            if !*flag {
                *flag = true;
                self.queue.push_back(u);
            }
        }
    }

    fn pop(&mut self) -> Option<UnitId> {
        let u = self.queue.pop_front()?;
        self.queued[u.index()] = false;
        Some(u)
    }
}

/// The dummies of `unit` and the globals in `s`.
fn visible(program: &Program, unit: UnitId, s: &BitSet) -> BitSet {
    s.iter()
        .filter(|&l| program.is_visible_outside(unit, LocationId(l as u32)))
        .collect()
}

/// `Diff-live⁺` of every statement of `u` (`[block][stmt]`) from the
/// unit's exit set.
fn unit_lives(ctx: &Ctx, u: UnitId, exit_live: &BitSet, entry_live: &[BitSet]) -> Vec<Vec<BitSet>> {
    let (block_out, _) = backward(ctx, u, exit_live, |live, stmt| {
        ctx.live_step(u, live, stmt, entry_live)
    });
    per_stmt_live_after(ctx, u, &block_out, entry_live)
}

/// `Diff-live⁺` of every statement: `[block][stmt]`.
fn per_stmt_live_after(
    ctx: &Ctx,
    u: UnitId,
    block_out: &[BitSet],
    entry_live: &[BitSet],
) -> Vec<Vec<BitSet>> {
    let unit = &ctx.program.units[u.index()];
    unit.blocks
        .iter()
        .enumerate()
        .map(|(b, block)| {
            let mut live = block_out
                .get(b)
                .cloned()
                .unwrap_or_else(|| BitSet::new(ctx.n));
            let mut afters = vec![BitSet::default(); block.stmts.len()];
            for (i, stmt) in block.stmts.iter().enumerate().rev() {
                afters[i] = live.clone();
                ctx.live_step(u, &mut live, stmt, entry_live);
            }
            afters
        })
        .collect()
}

/// Backward fixed point over the blocks of `u`: (set at block exits, set at
/// block entries).
fn backward(
    ctx: &Ctx,
    u: UnitId,
    exit: &BitSet,
    step: impl Fn(&mut BitSet, &Stmt),
) -> (Vec<BitSet>, Vec<BitSet>) {
    let unit = &ctx.program.units[u.index()];
    let nb = unit.blocks.len();
    let preds = unit.predecessors();
    let mut s_in = vec![BitSet::new(ctx.n); nb];
    let mut s_out = vec![BitSet::new(ctx.n); nb];
    let mut worklist: Vec<usize> = (0..nb).collect();
    let mut queued = vec![true; nb];
    while let Some(b) = worklist.pop() {
        queued[b] = false;
        let mut s = if b == unit.exit.index() {
            exit.clone()
        } else {
            BitSet::new(ctx.n)
        };
        for x in &unit.successors[b] {
            if let Some(v) = s_in.get(x.index()) {
                s.union_with(v);
            }
        }
        s_out[b] = s.clone();
        for stmt in unit.blocks[b].stmts.iter().rev() {
            step(&mut s, stmt);
        }
        if s != s_in[b] {
            s_in[b] = s;
            for p in &preds[b] {
                if !queued[p.index()] {
                    queued[p.index()] = true;
                    worklist.push(p.index());
                }
            }
        }
    }
    (s_out, s_in)
}

/// Forward fixed point over the blocks of `u`: the set at block entries.
fn forward(
    ctx: &Ctx,
    u: UnitId,
    entry: &BitSet,
    step: impl Fn(usize, usize, &mut BitSet, &Stmt),
) -> Vec<BitSet> {
    let unit = &ctx.program.units[u.index()];
    let nb = unit.blocks.len();
    let preds = unit.predecessors();
    let mut s_in = vec![BitSet::new(ctx.n); nb];
    let mut s_out = vec![BitSet::new(ctx.n); nb];
    let mut worklist: Vec<usize> = (0..nb).rev().collect();
    let mut queued = vec![true; nb];
    while let Some(b) = worklist.pop() {
        queued[b] = false;
        let mut s = if b == unit.entry.index() {
            entry.clone()
        } else {
            BitSet::new(ctx.n)
        };
        for p in &preds[b] {
            s.union_with(&s_out[p.index()]);
        }
        s_in[b] = s.clone();
        for (i, stmt) in unit.blocks[b].stmts.iter().enumerate() {
            step(b, i, &mut s, stmt);
        }
        if s != s_out[b] {
            s_out[b] = s;
            for x in &unit.successors[b] {
                if x.index() < nb && !queued[x.index()] {
                    queued[x.index()] = true;
                    worklist.push(x.index());
                }
            }
        }
    }
    s_in
}
