//! Dependence summaries of units (paper 003, §5.2, "diff-dependency" and
//! "dependency" analyses): for each location visible to callers that a unit
//! may modify, the visible locations whose entry values its exit value may
//! depend on.
//!
//! Computed by a forward sweep per unit with `Dep⁺(I₀) = Id`,
//! `Dep⁺(I) = Dep⁻(I) ⊗ Dep(I)`, `Dep⁻(I) = ∪ Dep⁺(pred)`, and over the call
//! graph bottom-up until no summary changes (recursion).

use std::collections::{BTreeMap, HashMap};

use super::alias::Alias;
use super::bitset::BitSet;
use super::call_graph::CallGraph;
use super::ir::{ActualPart, Callee, LocationId, Program, Stmt, UnitId};
use super::side_effects::{bind, bind_reach, Reach, SideEffects};

/// Which dependencies count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DependenceKind {
    /// Diff-dep: only differentiable uses, only locations of differentiable
    /// type (used by activity).
    Differentiable,
    /// Dep: every use, including indices and opaque statements (used by
    /// diff-liveness).
    All,
}

/// The summary of one unit: output → inputs, in the unit's own names
/// (its dummies and globals). An output not listed keeps its entry value.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Summary {
    pub outputs: HashMap<LocationId, BitSet>,
}

/// Summaries of all units, indexed by `UnitId`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Summaries {
    pub kind: Option<DependenceKind>,
    pub units: Vec<Summary>,
    /// `exact[u]`: `u`'s summary is a finished fixed point (not in a
    /// recursive cycle), so a call may overwrite its targets.
    pub exact: Vec<bool>,
}

impl Summaries {
    pub fn compute(
        program: &Program,
        call_graph: &CallGraph,
        side_effects: &SideEffects,
        alias: &Alias,
        kind: DependenceKind,
    ) -> Summaries {
        // Inside a recursive cycle the summaries grow from "no effect", which
        // is not a bottom for overwriting calls: there calls only add.
        let mut all = Summaries {
            kind: Some(kind),
            units: vec![Summary::default(); program.units.len()],
            exact: (0..program.units.len())
                .map(|u| !call_graph.is_recursive(UnitId(u as u32)))
                .collect(),
        };
        // Bottom-up passes until stable; one pass suffices without recursion.
        loop {
            let mut changed = false;
            for &u in &call_graph.bottom_up {
                let s = unit_summary(program, side_effects, alias, &all, u, kind);
                if s != all.units[u.index()] {
                    all.units[u.index()] = s;
                    changed = true;
                }
            }
            if !changed || call_graph.recursive.is_empty() {
                break;
            }
        }
        all
    }

    /// Does a call of `callee` overwrite its targets (each target's new
    /// value depends exactly on its listed sources, the target itself
    /// included when some path keeps its value or the call passes only
    /// part of it, see [`Summaries::bound_call`])?
    pub fn overwrites(&self, callee: &Callee) -> bool {
        match callee {
            Callee::External(_) => true,
            Callee::Unit(c) => self.exact.get(c.index()).copied().unwrap_or(false),
        }
    }

    /// The summary of `unit` applied at a call with `actuals` (passing
    /// `parts` of their variables): pairs (caller location that may be
    /// defined, caller locations its new value may depend on), one pair per
    /// target. A target that the callee's output stands for only in part
    /// (an element or section actual, an array passed to an
    /// explicit-shape or assumed-size dummy) depends on itself too: the rest of it keeps its value, so a caller
    /// that takes the pair as an overwrite must not lose it. External
    /// routines: every actual depends on every actual.
    pub fn bound_call(
        &self,
        program: &Program,
        callee: &Callee,
        actuals: &[Option<LocationId>],
        parts: &[ActualPart],
    ) -> Vec<(LocationId, Vec<LocationId>)> {
        let counts = |l: LocationId| {
            self.kind != Some(DependenceKind::Differentiable) || program.is_differentiable(l)
        };
        match callee {
            Callee::External(_) => {
                let all: Vec<LocationId> = actuals
                    .iter()
                    .flatten()
                    .copied()
                    .filter(|l| counts(*l))
                    .collect();
                all.iter().map(|a| (*a, all.clone())).collect()
            }
            Callee::Unit(c) => {
                let Some(summary) = self.units.get(c.index()) else {
                    return Vec::new();
                };
                // Outputs bound to the same caller location (an actual passed
                // twice, a global also passed) merge.
                let mut merged: HashMap<LocationId, Vec<LocationId>> = HashMap::new();
                for (o, ins) in &summary.outputs {
                    let Some((target, reach)) = bind_reach(program, *o, actuals, parts) else {
                        continue;
                    };
                    let sources = merged.entry(target).or_default();
                    sources.extend(
                        ins.iter()
                            .filter_map(|i| bind(program, LocationId(i as u32), actuals))
                            .filter(|l| counts(*l)),
                    );
                    if reach != Reach::Whole && counts(target) {
                        sources.push(target);
                    }
                }
                let mut out: Vec<(LocationId, Vec<LocationId>)> = merged
                    .into_iter()
                    .map(|(t, mut sources)| {
                        sources.sort();
                        sources.dedup();
                        (t, sources)
                    })
                    .collect();
                out.sort();
                out
            }
        }
    }
}

/// One forward sweep over `uid` with the current callee summaries.
fn unit_summary(
    program: &Program,
    side_effects: &SideEffects,
    alias: &Alias,
    summaries: &Summaries,
    uid: UnitId,
    kind: DependenceKind,
) -> Summary {
    let unit = &program.units[uid.index()];
    let counts = |l: LocationId| kind == DependenceKind::All || program.is_differentiable(l);
    // Inputs can only be the unit's dummies and the globals it or its
    // callees touch: the relation's columns use that small universe
    // instead of every location of the program.
    let mut universe: Vec<LocationId> = unit.dummies.clone();
    for stmt in unit.blocks.iter().flat_map(|b| &b.stmts) {
        let mut touched: Vec<LocationId> = Vec::new();
        match stmt {
            Stmt::Assign { def, uses, .. } => {
                touched.push(def.loc);
                touched.extend(uses.iter().map(|u| u.loc));
            }
            Stmt::Opaque { defs, uses, .. } => {
                touched.extend(defs.iter().map(|d| d.loc));
                touched.extend(uses.iter().copied());
            }
            Stmt::Call {
                callee,
                actuals,
                parts,
                ..
            } => {
                touched.extend(side_effects.call_defs(program, callee, actuals));
                touched.extend(side_effects.call_uses(program, callee, actuals));
                for (t, sources) in summaries.bound_call(program, callee, actuals, parts) {
                    touched.push(t);
                    touched.extend(sources);
                }
            }
        }
        let partners: Vec<LocationId> = touched
            .iter()
            .flat_map(|l| alias.partners_of(*l).iter().copied())
            .collect();
        universe.extend(
            touched
                .into_iter()
                .chain(partners)
                .filter(|l| program.is_visible_outside(uid, *l)),
        );
    }
    universe.sort();
    universe.dedup();
    let column: HashMap<LocationId, usize> =
        universe.iter().enumerate().map(|(i, l)| (*l, i)).collect();
    let n = universe.len();
    // Slots: every location the unit may (re)define.
    let mut slot_of: HashMap<LocationId, usize> = HashMap::new();
    let mut slot_locs: Vec<LocationId> = Vec::new();
    let mut add_slot = |l: LocationId, slot_of: &mut HashMap<LocationId, usize>| {
        slot_of.entry(l).or_insert_with(|| {
            slot_locs.push(l);
            slot_locs.len() - 1
        });
    };
    for stmt in unit.blocks.iter().flat_map(|b| &b.stmts) {
        let defined: Vec<LocationId> = match stmt {
            Stmt::Assign { def, .. } => vec![def.loc],
            Stmt::Opaque { defs, .. } => defs.iter().map(|d| d.loc).collect(),
            Stmt::Call {
                callee,
                actuals,
                parts,
                ..
            } => {
                let mut d = side_effects.call_defs(program, callee, actuals);
                d.extend(
                    summaries
                        .bound_call(program, callee, actuals, parts)
                        .into_iter()
                        .map(|(t, _)| t),
                );
                d
            }
        };
        for l in defined {
            add_slot(l, &mut slot_of);
            for p in alias.partners_of(l) {
                if program.is_visible_outside(uid, *p) {
                    add_slot(*p, &mut slot_of);
                }
            }
        }
    }
    let identity_column = |l: LocationId| column.get(&l).copied().filter(|_| counts(l));
    let states = States {
        identity: slot_locs.iter().map(|l| identity_column(*l)).collect(),
    };
    let current = |state: &State, l: LocationId| -> BitSet {
        match slot_of.get(&l) {
            Some(&s) => states.value(state, s),
            None => identity_column(l).into_iter().collect(),
        }
    };
    let partners_in_unit = |l: LocationId| {
        alias
            .partners_of(l)
            .iter()
            .copied()
            .filter(move |p| program.is_visible_outside(uid, *p))
    };
    let define = |state: &mut State, l: LocationId, value: &BitSet, kills: bool| {
        if let Some(&s) = slot_of.get(&l) {
            if kills {
                states.store(state, s, value.clone());
            } else {
                states.union_into(state, s, value);
            }
        }
        for p in partners_in_unit(l) {
            if let Some(&s) = slot_of.get(&p) {
                states.union_into(state, s, value);
            }
        }
    };
    let transfer = |state: &mut State, stmt: &Stmt| match stmt {
        Stmt::Assign { def, uses, .. } => {
            let mut value = BitSet::new(n);
            if counts(def.loc) {
                for u in uses {
                    if kind == DependenceKind::All || (u.differentiable && counts(u.loc)) {
                        value.union_with(&current(state, u.loc));
                    }
                }
            }
            define(state, def.loc, &value, def.kills);
        }
        Stmt::Opaque { defs, uses, .. } => {
            let mut value = BitSet::new(n);
            if kind == DependenceKind::All {
                for u in uses {
                    value.union_with(&current(state, *u));
                }
            }
            for d in defs {
                define(state, d.loc, &value, d.kills);
            }
        }
        Stmt::Call {
            callee,
            actuals,
            parts,
            ..
        } => {
            let effects = summaries.bound_call(program, callee, actuals, parts);
            let values: Vec<(LocationId, BitSet)> = effects
                .iter()
                .map(|(t, sources)| {
                    let mut v = BitSet::new(n);
                    for s in sources {
                        v.union_with(&current(state, *s));
                    }
                    (*t, v)
                })
                .collect();
            let kills = summaries.overwrites(callee);
            for (t, v) in values {
                define(state, t, &v, kills);
            }
        }
    };
    let nb = unit.blocks.len();
    let preds = unit.predecessors();
    let mut out: Vec<Option<State>> = vec![None; nb];
    let mut worklist: Vec<usize> = (0..nb).rev().collect();
    let mut queued = vec![true; nb];
    while let Some(b) = worklist.pop() {
        queued[b] = false;
        // At the entry every slot holds its entry value: no slot changed.
        let mut state: Option<State> = (b == unit.entry.index()).then(State::default);
        for p in &preds[b] {
            if let Some(po) = &out[p.index()] {
                match &mut state {
                    None => state = Some(po.clone()),
                    Some(s) => states.join(s, po),
                }
            }
        }
        // Blocks not reached from the entry carry no information yet.
        let Some(mut state) = state else { continue };
        for stmt in &unit.blocks[b].stmts {
            transfer(&mut state, stmt);
        }
        if out[b].as_ref() != Some(&state) {
            out[b] = Some(state);
            for s in unit.successors.get(b).map_or(&[][..], |v| v.as_slice()) {
                if s.index() < nb && !queued[s.index()] {
                    queued[s.index()] = true;
                    worklist.push(s.index());
                }
            }
        }
    }
    let mut summary = Summary::default();
    if let Some(Some(exit)) = out.get(unit.exit.index()) {
        for (s, l) in slot_locs.iter().enumerate() {
            if program.is_visible_outside(uid, *l) && counts(*l) {
                // Back from columns to location ids.
                let inputs: BitSet = states
                    .value(exit, s)
                    .iter()
                    .map(|c| universe[c].index())
                    .collect();
                summary.outputs.insert(*l, inputs);
            }
        }
    }
    summary
}

/// The dependence state of a unit at a program point: for each slot (a
/// location the unit may define), the columns (entry values of the unit's
/// universe) its current value may depend on. Only the slots whose value
/// differs from their entry value are stored: most slots of most blocks
/// are untouched (the loop counters a whole-array assignment becomes, the
/// targets of calls far away), and a dense vector per block cost blocks x
/// slots sets, quadratic in a unit that calls every routine
/// (docs/benchmarks.md, 25 Nov 2026 (9)). Kept canonical (no stored value
/// equals its entry value), so `==` compares the states themselves.
#[derive(Debug, Clone, Default, PartialEq)]
struct State {
    changed: BTreeMap<usize, BitSet>,
}

/// The entry value of every slot, and the operations on [`State`]s that
/// keep them canonical.
struct States {
    /// `identity[s]`: the column of slot `s`'s own entry value, if it is in
    /// the universe and counts; the entry value is that one column, or
    /// nothing.
    identity: Vec<Option<usize>>,
}

impl States {
    fn is_entry_value(&self, s: usize, v: &BitSet) -> bool {
        match self.identity[s] {
            None => v.is_empty(),
            Some(c) => v.contains(c) && v.len() == 1,
        }
    }

    /// Slot `s`'s value in `state`.
    fn value(&self, state: &State, s: usize) -> BitSet {
        match state.changed.get(&s) {
            Some(v) => v.clone(),
            None => self.identity[s].into_iter().collect(),
        }
    }

    fn store(&self, state: &mut State, s: usize, v: BitSet) {
        if self.is_entry_value(s, &v) {
            state.changed.remove(&s);
        } else {
            state.changed.insert(s, v);
        }
    }

    /// Slot `s` ∪= `v`.
    fn union_into(&self, state: &mut State, s: usize, v: &BitSet) {
        let mut value = self.value(state, s);
        value.union_with(v);
        self.store(state, s, value);
    }

    /// `into` ∪= `other`, slot by slot (a slot missing from one side holds
    /// its entry value there).
    fn join(&self, into: &mut State, other: &State) {
        let only_here: Vec<usize> = into
            .changed
            .keys()
            .copied()
            .filter(|s| !other.changed.contains_key(s))
            .collect();
        for s in only_here {
            if let Some(c) = self.identity[s] {
                self.union_into(into, s, &std::iter::once(c).collect());
            }
        }
        for (s, v) in &other.changed {
            self.union_into(into, *s, v);
        }
    }
}
