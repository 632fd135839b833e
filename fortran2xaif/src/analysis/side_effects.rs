//! Side effects per unit: which locations visible to its callers (its own
//! dummies and globals) a unit modifies or reads, directly (`*_local`) or
//! through the units it calls.
//!
//! Binding a callee's effects to a call site maps its dummies to the
//! caller's actuals. A may-effect (`Mod`, `Read`) on a dummy is a
//! may-effect on the actual's whole variable; a certain overwrite
//! (`must_mod`) is a certain overwrite of the caller's variable only where
//! the dummy stands for all of it ([`Reach`]): passing `z(1)` to a dummy
//! the callee always assigns overwrites `z(1)`, not `z`.

use super::bitset::BitSet;
use super::call_graph::CallGraph;
use super::ir::{ActualPart, Callee, ElementId, LocationId, LocationKind, Program, Stmt, UnitId};

/// The four XAIF side-effect lists of one unit, as sets of `LocationId`
/// indices. Only the unit's dummies and globals appear.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct UnitSideEffects {
    pub mod_local: BitSet,
    pub mod_: BitSet,
    pub read_local: BitSet,
    pub read: BitSet,
    /// Dummies and globals certainly overwritten as a whole on every path
    /// through the unit that returns (empty if none returns, and for calls
    /// inside a recursive cycle).
    pub must_mod: BitSet,
}

/// Side effects of every unit, indexed by `UnitId`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SideEffects {
    pub units: Vec<UnitSideEffects>,
}

/// The members of a location set, in increasing order.
pub fn locations(set: &BitSet) -> Vec<LocationId> {
    set.iter().map(|i| LocationId(i as u32)).collect()
}

/// Maps a callee location (a dummy of the callee or a global) to the caller
/// location bound to it at a call with `actuals`.
pub fn bind(
    program: &Program,
    loc: LocationId,
    actuals: &[Option<LocationId>],
) -> Option<LocationId> {
    match program.location(loc)?.kind {
        LocationKind::Global => Some(loc),
        LocationKind::Dummy { position, .. } => actuals.get(position).copied().flatten(),
        LocationKind::Local { .. } => None,
    }
}

/// How much of the caller's location a callee location stands for at a
/// call (see [`bind_reach`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reach {
    /// All of it: a global, or a [`ActualPart::Whole`] actual.
    Whole,
    /// Exactly one element with constant subscripts (an element actual
    /// bound to a scalar dummy).
    Element(ElementId),
    /// Some part of it, perhaps all: a section, an element whose
    /// subscripts are not constant, an element bound to an array dummy.
    Part,
}

/// [`bind`], and how much of the caller's location the callee location
/// stands for. A certain overwrite of the callee location is a certain
/// overwrite of the bound caller location only when the reach is `Whole`
/// (of the element only for `Element`); for `Part` the rest of the
/// caller's location keeps its value, so nothing may be killed.
pub fn bind_reach(
    program: &Program,
    loc: LocationId,
    actuals: &[Option<LocationId>],
    parts: &[ActualPart],
) -> Option<(LocationId, Reach)> {
    let bound = bind(program, loc, actuals)?;
    let reach = match program.location(loc)?.kind {
        LocationKind::Dummy { position, .. } => {
            let scalar_dummy = !program.location(loc)?.is_array;
            // A missing part (an invalid program) counts as unknown.
            match parts.get(position) {
                Some(ActualPart::Whole) => Reach::Whole,
                // An element bound to an array dummy is the start of a
                // section of unknown length (sequence association).
                Some(ActualPart::Element(Some(e))) if scalar_dummy => Reach::Element(*e),
                _ => Reach::Part,
            }
        }
        _ => Reach::Whole,
    };
    Some((bound, reach))
}

impl SideEffects {
    pub fn compute(program: &Program, call_graph: &CallGraph) -> SideEffects {
        let n = program.locations.len();
        let mut units: Vec<UnitSideEffects> = program
            .units
            .iter()
            .enumerate()
            .map(|(u, unit)| {
                let uid = UnitId(u as u32);
                let mut mod_local = BitSet::new(n);
                let mut read_local = BitSet::new(n);
                let note = |set: &mut BitSet, l: LocationId| {
                    if program.is_visible_outside(uid, l) {
                        set.insert(l.index());
                    }
                };
                for stmt in unit.blocks.iter().flat_map(|b| &b.stmts) {
                    match stmt {
                        Stmt::Assign { def, uses, .. } => {
                            note(&mut mod_local, def.loc);
                            uses.iter().for_each(|x| note(&mut read_local, x.loc));
                        }
                        Stmt::Opaque { defs, uses, .. } => {
                            defs.iter().for_each(|d| note(&mut mod_local, d.loc));
                            uses.iter().for_each(|l| note(&mut read_local, *l));
                        }
                        Stmt::Call {
                            callee: Callee::External(_),
                            actuals,
                            ..
                        } => {
                            for a in actuals.iter().flatten() {
                                note(&mut mod_local, *a);
                                note(&mut read_local, *a);
                            }
                        }
                        Stmt::Call { .. } => {}
                    }
                }
                UnitSideEffects {
                    mod_: mod_local.clone(),
                    read: read_local.clone(),
                    mod_local,
                    read_local,
                    must_mod: BitSet::new(n),
                }
            })
            .collect();
        // Callees' effects flow to callers until nothing changes (recursion).
        let mut worklist: Vec<UnitId> = call_graph.bottom_up.clone();
        worklist.reverse();
        let mut queued = vec![true; units.len()];
        while let Some(callee) = worklist.pop() {
            queued[callee.index()] = false;
            let effects = units[callee.index()].clone();
            for &site in &call_graph.sites_calling[callee.index()] {
                let site = &call_graph.sites[site];
                let caller = site.caller;
                let mut changed = false;
                for (from, to) in [(&effects.mod_, 0), (&effects.read, 1)] {
                    for l in from.iter() {
                        let Some(b) = bind(program, LocationId(l as u32), &site.actuals) else {
                            continue;
                        };
                        if program.is_visible_outside(caller, b) {
                            let target = &mut units[caller.index()];
                            let set = if to == 0 {
                                &mut target.mod_
                            } else {
                                &mut target.read
                            };
                            changed |= set.insert(b.index());
                        }
                    }
                }
                if changed && !queued[caller.index()] {
                    queued[caller.index()] = true;
                    worklist.push(caller);
                }
            }
        }
        let mut out = SideEffects { units };
        // Must-modify, callees first; calls within a recursive cycle kill
        // nothing (a safe under-approximation).
        for &u in &call_graph.bottom_up {
            let m = out.must_mod_of(program, call_graph, u);
            out.units[u.index()].must_mod = m;
        }
        out
    }

    /// Forward must analysis: `Killed⁻(B) = ⋂ Killed⁺(pred)` over reached
    /// predecessors, `Killed⁺ = Killed⁻ ∪ whole definitions`, at the exit.
    fn must_mod_of(&self, program: &Program, call_graph: &CallGraph, uid: UnitId) -> BitSet {
        let n = program.locations.len();
        let unit = &program.units[uid.index()];
        let nb = unit.blocks.len();
        let preds = unit.predecessors();
        let same_cycle = |c: UnitId| {
            call_graph
                .recursive
                .iter()
                .any(|g| g.contains(&uid) && g.contains(&c))
        };
        let block_kills: Vec<BitSet> = unit
            .blocks
            .iter()
            .map(|b| {
                let mut k = BitSet::new(n);
                for stmt in &b.stmts {
                    match stmt {
                        Stmt::Assign { def, .. } if def.kills => {
                            k.insert(def.loc.index());
                        }
                        Stmt::Opaque { defs, .. } => {
                            defs.iter().filter(|d| d.kills).for_each(|d| {
                                k.insert(d.loc.index());
                            })
                        }
                        Stmt::Call {
                            callee: Callee::Unit(c),
                            actuals,
                            parts,
                            ..
                        } if !same_cycle(*c) => {
                            for l in self.call_kills(program, &Callee::Unit(*c), actuals, parts) {
                                k.insert(l.index());
                            }
                        }
                        _ => {}
                    }
                }
                k
            })
            .collect();
        // None: not reached yet (top of the lattice).
        let mut out: Vec<Option<BitSet>> = vec![None; nb];
        let mut worklist = vec![unit.entry.index()];
        while let Some(b) = worklist.pop() {
            let mut input: Option<BitSet> = (b == unit.entry.index()).then(|| BitSet::new(n));
            for p in &preds[b] {
                if let Some(po) = &out[p.index()] {
                    match &mut input {
                        None => input = Some(po.clone()),
                        Some(i) => i.intersect_with(po),
                    }
                }
            }
            let Some(mut killed) = input else { continue };
            killed.union_with(&block_kills[b]);
            if out[b].as_ref() != Some(&killed) {
                out[b] = Some(killed);
                worklist.extend(unit.successors[b].iter().map(|s| s.index()));
            }
        }
        match out.get(unit.exit.index()).cloned().flatten() {
            Some(killed) => killed
                .iter()
                .filter(|&l| program.is_visible_outside(uid, LocationId(l as u32)))
                .collect(),
            None => BitSet::new(n),
        }
    }

    /// Caller locations a call certainly overwrites as a whole: the
    /// callee's `must_mod` bound to the actuals, where the bound dummy
    /// stands for all of the actual's variable ([`Reach::Whole`]).
    pub fn call_kills(
        &self,
        program: &Program,
        callee: &Callee,
        actuals: &[Option<LocationId>],
        parts: &[ActualPart],
    ) -> Vec<LocationId> {
        let mut out: Vec<LocationId> = self
            .call_must_mod(program, callee, actuals, parts)
            .into_iter()
            .filter(|(_, r)| *r == Reach::Whole)
            .map(|(l, _)| l)
            .collect();
        out.sort();
        out.dedup();
        out
    }

    /// The callee's `must_mod` bound to the actuals with the reach of each
    /// binding, one entry per callee location (a caller location bound
    /// twice appears twice). External routines overwrite nothing for sure.
    pub fn call_must_mod(
        &self,
        program: &Program,
        callee: &Callee,
        actuals: &[Option<LocationId>],
        parts: &[ActualPart],
    ) -> Vec<(LocationId, Reach)> {
        match callee {
            Callee::External(_) => Vec::new(),
            Callee::Unit(_) => {
                self.call_bound_reach(program, callee, actuals, parts, |e| &e.must_mod)
            }
        }
    }

    /// [`SideEffects::call_defs`] with the reach of each binding, one entry
    /// per callee location.
    pub fn call_mod_reach(
        &self,
        program: &Program,
        callee: &Callee,
        actuals: &[Option<LocationId>],
        parts: &[ActualPart],
    ) -> Vec<(LocationId, Reach)> {
        self.call_bound_reach(program, callee, actuals, parts, |e| &e.mod_)
    }

    /// [`SideEffects::call_uses`] with the reach of each binding, one entry
    /// per callee location.
    pub fn call_read_reach(
        &self,
        program: &Program,
        callee: &Callee,
        actuals: &[Option<LocationId>],
        parts: &[ActualPart],
    ) -> Vec<(LocationId, Reach)> {
        self.call_bound_reach(program, callee, actuals, parts, |e| &e.read)
    }

    /// The set `pick` of the callee bound to the actuals, with reaches
    /// (external routines: every actual, as an unknown part).
    fn call_bound_reach(
        &self,
        program: &Program,
        callee: &Callee,
        actuals: &[Option<LocationId>],
        parts: &[ActualPart],
        pick: impl Fn(&UnitSideEffects) -> &BitSet,
    ) -> Vec<(LocationId, Reach)> {
        match callee {
            Callee::External(_) => actuals
                .iter()
                .flatten()
                .map(|l| (*l, Reach::Part))
                .collect(),
            Callee::Unit(c) => self.units.get(c.index()).map_or_else(Vec::new, |e| {
                pick(e)
                    .iter()
                    .filter_map(|l| bind_reach(program, LocationId(l as u32), actuals, parts))
                    .collect()
            }),
        }
    }

    /// Caller locations a call may define: the callee's `Mod` bound to the
    /// actuals (external routines: every actual).
    pub fn call_defs(
        &self,
        program: &Program,
        callee: &Callee,
        actuals: &[Option<LocationId>],
    ) -> Vec<LocationId> {
        self.call_bound(program, callee, actuals, |e| &e.mod_)
    }

    /// Caller locations a call may read: the callee's `Read` bound to the
    /// actuals (external routines: every actual).
    pub fn call_uses(
        &self,
        program: &Program,
        callee: &Callee,
        actuals: &[Option<LocationId>],
    ) -> Vec<LocationId> {
        self.call_bound(program, callee, actuals, |e| &e.read)
    }

    fn call_bound(
        &self,
        program: &Program,
        callee: &Callee,
        actuals: &[Option<LocationId>],
        pick: impl Fn(&UnitSideEffects) -> &BitSet,
    ) -> Vec<LocationId> {
        let mut out: Vec<LocationId> = match callee {
            Callee::External(_) => actuals.iter().flatten().copied().collect(),
            Callee::Unit(c) => match self.units.get(c.index()) {
                Some(e) => pick(e)
                    .iter()
                    .filter_map(|l| bind(program, LocationId(l as u32), actuals))
                    .collect(),
                None => Vec::new(),
            },
        };
        out.sort();
        out.dedup();
        out
    }
}
