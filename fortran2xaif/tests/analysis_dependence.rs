//! The dependence summaries against the representation they had before
//! (docs/benchmarks.md, 25 Nov 2026 (9)): every block kept one set per
//! slot. The reference below is that dense sweep, kept verbatim; the
//! summaries computed with states that store only the slots differing from
//! their entry value must be equal on random programs (recursion, back
//! edges, aliasing through globals passed as actuals, element actuals,
//! external calls, opaque statements), for both kinds.

use std::collections::HashMap;

use fortran2xaif::analysis::bitset::BitSet;
use fortran2xaif::analysis::dependence::{DependenceKind, Summaries, Summary};
use fortran2xaif::analysis::ir::{ActualPart, ElementId, LocationId, Program, Stmt, UnitId};
use fortran2xaif::analysis::{Alias, CallGraph, SideEffects};

mod common;
use common::{random_program, Rng};

/// `Summaries::compute` with the dense sweep.
fn dense_summaries(
    program: &Program,
    call_graph: &CallGraph,
    side_effects: &SideEffects,
    alias: &Alias,
    kind: DependenceKind,
) -> Summaries {
    let mut all = Summaries {
        kind: Some(kind),
        units: vec![Summary::default(); program.units.len()],
        exact: (0..program.units.len())
            .map(|u| !call_graph.is_recursive(UnitId(u as u32)))
            .collect(),
    };
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

/// Some whole actuals become elements (constant or unknown subscripts) or
/// sections, so that partial targets keep their old value.
fn with_partial_actuals(rng: &mut Rng, program: &mut Program) {
    let mut next = 0u32;
    for unit in &mut program.units {
        for stmt in unit.blocks.iter_mut().flat_map(|b| &mut b.stmts) {
            if let Stmt::Call { parts, .. } = stmt {
                for part in parts.iter_mut() {
                    *part = match rng.below(6) {
                        0 => {
                            next += 1;
                            ActualPart::Element(Some(ElementId(next % 3)))
                        }
                        1 => ActualPart::Element(None),
                        2 => ActualPart::Section,
                        _ => ActualPart::Whole,
                    };
                }
            }
        }
    }
}

#[test]
fn sparse_states_give_the_dense_summaries() {
    let (mut outputs, mut inputs) = (0usize, 0usize);
    for case in 0..600u64 {
        let mut rng = Rng(0x51f1_5eed_0dd5_eed5 ^ (case + 7).wrapping_mul(0x1000_0001));
        let mut program = random_program(&mut rng);
        if rng.chance(50) {
            with_partial_actuals(&mut rng, &mut program);
        }
        let call_graph = CallGraph::build(&program);
        let side_effects = SideEffects::compute(&program, &call_graph);
        let alias = Alias::compute(&program, &call_graph);
        for kind in [DependenceKind::Differentiable, DependenceKind::All] {
            let sparse = Summaries::compute(&program, &call_graph, &side_effects, &alias, kind);
            let dense = dense_summaries(&program, &call_graph, &side_effects, &alias, kind);
            assert_eq!(sparse, dense, "case {case}, {kind:?}");
            for s in &dense.units {
                outputs += s.outputs.len();
                inputs += s.outputs.values().map(BitSet::len).sum::<usize>();
            }
        }
    }
    // The programs exercise the summaries: many outputs, with inputs.
    assert!(outputs > 2000 && inputs > 2000, "{outputs} {inputs}");
}

/// The sweep as it was: one dense state per block, a set per slot.
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
    let identity = |l: LocationId| -> BitSet {
        let mut s = BitSet::new(n);
        if let Some(&c) = column.get(&l).filter(|_| counts(l)) {
            s.insert(c);
        }
        s
    };
    let entry_state: Vec<BitSet> = slot_locs.iter().map(|l| identity(*l)).collect();
    let current = |state: &[BitSet], l: LocationId| -> BitSet {
        match slot_of.get(&l) {
            Some(&s) => state[s].clone(),
            None => identity(l),
        }
    };
    let partners_in_unit = |l: LocationId| {
        alias
            .partners_of(l)
            .iter()
            .copied()
            .filter(move |p| program.is_visible_outside(uid, *p))
    };
    let define = |state: &mut [BitSet], l: LocationId, value: &BitSet, kills: bool| {
        if let Some(&s) = slot_of.get(&l) {
            if kills {
                state[s] = value.clone();
            } else {
                state[s].union_with(value);
            }
        }
        for p in partners_in_unit(l) {
            if let Some(&s) = slot_of.get(&p) {
                state[s].union_with(value);
            }
        }
    };
    let transfer = |state: &mut Vec<BitSet>, stmt: &Stmt| match stmt {
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
    let mut out: Vec<Option<Vec<BitSet>>> = vec![None; nb];
    let mut worklist: Vec<usize> = (0..nb).rev().collect();
    let mut queued = vec![true; nb];
    while let Some(b) = worklist.pop() {
        queued[b] = false;
        let mut state: Option<Vec<BitSet>> = (b == unit.entry.index()).then(|| entry_state.clone());
        for p in &preds[b] {
            if let Some(po) = &out[p.index()] {
                match &mut state {
                    None => state = Some(po.clone()),
                    Some(s) => s.iter_mut().zip(po).for_each(|(a, x)| {
                        a.union_with(x);
                    }),
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
                let inputs: BitSet = exit[s].iter().map(|c| universe[c].index()).collect();
                summary.outputs.insert(*l, inputs);
            }
        }
    }
    summary
}
