//! Side effects per unit: which locations visible to its callers (its own
//! dummies and globals) a unit modifies or reads, directly (`*_local`) or
//! through the units it calls.

use super::bitset::BitSet;
use super::call_graph::CallGraph;
use super::ir::{Callee, LocationId, LocationKind, Program, Stmt, UnitId};

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
                            ..
                        } if !same_cycle(*c) => {
                            for l in self.call_kills(program, &Callee::Unit(*c), actuals) {
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

    /// Caller locations a call certainly overwrites: the callee's
    /// `must_mod` bound to the actuals.
    pub fn call_kills(
        &self,
        program: &Program,
        callee: &Callee,
        actuals: &[Option<LocationId>],
    ) -> Vec<LocationId> {
        match callee {
            Callee::External(_) => Vec::new(),
            Callee::Unit(_) => self.call_bound(program, callee, actuals, |e| &e.must_mod),
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
