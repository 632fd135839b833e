//! Activity analysis (paper 003, §5.2): a location is active at a point
//! when it is both varied (depends differentiably on an independent) and
//! useful (influences a dependent differentiably).
//!
//! `Varied⁺(I) = Varied⁻(I) ⊗ Diff-dep(I)` forward from the independents at
//! the top unit's entry, `Useful⁻(I) = Diff-dep(I) ⊗ Useful⁺(I)` backward
//! from the dependents at its exit, joined by union over predecessors /
//! successors. Calls use the callee's Diff-dep summary bound to the call's
//! actuals, so the effect of a call is context sensitive (an actual passed
//! by element or section is only partly overwritten, so the binding keeps
//! it as its own source: the rest of the array stays varied and useful);
//! the sets inside a callee are the union over all its calling contexts
//! (varied actuals seed the callee's entry, useful actuals its exit),
//! iterated over the call graph to a fixed point.
//!
//! Declarations are per location, so the per-point results are summarised
//! and then made consistent across calls (see [`Activity::declared_active`]).

use std::collections::HashMap;

use rayon::prelude::*;

use super::alias::Alias;
use super::bitset::BitSet;
use super::call_graph::CallGraph;
use super::dependence::{DependenceKind, Summaries};
use super::ir::{Callee, LocationId, LocationKind, Program, Seeds, Stmt, StmtId, UnitId};
use super::side_effects::SideEffects;

/// Activity of one statement.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StmtActivity {
    /// The paper's activity: an assignment whose defined location is varied
    /// and useful after it; a call with an actual, or a global its callee
    /// touches, that is varied and useful before or after it. Opaque
    /// statements never are.
    pub active: bool,
    /// Derivative code is needed here: the statement defines a location
    /// declared active that is useful after it (the derivative is either
    /// propagated or, if nothing active flows in, set to zero: another path
    /// may have left a derivative in it), or it is a call of an active unit
    /// or passes a location declared active.
    pub differentiated: bool,
    /// Locations read with their derivative, sorted: differentiable reads
    /// of locations declared active and varied before the statement (calls:
    /// actuals declared active).
    pub active_uses: Vec<LocationId>,
    /// Locations declared active whose derivative this statement sets,
    /// sorted.
    pub active_defs: Vec<LocationId>,
}

/// A call where a dummy declared active receives something that cannot be
/// declared active (a constant, an expression, a non-real variable): the
/// back end must pass a converted temporary.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ArgumentConversion {
    pub caller: UnitId,
    pub stmt: StmtId,
    pub position: usize,
}

/// Activity results of the whole program.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Activity {
    /// Set when the analysis could not run: every query answers "active".
    pub conservative: bool,
    /// Per unit: locations varied at entry (union over calling contexts).
    pub entry_varied: Vec<BitSet>,
    /// Per unit: locations useful at exit (union over calling contexts).
    pub exit_useful: Vec<BitSet>,
    /// Locations varied at some point.
    pub varied: BitSet,
    /// Locations useful at some point.
    pub useful: BitSet,
    /// Locations varied and useful at the same point somewhere.
    pub flow_active: BitSet,
    /// Locations to declare `type(active)`: the flow-active ones, the
    /// independents and dependents, closed under argument passing: at every
    /// call of a unit, when an actual or the dummy bound to it is declared
    /// active, so is the other (when both are of differentiable type), so
    /// that actual and dummy types agree.
    pub declared_active: BitSet,
    /// Units that need differentiating: with a declared-active dummy or a
    /// differentiated statement, and their callers.
    pub active_units: BitSet,
    pub stmts: HashMap<StmtId, StmtActivity>,
    pub conversions: Vec<ArgumentConversion>,
}

/// Per-statement facts gathered before declarations are settled.
enum Facts {
    Assign {
        def: LocationId,
        active: bool,
        useful_after: bool,
        varied_diff_uses: Vec<LocationId>,
    },
    Call {
        callee: Callee,
        actuals: Vec<Option<LocationId>>,
        defined: Vec<LocationId>,
        active: bool,
    },
    Opaque {
        useful_defs: Vec<LocationId>,
    },
}

/// What the final pass finds in one unit.
struct UnitFacts {
    varied: BitSet,
    useful: BitSet,
    flow_active: BitSet,
    facts: Vec<(UnitId, StmtId, Facts)>,
}

/// The transfer functions of the varied and useful propagations and what
/// they need.
struct Propagation<'a> {
    program: &'a Program,
    alias: &'a Alias,
    diff_dep: Summaries,
    globals: BitSet,
    n: usize,
}

impl Propagation<'_> {
    fn counts(&self, l: LocationId) -> bool {
        self.program.is_differentiable(l)
    }

    fn partners(&self, unit: UnitId, l: LocationId) -> impl Iterator<Item = LocationId> + '_ {
        let program = self.program;
        self.alias
            .partners_of(l)
            .iter()
            .copied()
            .filter(move |p| program.is_visible_outside(unit, *p))
    }

    /// `Varied⁺(I)` from `Varied⁻(I)`; calls of units add the callee's entry
    /// contribution to `calls`.
    fn varied_step(
        &self,
        unit: UnitId,
        v: &mut BitSet,
        stmt: &Stmt,
        calls: &mut Vec<(UnitId, BitSet)>,
    ) {
        match stmt {
            Stmt::Assign { def, uses, .. } => {
                let varied = self.counts(def.loc)
                    && uses.iter().any(|u| {
                        u.differentiable && self.counts(u.loc) && v.contains(u.loc.index())
                    });
                if varied {
                    v.insert(def.loc.index());
                    for p in self.partners(unit, def.loc) {
                        if self.counts(p) {
                            v.insert(p.index());
                        }
                    }
                } else if def.kills {
                    v.remove(def.loc.index());
                }
            }
            Stmt::Opaque { defs, .. } => {
                for d in defs.iter().filter(|d| d.kills) {
                    v.remove(d.loc.index());
                }
            }
            Stmt::Call {
                callee,
                actuals,
                parts,
                ..
            } => {
                if let Callee::Unit(c) = callee {
                    if let Some(cu) = self.program.unit(*c) {
                        let mut entry = v.clone();
                        entry.intersect_with(&self.globals);
                        for (p, a) in actuals.iter().enumerate() {
                            if let (Some(a), Some(d)) = (a, cu.dummies.get(p)) {
                                if v.contains(a.index()) && self.counts(*d) {
                                    entry.insert(d.index());
                                }
                            }
                        }
                        calls.push((*c, entry));
                    }
                }
                let effects = self
                    .diff_dep
                    .bound_call(self.program, callee, actuals, parts);
                let overwrites = self.diff_dep.overwrites(callee);
                let varied: Vec<(LocationId, bool)> = effects
                    .iter()
                    .map(|(t, sources)| {
                        let any = self.counts(*t) && sources.iter().any(|s| v.contains(s.index()));
                        (*t, any)
                    })
                    .collect();
                for (t, any) in varied {
                    if any {
                        v.insert(t.index());
                        for p in self.partners(unit, t) {
                            if self.counts(p) {
                                v.insert(p.index());
                            }
                        }
                    } else if overwrites {
                        v.remove(t.index());
                    }
                }
            }
        }
    }

    /// `Useful⁻(I)` from `Useful⁺(I)`; calls of units add the callee's exit
    /// contribution to `calls`.
    fn useful_step(
        &self,
        unit: UnitId,
        w: &mut BitSet,
        stmt: &Stmt,
        calls: &mut Vec<(UnitId, BitSet)>,
    ) {
        match stmt {
            Stmt::Assign { def, uses, .. } => {
                let useful = self.counts(def.loc)
                    && (w.contains(def.loc.index())
                        || self.partners(unit, def.loc).any(|p| w.contains(p.index())));
                if def.kills {
                    w.remove(def.loc.index());
                }
                if useful {
                    for u in uses
                        .iter()
                        .filter(|u| u.differentiable && self.counts(u.loc))
                    {
                        w.insert(u.loc.index());
                    }
                }
            }
            Stmt::Opaque { defs, .. } => {
                for d in defs.iter().filter(|d| d.kills) {
                    w.remove(d.loc.index());
                }
            }
            Stmt::Call {
                callee,
                actuals,
                parts,
                ..
            } => {
                if let Callee::Unit(c) = callee {
                    if let Some(cu) = self.program.unit(*c) {
                        let mut exit = w.clone();
                        exit.intersect_with(&self.globals);
                        for (p, a) in actuals.iter().enumerate() {
                            if let (Some(a), Some(d)) = (a, cu.dummies.get(p)) {
                                if w.contains(a.index()) && self.counts(*d) {
                                    exit.insert(d.index());
                                }
                            }
                        }
                        calls.push((*c, exit));
                    }
                }
                let effects = self
                    .diff_dep
                    .bound_call(self.program, callee, actuals, parts);
                let mut sources = Vec::new();
                for (t, srcs) in &effects {
                    let useful = w.contains(t.index())
                        || self.partners(unit, *t).any(|p| w.contains(p.index()));
                    if useful {
                        sources.extend(srcs.iter().copied());
                    }
                }
                if self.diff_dep.overwrites(callee) {
                    for (t, _) in &effects {
                        w.remove(t.index());
                    }
                }
                for s in sources {
                    w.insert(s.index());
                }
            }
        }
    }

    /// Forward sweep of one unit: `Varied⁻` at each block entry.
    fn varied_unit(
        &self,
        uid: UnitId,
        entry: &BitSet,
        calls: &mut Vec<(UnitId, BitSet)>,
    ) -> Vec<BitSet> {
        let unit = &self.program.units[uid.index()];
        let nb = unit.blocks.len();
        let preds = unit.predecessors();
        let mut v_in = vec![BitSet::new(self.n); nb];
        let mut v_out = vec![BitSet::new(self.n); nb];
        let mut worklist: Vec<usize> = (0..nb).rev().collect();
        let mut queued = vec![true; nb];
        let mut scratch = Vec::new();
        while let Some(b) = worklist.pop() {
            queued[b] = false;
            let mut v = if b == unit.entry.index() {
                entry.clone()
            } else {
                BitSet::new(self.n)
            };
            for p in &preds[b] {
                v.union_with(&v_out[p.index()]);
            }
            v_in[b] = v.clone();
            scratch.clear();
            for stmt in &unit.blocks[b].stmts {
                self.varied_step(uid, &mut v, stmt, &mut scratch);
            }
            if v != v_out[b] {
                v_out[b] = v;
                for s in &unit.successors[b] {
                    if s.index() < nb && !queued[s.index()] {
                        queued[s.index()] = true;
                        worklist.push(s.index());
                    }
                }
            }
        }
        // Call contributions from the fixed point only.
        for (b, block) in unit.blocks.iter().enumerate() {
            let mut v = v_in[b].clone();
            for stmt in &block.stmts {
                self.varied_step(uid, &mut v, stmt, calls);
            }
        }
        v_in
    }

    /// Backward sweep of one unit: `Useful⁺` at each block exit.
    fn useful_unit(
        &self,
        uid: UnitId,
        exit: &BitSet,
        calls: &mut Vec<(UnitId, BitSet)>,
    ) -> Vec<BitSet> {
        let unit = &self.program.units[uid.index()];
        let nb = unit.blocks.len();
        let mut w_in = vec![BitSet::new(self.n); nb];
        let mut w_out = vec![BitSet::new(self.n); nb];
        let preds = unit.predecessors();
        let mut worklist: Vec<usize> = (0..nb).collect();
        let mut queued = vec![true; nb];
        let mut scratch = Vec::new();
        while let Some(b) = worklist.pop() {
            queued[b] = false;
            let mut w = if b == unit.exit.index() {
                exit.clone()
            } else {
                BitSet::new(self.n)
            };
            for s in &unit.successors[b] {
                if let Some(x) = w_in.get(s.index()) {
                    w.union_with(x);
                }
            }
            w_out[b] = w.clone();
            scratch.clear();
            for stmt in unit.blocks[b].stmts.iter().rev() {
                self.useful_step(uid, &mut w, stmt, &mut scratch);
            }
            if w != w_in[b] {
                w_in[b] = w;
                for p in &preds[b] {
                    if !queued[p.index()] {
                        queued[p.index()] = true;
                        worklist.push(p.index());
                    }
                }
            }
        }
        for (b, block) in unit.blocks.iter().enumerate() {
            let mut w = w_out[b].clone();
            for stmt in block.stmts.iter().rev() {
                self.useful_step(uid, &mut w, stmt, calls);
            }
        }
        w_out
    }
}

impl Activity {
    /// The answer when nothing is known: everything differentiable active.
    pub fn everything_active(program: &Program) -> Activity {
        let all: BitSet = program
            .locations
            .iter()
            .enumerate()
            .filter(|(_, l)| l.differentiable_type)
            .map(|(i, _)| i)
            .collect();
        Activity {
            conservative: true,
            varied: all.clone(),
            useful: all.clone(),
            flow_active: all.clone(),
            declared_active: all,
            active_units: (0..program.units.len()).collect(),
            ..Activity::default()
        }
    }

    pub fn compute(
        program: &Program,
        seeds: &Seeds,
        call_graph: &CallGraph,
        side_effects: &SideEffects,
        alias: &Alias,
    ) -> Activity {
        let n = program.locations.len();
        let nu = program.units.len();
        let prop = Propagation {
            program,
            alias,
            diff_dep: Summaries::compute(
                program,
                call_graph,
                side_effects,
                alias,
                DependenceKind::Differentiable,
            ),
            globals: (0..n)
                .filter(|&l| program.locations[l].kind == LocationKind::Global)
                .collect(),
            n,
        };
        let seed_set = |locs: &[LocationId]| -> BitSet {
            locs.iter()
                .filter(|l| program.is_differentiable(**l))
                .map(|l| l.index())
                .collect()
        };
        // Varied: fixed point over the call graph from the top unit.
        let mut entry_varied = vec![BitSet::new(n); nu];
        entry_varied[seeds.top.index()].union_with(&seed_set(&seeds.independents));
        entry_varied[seeds.top.index()].union_with(&seed_set(&program.always_active));
        let mut worklist = vec![seeds.top];
        let mut queued = vec![false; nu];
        queued[seeds.top.index()] = true;
        let mut visited = vec![false; nu];
        while let Some(u) = worklist.pop() {
            queued[u.index()] = false;
            visited[u.index()] = true;
            let mut calls = Vec::new();
            prop.varied_unit(u, &entry_varied[u.index()], &mut calls);
            for (c, contribution) in calls {
                let grew = entry_varied[c.index()].union_with(&contribution);
                if (grew || !visited[c.index()]) && !queued[c.index()] {
                    queued[c.index()] = true;
                    worklist.push(c);
                }
            }
        }
        // Useful: fixed point over the call graph from the top unit.
        let mut exit_useful = vec![BitSet::new(n); nu];
        exit_useful[seeds.top.index()].union_with(&seed_set(&seeds.dependents));
        exit_useful[seeds.top.index()].union_with(&seed_set(&program.always_active));
        let mut worklist = vec![seeds.top];
        queued[seeds.top.index()] = true;
        let mut visited = vec![false; nu];
        while let Some(u) = worklist.pop() {
            queued[u.index()] = false;
            visited[u.index()] = true;
            let mut calls = Vec::new();
            prop.useful_unit(u, &exit_useful[u.index()], &mut calls);
            for (c, contribution) in calls {
                let grew = exit_useful[c.index()].union_with(&contribution);
                if (grew || !visited[c.index()]) && !queued[c.index()] {
                    queued[c.index()] = true;
                    worklist.push(c);
                }
            }
        }
        let mut out = Activity {
            varied: BitSet::new(n),
            useful: BitSet::new(n),
            flow_active: BitSet::new(n),
            ..Activity::default()
        };
        // Per-statement facts from the two fixed points, unit by unit in
        // parallel; the block sets are recomputed here rather than kept for
        // every unit during the fixed points (memory).
        let per_unit = |u: usize| -> UnitFacts {
            let uid = UnitId(u as u32);
            let unit = &program.units[u];
            let varied_in = prop.varied_unit(uid, &entry_varied[u], &mut Vec::new());
            let useful_out = prop.useful_unit(uid, &exit_useful[u], &mut Vec::new());
            let mut acc = UnitFacts {
                varied: BitSet::new(n),
                useful: BitSet::new(n),
                flow_active: BitSet::new(n),
                facts: Vec::new(),
            };
            for (b, block) in unit.blocks.iter().enumerate() {
                let v_in = varied_in.get(b).cloned().unwrap_or_else(|| BitSet::new(n));
                let w_out = useful_out.get(b).cloned().unwrap_or_else(|| BitSet::new(n));
                let mut scratch = Vec::new();
                // befores[i] = Varied⁻(I_i); befores[len] = Varied at block end.
                let mut befores = vec![v_in];
                for stmt in &block.stmts {
                    let mut v = befores[befores.len() - 1].clone();
                    prop.varied_step(uid, &mut v, stmt, &mut scratch);
                    befores.push(v);
                }
                // afters[i] = Useful⁺(I_i); afters[len] = Useful at block start... kept
                // in reverse: useful[i] is Useful⁻(I_i), useful[len] block end.
                let mut useful = vec![BitSet::new(n); block.stmts.len() + 1];
                useful[block.stmts.len()] = w_out;
                for (i, stmt) in block.stmts.iter().enumerate().rev() {
                    let mut w = useful[i + 1].clone();
                    prop.useful_step(uid, &mut w, stmt, &mut scratch);
                    useful[i] = w;
                }
                for (v, w) in befores.iter().zip(&useful) {
                    acc.varied.union_with(v);
                    acc.useful.union_with(w);
                    let mut a = v.clone();
                    a.intersect_with(w);
                    acc.flow_active.union_with(&a);
                }
                for (i, stmt) in block.stmts.iter().enumerate() {
                    let (v_before, v_after) = (&befores[i], &befores[i + 1]);
                    let (w_before, w_after) = (&useful[i], &useful[i + 1]);
                    let useful_after = |l: LocationId| {
                        w_after.contains(l.index())
                            || prop.partners(uid, l).any(|p| w_after.contains(p.index()))
                    };
                    let f = match stmt {
                        Stmt::Assign { def, uses, .. } => Facts::Assign {
                            def: def.loc,
                            active: v_after.contains(def.loc.index()) && useful_after(def.loc),
                            useful_after: useful_after(def.loc),
                            varied_diff_uses: uses
                                .iter()
                                .filter(|x| {
                                    x.differentiable
                                        && prop.counts(x.loc)
                                        && v_before.contains(x.loc.index())
                                })
                                .map(|x| x.loc)
                                .collect(),
                        },
                        Stmt::Call {
                            callee, actuals, ..
                        } => {
                            // The actuals, and the globals the callee touches.
                            let mut touched: Vec<LocationId> =
                                actuals.iter().flatten().copied().collect();
                            if let Callee::Unit(c) = callee {
                                if let Some(e) = side_effects.units.get(c.index()) {
                                    touched.extend(
                                        e.mod_
                                            .iter()
                                            .chain(e.read.iter())
                                            .filter(|g| prop.globals.contains(*g))
                                            .map(|g| LocationId(g as u32)),
                                    );
                                }
                            }
                            let active = touched.iter().any(|l| {
                                (v_before.contains(l.index()) && w_before.contains(l.index()))
                                    || (v_after.contains(l.index()) && w_after.contains(l.index()))
                            });
                            Facts::Call {
                                callee: callee.clone(),
                                actuals: actuals.clone(),
                                defined: side_effects.call_defs(program, callee, actuals),
                                active,
                            }
                        }
                        Stmt::Opaque { defs, .. } => Facts::Opaque {
                            useful_defs: defs
                                .iter()
                                .map(|d| d.loc)
                                .filter(|l| useful_after(*l))
                                .collect(),
                        },
                    };
                    acc.facts.push((uid, stmt.id(), f));
                }
            }
            acc
        };
        let units: Vec<UnitFacts> = (0..nu).into_par_iter().map(per_unit).collect();
        let mut facts: Vec<(UnitId, StmtId, Facts)> = Vec::new();
        for unit in units {
            out.varied.union_with(&unit.varied);
            out.useful.union_with(&unit.useful);
            out.flow_active.union_with(&unit.flow_active);
            facts.extend(unit.facts);
        }
        out.flow_active.intersect_with(
            &(0..n)
                .filter(|&l| program.locations[l].differentiable_type)
                .collect(),
        );
        // Declarations: flow-active, seeds, closed under argument passing.
        let mut declared = out.flow_active.clone();
        declared.union_with(&seed_set(&seeds.independents));
        declared.union_with(&seed_set(&seeds.dependents));
        // Real actuals of external routines (differentiable black boxes,
        // docs/user-guide.md) go to the user's derivative routines with
        // their derivatives: declared active even where nothing varies.
        for unit in &program.units {
            for stmt in unit.blocks.iter().flat_map(|b| &b.stmts) {
                if let Stmt::Call {
                    callee: Callee::External(_),
                    actuals,
                    ..
                } = stmt
                {
                    for a in actuals.iter().flatten() {
                        if program.is_differentiable(*a) {
                            declared.insert(a.index());
                        }
                    }
                }
            }
        }
        loop {
            let mut changed = false;
            for site in &call_graph.sites {
                let Some(callee) = program.unit(site.callee) else {
                    continue;
                };
                for (a, d) in site.actuals.iter().zip(&callee.dummies) {
                    let Some(a) = a else { continue };
                    if program.is_differentiable(*a)
                        && program.is_differentiable(*d)
                        && declared.contains(a.index()) != declared.contains(d.index())
                    {
                        declared.insert(a.index());
                        declared.insert(d.index());
                        changed = true;
                    }
                }
            }
            if !changed {
                break;
            }
        }
        for site in &call_graph.sites {
            let Some(callee) = program.unit(site.callee) else {
                continue;
            };
            for (p, d) in callee.dummies.iter().enumerate() {
                if !declared.contains(d.index()) {
                    continue;
                }
                let convertible = match site.actuals.get(p).copied().flatten() {
                    Some(a) => program.is_differentiable(a),
                    None => false,
                };
                if !convertible {
                    out.conversions.push(ArgumentConversion {
                        caller: site.caller,
                        stmt: site.stmt,
                        position: p,
                    });
                }
            }
        }
        // Active units: declared-active dummies or differentiated
        // assignments, then callers of active units.
        let mut active_units = BitSet::new(nu);
        for (u, unit) in program.units.iter().enumerate() {
            if unit.dummies.iter().any(|d| declared.contains(d.index())) {
                active_units.insert(u);
            }
        }
        for (uid, _, f) in &facts {
            if let Facts::Assign {
                def, useful_after, ..
            } = f
            {
                if *useful_after && declared.contains(def.index()) {
                    active_units.insert(uid.index());
                }
            }
        }
        let mut stack: Vec<usize> = active_units.iter().collect();
        while let Some(u) = stack.pop() {
            for c in &call_graph.callers[u] {
                if active_units.insert(c.index()) {
                    stack.push(c.index());
                }
            }
        }
        for (_, id, f) in facts {
            let s = match f {
                Facts::Assign {
                    def,
                    active,
                    useful_after,
                    varied_diff_uses,
                } => {
                    let differentiated = useful_after && declared.contains(def.index());
                    StmtActivity {
                        active,
                        differentiated,
                        active_uses: if differentiated {
                            varied_diff_uses
                                .into_iter()
                                .filter(|l| declared.contains(l.index()))
                                .collect()
                        } else {
                            Vec::new()
                        },
                        active_defs: if differentiated {
                            vec![def]
                        } else {
                            Vec::new()
                        },
                    }
                }
                Facts::Call {
                    callee,
                    actuals,
                    defined,
                    active,
                } => {
                    let passed: Vec<LocationId> = actuals
                        .iter()
                        .flatten()
                        .copied()
                        .filter(|a| declared.contains(a.index()))
                        .collect();
                    let callee_active = match callee {
                        Callee::Unit(c) => active_units.contains(c.index()),
                        Callee::External(_) => false,
                    };
                    StmtActivity {
                        active,
                        differentiated: callee_active || !passed.is_empty(),
                        active_defs: passed
                            .iter()
                            .copied()
                            .filter(|a| defined.contains(a))
                            .collect(),
                        active_uses: passed,
                    }
                }
                Facts::Opaque { useful_defs } => {
                    let active_defs: Vec<LocationId> = useful_defs
                        .into_iter()
                        .filter(|l| declared.contains(l.index()))
                        .collect();
                    StmtActivity {
                        active: false,
                        differentiated: !active_defs.is_empty(),
                        active_uses: Vec::new(),
                        active_defs,
                    }
                }
            };
            let mut s = s;
            for list in [&mut s.active_uses, &mut s.active_defs] {
                list.sort();
                list.dedup();
            }
            out.stmts.insert(id, s);
        }
        out.entry_varied = entry_varied;
        out.exit_useful = exit_useful;
        out.declared_active = declared;
        out.active_units = active_units;
        out
    }

    /// Declare `loc` as `type(active)`?
    pub fn is_active_location(&self, loc: LocationId) -> bool {
        self.declared_active.contains(loc.index())
    }

    /// Does `stmt` need derivative code?
    pub fn is_active_stmt(&self, stmt: StmtId) -> bool {
        self.conservative || self.stmts.get(&stmt).is_some_and(|s| s.differentiated)
    }

    /// Is the read of `loc` by `stmt` an active use?
    pub fn is_active_use(&self, stmt: StmtId, loc: LocationId) -> bool {
        self.conservative
            || self
                .stmts
                .get(&stmt)
                .is_some_and(|s| s.active_uses.contains(&loc))
    }

    /// Is the definition of `loc` by `stmt` an active definition?
    pub fn is_active_def(&self, stmt: StmtId, loc: LocationId) -> bool {
        self.conservative
            || self
                .stmts
                .get(&stmt)
                .is_some_and(|s| s.active_defs.contains(&loc))
    }

    /// Does `unit` need differentiating?
    pub fn is_active_unit(&self, unit: UnitId) -> bool {
        self.conservative || self.active_units.contains(unit.index())
    }
}
