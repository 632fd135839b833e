//! Properties of the analyses on random programs (the seeded generator of
//! `common/`, so failures reproduce).

use fortran2xaif::analysis::bitset::BitSet;
use fortran2xaif::analysis::builder::{ProgramBuilder, Ty};
use fortran2xaif::analysis::ir::{
    ActualPart, Callee, Def, ElementId, LocationId, LocationKind, Program, Seeds, Stmt, StmtId,
    UnitId, Use,
};
use std::collections::HashMap;

use fortran2xaif::analysis::{analyze, analyze_for, ChainPoint, ChainsOf, DuUd, Results};

mod common;
use common::{random_program, random_seeds, random_ty, Rng};

fn cases(count: u64, mut check: impl FnMut(&mut Rng, &Program, &Seeds, &Results)) {
    for case in 0..count {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15 ^ (case + 1).wrapping_mul(0x1000_0001));
        let prog = random_program(&mut rng);
        let seeds = random_seeds(&mut rng, &prog);
        let r = analyze(&prog, &seeds);
        assert!(r.errors.is_empty(), "case {case}: {:?}", r.errors);
        check(&mut rng, &prog, &seeds, &r);
    }
}

#[test]
fn independents_are_varied_and_integers_never_active() {
    cases(300, |_, prog, seeds, r| {
        for x in &seeds.independents {
            if prog.is_differentiable(*x) {
                assert!(r.activity.varied.contains(x.index()));
                assert!(r.activity.entry_varied[0].contains(x.index()));
            }
        }
        for l in r.activity.declared_active.iter() {
            assert!(prog.locations[l].differentiable_type);
        }
        assert!(r
            .activity
            .flow_active
            .is_subset(&r.activity.declared_active));
    });
}

#[test]
fn activity_is_monotone_in_the_seeds() {
    cases(300, |rng, prog, seeds, r| {
        let mut more = seeds.clone();
        let extra: Vec<LocationId> = seeds
            .dependents
            .iter()
            .copied()
            .filter(|_| rng.chance(50))
            .collect();
        more.independents.extend(extra);
        let extra: Vec<LocationId> = seeds
            .independents
            .iter()
            .copied()
            .filter(|_| rng.chance(50))
            .collect();
        more.dependents.extend(extra);
        let r2 = analyze(prog, &more);
        assert!(r.activity.varied.is_subset(&r2.activity.varied));
        assert!(r.activity.useful.is_subset(&r2.activity.useful));
        assert!(r.activity.flow_active.is_subset(&r2.activity.flow_active));
        assert!(r
            .activity
            .declared_active
            .is_subset(&r2.activity.declared_active));
        for (id, s) in &r.activity.stmts {
            if s.active {
                assert!(r2.activity.stmts[id].active, "{id:?}");
            }
        }
    });
}

/// A flow-insensitive over-approximation of "may flow into": edges from
/// differentiable reads to definitions (and their aliases), between actuals
/// and dummies, among the actuals of external calls.
fn influence_graph(prog: &Program, r: &Results) -> Vec<Vec<usize>> {
    let n = prog.locations.len();
    let mut succ = vec![Vec::new(); n];
    let counts = |l: LocationId| prog.is_differentiable(l);
    for unit in &prog.units {
        for stmt in unit.blocks.iter().flat_map(|b| &b.stmts) {
            match stmt {
                Stmt::Assign { def, uses, .. } => {
                    let mut targets = vec![def.loc];
                    targets.extend(r.alias.partners_of(def.loc).iter().copied());
                    for u in uses.iter().filter(|u| u.differentiable && counts(u.loc)) {
                        for t in &targets {
                            succ[u.loc.index()].push(t.index());
                        }
                    }
                }
                Stmt::Call {
                    callee: Callee::Unit(c),
                    actuals,
                    ..
                } => {
                    for (a, d) in actuals.iter().zip(&prog.units[c.index()].dummies) {
                        if let Some(a) = a {
                            succ[a.index()].push(d.index());
                            succ[d.index()].push(a.index());
                            for p in r.alias.partners_of(*a) {
                                succ[d.index()].push(p.index());
                            }
                        }
                    }
                }
                Stmt::Call { actuals, .. } => {
                    for a in actuals.iter().flatten() {
                        for b in actuals.iter().flatten() {
                            succ[a.index()].push(b.index());
                        }
                    }
                }
                Stmt::Opaque { .. } => {}
            }
        }
    }
    succ
}

fn reachable(succ: &[Vec<usize>], from: &[usize]) -> BitSet {
    let mut seen: BitSet = from.iter().copied().collect();
    let mut stack = from.to_vec();
    while let Some(v) = stack.pop() {
        for &w in &succ[v] {
            if seen.insert(w) {
                stack.push(w);
            }
        }
    }
    seen
}

#[test]
fn nothing_off_the_paths_from_independents_to_dependents_is_active() {
    cases(400, |_, prog, seeds, r| {
        let succ = influence_graph(prog, r);
        let mut pred = vec![Vec::new(); succ.len()];
        for (v, ws) in succ.iter().enumerate() {
            for &w in ws {
                pred[w].push(v);
            }
        }
        let from: Vec<usize> = seeds.independents.iter().map(|l| l.index()).collect();
        let to: Vec<usize> = seeds.dependents.iter().map(|l| l.index()).collect();
        let mut on_path = reachable(&succ, &from);
        on_path.intersect_with(&reachable(&pred, &to));
        assert!(
            r.activity.flow_active.is_subset(&on_path),
            "flow-active {:?} outside paths {:?}",
            r.activity.flow_active.iter().collect::<Vec<_>>(),
            on_path.iter().collect::<Vec<_>>()
        );
        assert!(r.activity.varied.is_subset(&reachable(&succ, &from)));
        assert!(r.activity.useful.is_subset(&reachable(&pred, &to)));
    });
}

#[test]
fn ud_and_du_chains_are_inverse() {
    cases(300, |_, _, _, r| {
        let du = &r.du_ud;
        for &(stmt, loc) in du.use_keys.keys() {
            for p in du.ud(stmt, loc).unwrap_or(&[]) {
                if let ChainPoint::Stmt(d) = p {
                    let uses = du.du(*d, loc).expect("definition has a du chain");
                    assert!(
                        uses.contains(&ChainPoint::Stmt(stmt)),
                        "{d:?} → {stmt:?} of {loc:?}"
                    );
                }
            }
        }
        for &(stmt, loc) in du.def_keys.keys() {
            for p in du.du(stmt, loc).unwrap_or(&[]) {
                if let ChainPoint::Stmt(u) = p {
                    let defs = du.ud(*u, loc).expect("use has a ud chain");
                    assert!(defs.contains(&ChainPoint::Stmt(stmt)));
                }
            }
        }
        assert!(du.chains[0].is_empty() && du.do_chains[0].is_empty());
    });
}

/// Chains of scalars only (what the front end computes): every scalar's
/// chains as with all chains, no array has one, the other results equal.
#[test]
fn scalar_chains_are_the_chains_of_scalars() {
    let (mut scalar_keys, mut array_keys) = (0, 0);
    cases(300, |_, prog, seeds, r| {
        let s = analyze_for(prog, seeds, ChainsOf::Scalars);
        let is_array = |l: LocationId| prog.locations[l.index()].is_array;
        type Keys = HashMap<(StmtId, LocationId), u64>;
        type Chain<'a> = fn(&'a DuUd, StmtId, LocationId) -> Option<&'a [ChainPoint]>;
        let kinds: [(&Keys, &Keys, Chain); 3] = [
            (&r.du_ud.use_keys, &s.du_ud.use_keys, DuUd::ud),
            (&r.du_ud.def_keys, &s.du_ud.def_keys, DuUd::du),
            (&r.du_ud.do_keys, &s.du_ud.do_keys, DuUd::overwritten_by),
        ];
        for (all, scalars, chain) in kinds {
            for &(stmt, loc) in all.keys() {
                if is_array(loc) {
                    array_keys += 1;
                    assert!(chain(&s.du_ud, stmt, loc).is_none());
                } else {
                    scalar_keys += 1;
                    assert_eq!(chain(&s.du_ud, stmt, loc), chain(&r.du_ud, stmt, loc));
                }
            }
            assert!(scalars
                .keys()
                .all(|k| all.contains_key(k) && !is_array(k.1)));
        }
        let without_chains = |x: &Results| Results {
            du_ud: DuUd::default(),
            ..x.clone()
        };
        assert_eq!(without_chains(&s), without_chains(r));
    });
    assert!(
        scalar_keys > 1000 && array_keys > 1000,
        "{scalar_keys} {array_keys}"
    );
}

#[test]
fn analysis_is_deterministic() {
    cases(100, |_, prog, seeds, r| {
        let again = analyze(prog, seeds);
        assert_eq!(&again, r);
    });
}

/// Passing a section of each actual instead of the whole variable only
/// takes kills away (the callee's overwrite of its dummy leaves the rest
/// of the array alone), so every varied, useful and active set, every
/// active statement and every ud chain can only grow, and the must-modify
/// sets only shrink. Kills must under-approximate: a call that killed more
/// for a section than for the whole would lose derivatives.
#[test]
fn passing_sections_only_takes_kills_away() {
    let mut grew = 0;
    cases(300, |_, prog, seeds, r| {
        let mut sections = prog.clone();
        for stmt in sections
            .units
            .iter_mut()
            .flat_map(|u| &mut u.blocks)
            .flat_map(|b| &mut b.stmts)
        {
            if let Stmt::Call { actuals, parts, .. } = stmt {
                for (a, part) in actuals.iter().zip(parts.iter_mut()) {
                    if a.is_some() {
                        *part = ActualPart::Section;
                    }
                }
            }
        }
        let rs = analyze(&sections, seeds);
        assert!(rs.errors.is_empty());
        let (a, b) = (&r.activity, &rs.activity);
        assert!(a.varied.is_subset(&b.varied));
        assert!(a.useful.is_subset(&b.useful));
        assert!(a.flow_active.is_subset(&b.flow_active));
        assert!(a.declared_active.is_subset(&b.declared_active));
        for (id, s) in &a.stmts {
            assert!(!s.active || b.stmts[id].active, "{id:?}");
        }
        for &(stmt, loc) in r.du_ud.use_keys.keys() {
            let (whole, part) = (
                r.du_ud.ud(stmt, loc).unwrap_or(&[]),
                rs.du_ud.ud(stmt, loc).unwrap_or(&[]),
            );
            assert!(whole.iter().all(|p| part.contains(p)), "{stmt:?} {loc:?}");
            grew += (part.len() > whole.len()) as usize;
        }
        for (u, e) in r.side_effects.units.iter().enumerate() {
            assert!(rs.side_effects.units[u].must_mod.is_subset(&e.must_mod));
        }
        grew += (a.flow_active != b.flow_active) as usize;
    });
    // The generator must make calls that kill.
    assert!(grew > 20, "{grew}");
}

/// One unit, no calls: a random acyclic (forward edges only) or cyclic
/// block graph of assignments and opaque statements.
fn random_single_unit(rng: &mut Rng, acyclic: bool) -> (Program, Seeds) {
    let mut p = ProgramBuilder::new();
    let u = p.unit("u");
    let mut locs = Vec::new();
    for d in 0..1 + rng.below(3) {
        let ty = random_ty(rng);
        locs.push(p.dummy(u, &format!("d{d}"), ty));
    }
    for l in 0..rng.below(4) {
        let ty = random_ty(rng);
        locs.push(p.local(u, &format!("l{l}"), ty));
    }
    let nb = 1 + rng.below(6);
    let blocks: Vec<_> = (0..nb).map(|_| p.block(u)).collect();
    p.chain(u, &blocks);
    for _ in 0..rng.below(4) {
        let (a, b) = (rng.below(nb), rng.below(nb));
        if !acyclic || a < b {
            p.edge(u, blocks[a], blocks[b]);
        }
    }
    for &b in &blocks {
        for _ in 0..rng.below(4) {
            if rng.chance(15) {
                let Some(l) = rng.pick(&locs) else { continue };
                let kills = rng.chance(50);
                p.opaque(
                    u,
                    b,
                    &[Def {
                        loc: l,
                        kills,
                        element: None,
                    }],
                    &[],
                );
                continue;
            }
            let Some(def) = rng.pick(&locs) else { continue };
            let uses: Vec<Use> = (0..rng.below(3))
                .filter_map(|_| {
                    let loc = rng.pick(&locs)?;
                    Some(Use {
                        loc,
                        differentiable: rng.chance(75),
                        element: None,
                    })
                })
                .collect();
            if rng.chance(30) {
                p.assign_partial(u, b, def, &uses);
            } else {
                p.assign(u, b, def, &uses);
            }
        }
    }
    let prog = p.finish();
    let dummies = prog.units[0].dummies.clone();
    let seeds = Seeds {
        top: UnitId(0),
        independents: dummies.iter().copied().filter(|_| rng.chance(50)).collect(),
        dependents: dummies.iter().copied().filter(|_| rng.chance(50)).collect(),
    };
    (prog, seeds)
}

/// Gives some references to array locations a constant-subscript element
/// (one of three), as the front end does for `a(1)`, `a(2)`, `a(3)`.
fn add_random_elements(rng: &mut Rng, prog: &mut Program) {
    let is_array: Vec<bool> = prog.locations.iter().map(|l| l.is_array).collect();
    let pick = |rng: &mut Rng| (rng.chance(70)).then(|| ElementId(rng.below(3) as u32));
    for block in &mut prog.units[0].blocks {
        for stmt in &mut block.stmts {
            if let Stmt::Assign { def, uses, .. } = stmt {
                if is_array[def.loc.index()] && !def.kills {
                    def.element = pick(rng);
                }
                for u in uses.iter_mut().filter(|u| is_array[u.loc.index()]) {
                    u.element = pick(rng);
                }
            }
        }
    }
}

/// Every path from the entry (depth-limited), statement by statement:
/// calls `visit(stmt, set after it)`.
fn forward_paths(
    prog: &Program,
    block: usize,
    set: BitSet,
    depth: usize,
    visit: &mut impl FnMut(&Stmt, &BitSet),
    step: &impl Fn(&Stmt, &mut BitSet),
) {
    let unit = &prog.units[0];
    let mut s = set;
    for stmt in &unit.blocks[block].stmts {
        step(stmt, &mut s);
        visit(stmt, &s);
    }
    if depth == 0 {
        return;
    }
    for next in &unit.successors[block] {
        forward_paths(prog, next.index(), s.clone(), depth - 1, visit, step);
    }
}

/// Every path to the exit, walked backwards (depth-limited).
fn backward_paths(
    prog: &Program,
    preds: &[Vec<usize>],
    block: usize,
    set: BitSet,
    depth: usize,
    visit: &mut impl FnMut(&Stmt, &BitSet),
    step: &impl Fn(&Stmt, &mut BitSet),
) {
    let unit = &prog.units[0];
    let mut s = set;
    for stmt in unit.blocks[block].stmts.iter().rev() {
        visit(stmt, &s);
        step(stmt, &mut s);
    }
    if depth == 0 {
        return;
    }
    for &p in &preds[block] {
        backward_paths(prog, preds, p, s.clone(), depth - 1, visit, step);
    }
}

/// Varied and useful on single paths, straight from the definitions,
/// joined over all paths, must give the data-flow result: equal on acyclic
/// graphs, and never more than it on cyclic ones (paths are cut off).
#[test]
fn activity_equals_the_union_over_paths() {
    let (mut active_seen, mut passive_seen) = (0, 0);
    for case in 0..400u64 {
        let mut rng = Rng(0x51_7cc1_b727_220a ^ (case + 7).wrapping_mul(0x2545_f491));
        let acyclic = case % 2 == 0;
        let (prog, seeds) = random_single_unit(&mut rng, acyclic);
        let r = analyze(&prog, &seeds);
        let counts = |l: LocationId| prog.is_differentiable(l);
        let varied_step = |stmt: &Stmt, v: &mut BitSet| match stmt {
            Stmt::Assign { def, uses, .. } => {
                let any = counts(def.loc)
                    && uses
                        .iter()
                        .any(|u| u.differentiable && counts(u.loc) && v.contains(u.loc.index()));
                if any {
                    v.insert(def.loc.index());
                } else if def.kills {
                    v.remove(def.loc.index());
                }
            }
            Stmt::Opaque { defs, .. } => defs
                .iter()
                .filter(|d| d.kills)
                .for_each(|d| v.remove(d.loc.index())),
            Stmt::Call { .. } => {}
        };
        let useful_step = |stmt: &Stmt, w: &mut BitSet| match stmt {
            Stmt::Assign { def, uses, .. } => {
                let useful = counts(def.loc) && w.contains(def.loc.index());
                if def.kills {
                    w.remove(def.loc.index());
                }
                if useful {
                    for u in uses.iter().filter(|u| u.differentiable && counts(u.loc)) {
                        w.insert(u.loc.index());
                    }
                }
            }
            Stmt::Opaque { defs, .. } => defs
                .iter()
                .filter(|d| d.kills)
                .for_each(|d| w.remove(d.loc.index())),
            Stmt::Call { .. } => {}
        };
        let unit = &prog.units[0];
        let depth = if acyclic {
            unit.blocks.len()
        } else {
            2 * unit.blocks.len() + 2
        };
        let mut varied_after: std::collections::HashMap<_, BitSet> = Default::default();
        let entry: BitSet = seeds
            .independents
            .iter()
            .filter(|l| counts(**l))
            .map(|l| l.index())
            .collect();
        forward_paths(
            &prog,
            unit.entry.index(),
            entry,
            depth,
            &mut |s, v| {
                varied_after.entry(s.id()).or_default().union_with(v);
            },
            &varied_step,
        );
        let preds: Vec<Vec<usize>> = unit
            .predecessors()
            .into_iter()
            .map(|ps| ps.into_iter().map(|p| p.index()).collect())
            .collect();
        let mut useful_after: std::collections::HashMap<_, BitSet> = Default::default();
        let exit: BitSet = seeds
            .dependents
            .iter()
            .filter(|l| counts(**l))
            .map(|l| l.index())
            .collect();
        backward_paths(
            &prog,
            &preds,
            unit.exit.index(),
            exit,
            depth,
            &mut |s, w| {
                useful_after.entry(s.id()).or_default().union_with(w);
            },
            &useful_step,
        );
        for stmt in unit.blocks.iter().flat_map(|b| &b.stmts) {
            let Stmt::Assign { id, def, .. } = stmt else {
                continue;
            };
            let on_paths = varied_after
                .get(id)
                .is_some_and(|v| v.contains(def.loc.index()))
                && useful_after
                    .get(id)
                    .is_some_and(|w| w.contains(def.loc.index()));
            let analysed = r.activity.stmts[id].active;
            if analysed {
                active_seen += 1;
            } else {
                passive_seen += 1;
            }
            if acyclic {
                assert_eq!(on_paths, analysed, "case {case} {id:?}: {prog:?}");
            } else {
                assert!(!on_paths || analysed, "case {case} {id:?}");
            }
        }
    }
    // The generator must exercise both outcomes.
    assert!(
        active_seen > 50 && passive_seen > 50,
        "{active_seen} {passive_seen}"
    );
}

/// A random program without recursion or aliasing: unit k calls only units
/// after it, actuals of one call are distinct non-global locations of the
/// dummy's type class.
fn random_call_tree(rng: &mut Rng) -> (Program, Seeds) {
    let mut p = ProgramBuilder::new();
    let nunits = 2 + rng.below(3);
    let globals: Vec<LocationId> = (0..rng.below(3))
        .map(|g| {
            let ty = random_ty(rng);
            p.global(&format!("g{g}"), ty)
        })
        .collect();
    let units: Vec<UnitId> = (0..nunits).map(|u| p.unit(&format!("u{u}"))).collect();
    let mut own: Vec<Vec<LocationId>> = Vec::new();
    let mut dummy_tys: Vec<Vec<Ty>> = Vec::new();
    for &u in &units {
        let mut locs = Vec::new();
        let mut tys = Vec::new();
        for d in 0..1 + rng.below(3) {
            let ty = random_ty(rng);
            tys.push(ty);
            locs.push(p.dummy(u, &format!("d{d}"), ty));
        }
        for l in 0..1 + rng.below(4) {
            let ty = random_ty(rng);
            locs.push(p.local(u, &format!("l{l}"), ty));
        }
        own.push(locs);
        dummy_tys.push(tys);
    }
    let real = |ty: Ty| matches!(ty, Ty::Real | Ty::RealArray);
    for (ui, &u) in units.iter().enumerate() {
        let nb = 1 + rng.below(4);
        let blocks: Vec<_> = (0..nb).map(|_| p.block(u)).collect();
        p.chain(u, &blocks);
        for _ in 0..rng.below(3) {
            let (a, b) = (rng.below(nb), rng.below(nb));
            p.edge(u, blocks[a], blocks[b]);
        }
        let mut locs = own[ui].clone();
        locs.extend(&globals);
        for &b in &blocks {
            for _ in 0..rng.below(4) {
                if ui + 1 < nunits && rng.chance(25) {
                    let c = ui + 1 + rng.below(nunits - ui - 1);
                    let mut used: Vec<LocationId> = Vec::new();
                    let mut actuals = Vec::new();
                    for &ty in &dummy_tys[c] {
                        let fits: Vec<LocationId> = own[ui]
                            .iter()
                            .copied()
                            .filter(|l| !used.contains(l))
                            .filter(|l| {
                                let info = &p.clone().finish().locations[l.index()];
                                info.differentiable_type == real(ty)
                            })
                            .collect();
                        let a = if rng.chance(15) {
                            None
                        } else {
                            rng.pick(&fits)
                        };
                        if let Some(a) = a {
                            used.push(a);
                        }
                        actuals.push(a);
                    }
                    p.call(u, b, units[c], &actuals);
                    continue;
                }
                if rng.chance(10) {
                    let Some(l) = rng.pick(&locs) else { continue };
                    let kills = rng.chance(50);
                    p.opaque(
                        u,
                        b,
                        &[Def {
                            loc: l,
                            kills,
                            element: None,
                        }],
                        &[],
                    );
                    continue;
                }
                let Some(def) = rng.pick(&locs) else { continue };
                let uses: Vec<Use> = (0..rng.below(3))
                    .filter_map(|_| {
                        let loc = rng.pick(&locs)?;
                        Some(Use {
                            loc,
                            differentiable: rng.chance(75),
                            element: None,
                        })
                    })
                    .collect();
                if rng.chance(25) {
                    p.assign_partial(u, b, def, &uses);
                } else {
                    p.assign(u, b, def, &uses);
                }
            }
        }
    }
    let prog = p.finish();
    let mut candidates = prog.units[0].dummies.clone();
    candidates.extend(&globals);
    let seeds = Seeds {
        top: UnitId(0),
        independents: candidates
            .iter()
            .copied()
            .filter(|_| rng.chance(50))
            .collect(),
        dependents: candidates
            .iter()
            .copied()
            .filter(|_| rng.chance(50))
            .collect(),
    };
    (prog, seeds)
}

/// Inlines every call of the top unit, recursively: one unit whose
/// statements are copies (new ids, mapped back in the returned map) with
/// dummies replaced by actuals and fresh locals per copy.
fn inline_all(prog: &Program) -> (Program, std::collections::HashMap<StmtId, StmtId>) {
    let (p, origin, _) = inline_all_with_top(prog);
    (p, origin)
}

type StmtMap = std::collections::HashMap<StmtId, StmtId>;

/// `inline_all`, also mapping every copy to the statement of the top unit
/// it comes from (the call it was inlined through, or itself).
fn inline_all_with_top(prog: &Program) -> (Program, StmtMap, StmtMap) {
    use fortran2xaif::analysis::ir::{Block, BlockId, Unit};
    struct Inliner<'a> {
        prog: &'a Program,
        out: Unit,
        locations: Vec<fortran2xaif::analysis::ir::LocationInfo>,
        origin: std::collections::HashMap<StmtId, StmtId>,
        at_top: std::collections::HashMap<StmtId, StmtId>,
        current_top: Option<StmtId>,
        next_id: u32,
    }
    impl Inliner<'_> {
        fn new_block(&mut self) -> usize {
            self.out.blocks.push(Block::default());
            self.out.successors.push(Vec::new());
            self.out.blocks.len() - 1
        }
        fn fresh(&mut self, like: LocationId) -> LocationId {
            let mut info = self.locations[like.index()].clone();
            info.kind = LocationKind::Local { unit: UnitId(0) };
            self.locations.push(info);
            LocationId(self.locations.len() as u32 - 1)
        }
        /// Returns (entry block, exit block) of the copy.
        fn instance(
            &mut self,
            u: UnitId,
            subst: &std::collections::HashMap<LocationId, LocationId>,
            top: bool,
        ) -> (usize, usize) {
            let unit = &self.prog.units[u.index()];
            let mut subst = subst.clone();
            if !top {
                for (l, info) in self.prog.locations.iter().enumerate() {
                    if info.kind == (LocationKind::Local { unit: u }) {
                        let f = self.fresh(LocationId(l as u32));
                        subst.insert(LocationId(l as u32), f);
                    }
                }
            }
            let map = |l: LocationId| *subst.get(&l).unwrap_or(&l);
            let mut span = Vec::new();
            for block in &unit.blocks {
                let first = self.new_block();
                let mut cur = first;
                for stmt in &block.stmts {
                    let id = StmtId(self.next_id);
                    self.next_id += 1;
                    self.origin.insert(id, stmt.id());
                    if top {
                        self.current_top = Some(stmt.id());
                    }
                    self.at_top
                        .insert(id, self.current_top.unwrap_or(stmt.id()));
                    let copy = match stmt {
                        Stmt::Assign { def, uses, .. } => Stmt::Assign {
                            id,
                            def: Def {
                                loc: map(def.loc),
                                kills: def.kills,
                                element: None,
                            },
                            uses: uses
                                .iter()
                                .map(|x| Use {
                                    loc: map(x.loc),
                                    differentiable: x.differentiable,
                                    element: None,
                                })
                                .collect(),
                        },
                        Stmt::Opaque { defs, uses, .. } => Stmt::Opaque {
                            id,
                            defs: defs
                                .iter()
                                .map(|d| Def {
                                    loc: map(d.loc),
                                    kills: d.kills,
                                    element: None,
                                })
                                .collect(),
                            uses: uses.iter().map(|l| map(*l)).collect(),
                        },
                        Stmt::Call {
                            callee: Callee::Unit(c),
                            actuals,
                            ..
                        } => {
                            let callee = &self.prog.units[c.index()];
                            let mut inner = std::collections::HashMap::new();
                            for (d, a) in callee.dummies.iter().zip(actuals) {
                                let target = match a {
                                    Some(a) => map(*a),
                                    None => self.fresh(*d),
                                };
                                inner.insert(*d, target);
                            }
                            let (entry, exit) = self.instance(*c, &inner, false);
                            self.out.successors[cur].push(BlockId(entry as u32));
                            let next = self.new_block();
                            self.out.successors[exit].push(BlockId(next as u32));
                            cur = next;
                            continue;
                        }
                        Stmt::Call {
                            callee,
                            actuals,
                            parts,
                            ..
                        } => Stmt::Call {
                            id,
                            callee: callee.clone(),
                            actuals: actuals.iter().map(|a| a.map(map)).collect(),
                            parts: parts.clone(),
                        },
                    };
                    self.out.blocks[cur].stmts.push(copy);
                }
                span.push((first, cur));
            }
            for (b, succs) in unit.successors.iter().enumerate() {
                for s in succs {
                    let from = span[b].1;
                    let to = span[s.index()].0;
                    self.out.successors[from].push(BlockId(to as u32));
                }
            }
            (span[unit.entry.index()].0, span[unit.exit.index()].1)
        }
    }
    let mut inl = Inliner {
        prog,
        out: Unit {
            name: "inlined".into(),
            dummies: prog.units[0].dummies.clone(),
            ..Unit::default()
        },
        locations: prog.locations.clone(),
        origin: Default::default(),
        at_top: Default::default(),
        current_top: None,
        next_id: 1,
    };
    let (entry, exit) = inl.instance(UnitId(0), &Default::default(), true);
    inl.out.entry = BlockId(entry as u32);
    inl.out.exit = BlockId(exit as u32);
    let program = Program {
        units: vec![inl.out],
        locations: inl.locations,
        // Random programs have no MPI message channel.
        always_active: Vec::new(),
    };
    (program, inl.origin, inl.at_top)
}

/// Without recursion and aliasing, applying the callees' Diff-dep
/// summaries at the calls gives the same activity in the top unit as
/// analysing the fully inlined program; inside callees the union over
/// contexts contains every inlined copy's activity.
#[test]
fn summaries_agree_with_inlining() {
    let (mut compared, mut active_seen) = (0, 0);
    for case in 0..300u64 {
        let mut rng = Rng(0x2f1d_0b6e_93a5_c4d7 ^ (case + 3).wrapping_mul(0x9e37_79b9));
        let (prog, seeds) = random_call_tree(&mut rng);
        let r = analyze(&prog, &seeds);
        assert!(r.errors.is_empty());
        let (inlined, origin) = inline_all(&prog);
        let ri = analyze(
            &inlined,
            &Seeds {
                top: UnitId(0),
                ..seeds.clone()
            },
        );
        assert!(ri.errors.is_empty(), "{:?}", ri.errors);
        let top_ids: std::collections::HashSet<StmtId> = prog.units[0]
            .blocks
            .iter()
            .flat_map(|b| &b.stmts)
            .map(|s| s.id())
            .collect();
        for stmt in inlined.units[0].blocks.iter().flat_map(|b| &b.stmts) {
            let Stmt::Assign { id, .. } = stmt else {
                continue;
            };
            let original = origin[id];
            let copy_active = ri.activity.stmts[id].active;
            let summary_active = r.activity.stmts[&original].active;
            if top_ids.contains(&original) {
                compared += 1;
                active_seen += copy_active as usize;
                assert_eq!(copy_active, summary_active, "case {case} {original:?}");
            } else {
                assert!(!copy_active || summary_active, "case {case} {original:?}");
            }
        }
    }
    assert!(
        compared > 300 && active_seen > 30,
        "{compared} {active_seen}"
    );
}

/// ud chains on single units against reaching definitions computed path by
/// path: equal on acyclic graphs, contained in the data-flow result on
/// cyclic ones.
#[test]
fn ud_chains_equal_definitions_reaching_along_paths() {
    let mut nonempty = 0;
    for case in 0..400u64 {
        let mut rng = Rng(0x7a3c_55e1_0d2b_9f61 ^ (case + 11).wrapping_mul(0x1000_0193));
        let acyclic = case % 2 == 0;
        let (mut prog, seeds) = random_single_unit(&mut rng, acyclic);
        // Half the cases give array references constant-subscript elements.
        if case % 4 < 2 {
            add_random_elements(&mut rng, &mut prog);
        }
        let r = analyze(&prog, &seeds);
        let unit = &prog.units[0];
        // Reaching definitions per location along one path: location →
        // (defining point (None = entry), element it defines (None = unknown)).
        type Point = (Option<StmtId>, Option<ElementId>);
        type Reach = std::collections::BTreeMap<LocationId, std::collections::BTreeSet<Point>>;
        let mut entry: Reach = Default::default();
        for (l, info) in prog.locations.iter().enumerate() {
            if matches!(info.kind, LocationKind::Dummy { .. } | LocationKind::Global) {
                entry
                    .entry(LocationId(l as u32))
                    .or_default()
                    .insert((None, None));
            }
        }
        let mut seen: std::collections::HashMap<
            (StmtId, LocationId),
            std::collections::BTreeSet<Option<StmtId>>,
        > = Default::default();
        fn walk(
            prog: &Program,
            block: usize,
            mut reach: std::collections::BTreeMap<LocationId, std::collections::BTreeSet<Point>>,
            depth: usize,
            seen: &mut std::collections::HashMap<
                (StmtId, LocationId),
                std::collections::BTreeSet<Option<StmtId>>,
            >,
        ) {
            let unit = &prog.units[0];
            for stmt in &unit.blocks[block].stmts {
                let (defs, uses): (Vec<Def>, Vec<(LocationId, Option<ElementId>)>) = match stmt {
                    Stmt::Assign { def, uses, .. } => (
                        vec![*def],
                        uses.iter().map(|u| (u.loc, u.element)).collect(),
                    ),
                    Stmt::Opaque { defs, uses, .. } => {
                        (defs.clone(), uses.iter().map(|l| (*l, None)).collect())
                    }
                    Stmt::Call { .. } => (Vec::new(), Vec::new()),
                };
                // A read of element e sees definitions of e and of unknown
                // elements; a read of an unknown element sees them all.
                for (u, element) in uses {
                    let e = seen.entry((stmt.id(), u)).or_default();
                    e.extend(
                        reach
                            .get(&u)
                            .into_iter()
                            .flatten()
                            .filter(|(_, de)| element.is_none() || de.is_none() || *de == element)
                            .map(|(point, _)| *point),
                    );
                }
                for d in defs {
                    let set = reach.entry(d.loc).or_default();
                    if d.kills {
                        set.clear();
                    } else if d.element.is_some() {
                        set.retain(|(_, de)| *de != d.element);
                    }
                    set.insert((Some(stmt.id()), if d.kills { None } else { d.element }));
                }
            }
            if depth == 0 {
                return;
            }
            for next in &unit.successors[block] {
                walk(prog, next.index(), reach.clone(), depth - 1, seen);
            }
        }
        let depth = if acyclic {
            unit.blocks.len()
        } else {
            2 * unit.blocks.len() + 2
        };
        walk(&prog, unit.entry.index(), entry, depth, &mut seen);
        for ((stmt, loc), defs) in &seen {
            let expected: Vec<ChainPoint> = defs
                .iter()
                .map(|d| d.map_or(ChainPoint::Outside, ChainPoint::Stmt))
                .collect();
            let got = r.du_ud.ud(*stmt, *loc).expect("every read has a chain");
            if !got.is_empty() {
                nonempty += 1;
            }
            if acyclic {
                assert_eq!(got, expected.as_slice(), "case {case} {stmt:?} {loc:?}");
            } else {
                assert!(
                    expected.iter().all(|p| got.contains(p)),
                    "case {case} {stmt:?} {loc:?}"
                );
            }
        }
    }
    assert!(nonempty > 300, "{nonempty}");
}

/// Without recursion and aliasing, ud chains in the top unit, where a call
/// stands for every definition inside it, equal those of the fully inlined
/// program mapped back (calls may-define what callees may modify and kill
/// what they modify on every path).
#[test]
fn call_chains_agree_with_inlining() {
    let mut compared = 0;
    for case in 0..300u64 {
        let mut rng = Rng(0x6c8e_9cf5_7043_1a2b ^ (case + 5).wrapping_mul(0x9e37_79b9));
        let (prog, seeds) = random_call_tree(&mut rng);
        let r = analyze(&prog, &seeds);
        let (inlined, origin, at_top) = inline_all_with_top(&prog);
        let ri = analyze(
            &inlined,
            &Seeds {
                top: UnitId(0),
                ..seeds.clone()
            },
        );
        let top_ids: std::collections::HashSet<StmtId> = prog.units[0]
            .blocks
            .iter()
            .flat_map(|b| &b.stmts)
            .map(|s| s.id())
            .collect();
        for stmt in inlined.units[0].blocks.iter().flat_map(|b| &b.stmts) {
            let original = origin[&stmt.id()];
            if !top_ids.contains(&original) || matches!(stmt, Stmt::Call { .. }) {
                continue;
            }
            let uses: Vec<LocationId> = match stmt {
                Stmt::Assign { uses, .. } => uses.iter().map(|u| u.loc).collect(),
                Stmt::Opaque { uses, .. } => uses.clone(),
                Stmt::Call { .. } => Vec::new(),
            };
            for l in uses {
                let mut mapped: Vec<ChainPoint> = ri
                    .du_ud
                    .ud(stmt.id(), l)
                    .unwrap_or(&[])
                    .iter()
                    .map(|p| match p {
                        ChainPoint::Outside => ChainPoint::Outside,
                        ChainPoint::Stmt(d) => ChainPoint::Stmt(at_top[d]),
                    })
                    .collect();
                mapped.sort();
                mapped.dedup();
                let got = r.du_ud.ud(original, l).unwrap_or(&[]);
                assert_eq!(got, mapped.as_slice(), "case {case} {original:?} {l:?}");
                compared += 1;
            }
        }
    }
    assert!(compared > 300, "{compared}");
}

/// Diff-liveness and TBR on single units against the paper's equations
/// applied path by path (with the analysis' own `use(I')`): equal on
/// acyclic graphs, contained on cyclic ones.
#[test]
fn diff_liveness_and_tbr_equal_their_path_definitions() {
    let (mut recorded_seen, mut present_seen) = (0, 0);
    for case in 0..400u64 {
        let mut rng = Rng(0x3b9a_ca07_11d5_e2f3 ^ (case + 13).wrapping_mul(0x1000_0193));
        let acyclic = case % 2 == 0;
        let (prog, seeds) = random_single_unit(&mut rng, acyclic);
        let r = analyze(&prog, &seeds);
        let unit = &prog.units[0];
        let depth = if acyclic {
            unit.blocks.len()
        } else {
            2 * unit.blocks.len() + 2
        };
        let defs_of = |stmt: &Stmt| -> Vec<Def> {
            match stmt {
                Stmt::Assign { def, .. } => vec![*def],
                Stmt::Opaque { defs, .. } => defs.clone(),
                Stmt::Call { .. } => Vec::new(),
            }
        };
        let reads_of = |stmt: &Stmt| -> Vec<LocationId> {
            match stmt {
                Stmt::Assign { uses, .. } => uses.iter().map(|u| u.loc).collect(),
                Stmt::Opaque { uses, .. } => uses.clone(),
                Stmt::Call { .. } => Vec::new(),
            }
        };
        // Diff-live⁺ per statement, joined over backward paths from ∅.
        let live_step = |stmt: &Stmt, live: &mut BitSet| {
            let defs = defs_of(stmt);
            if defs.iter().any(|d| live.contains(d.loc.index())) {
                for d in defs.iter().filter(|d| d.kills) {
                    live.remove(d.loc.index());
                }
                for l in reads_of(stmt) {
                    live.insert(l.index());
                }
            }
            for l in r.tbr.derivative_reads(stmt.id()) {
                live.insert(l.index());
            }
        };
        let preds: Vec<Vec<usize>> = unit
            .predecessors()
            .into_iter()
            .map(|ps| ps.into_iter().map(|p| p.index()).collect())
            .collect();
        let mut live_after: std::collections::HashMap<StmtId, BitSet> = Default::default();
        backward_paths(
            &prog,
            &preds,
            unit.exit.index(),
            BitSet::default(),
            depth,
            &mut |s, l| {
                live_after.entry(s.id()).or_default().union_with(l);
            },
            &live_step,
        );
        let present = |stmt: &Stmt| {
            r.activity.is_active_stmt(stmt.id())
                || live_after
                    .get(&stmt.id())
                    .is_some_and(|l| defs_of(stmt).iter().any(|d| l.contains(d.loc.index())))
        };
        for stmt in unit.blocks.iter().flat_map(|b| &b.stmts) {
            let (mine, theirs) = (present(stmt), r.tbr.is_diff_present(stmt.id()));
            present_seen += theirs as usize;
            if acyclic {
                assert_eq!(mine, theirs, "case {case} {:?} present", stmt.id());
            } else {
                assert!(!mine || theirs, "case {case} {:?} present", stmt.id());
            }
        }
        // TBR⁻ per statement, joined over forward paths from ∅, using the
        // analysis' own presence (checked above).
        let tbr_step = |stmt: &Stmt, tbr: &mut BitSet| {
            for l in r.tbr.derivative_reads(stmt.id()) {
                tbr.insert(l.index());
            }
            if r.tbr.is_diff_present(stmt.id()) {
                for d in defs_of(stmt).iter().filter(|d| d.kills) {
                    tbr.remove(d.loc.index());
                }
            }
        };
        let mut tbr_before: std::collections::HashMap<StmtId, BitSet> = Default::default();
        // forward_paths reports the set after each statement; shift by one
        // to get the set before the next.
        fn forward_before(
            prog: &Program,
            block: usize,
            set: BitSet,
            depth: usize,
            visit: &mut impl FnMut(&Stmt, &BitSet),
            step: &impl Fn(&Stmt, &mut BitSet),
        ) {
            let unit = &prog.units[0];
            let mut s = set;
            for stmt in &unit.blocks[block].stmts {
                visit(stmt, &s);
                step(stmt, &mut s);
            }
            if depth == 0 {
                return;
            }
            for next in &unit.successors[block] {
                forward_before(prog, next.index(), s.clone(), depth - 1, visit, step);
            }
        }
        forward_before(
            &prog,
            unit.entry.index(),
            BitSet::default(),
            depth,
            &mut |s, t| {
                tbr_before.entry(s.id()).or_default().union_with(t);
            },
            &tbr_step,
        );
        for stmt in unit.blocks.iter().flat_map(|b| &b.stmts) {
            let mut needed = tbr_before.get(&stmt.id()).cloned().unwrap_or_default();
            for l in r.tbr.derivative_reads(stmt.id()) {
                needed.insert(l.index());
            }
            let mut expected: Vec<LocationId> = if r.tbr.is_diff_present(stmt.id()) {
                defs_of(stmt)
                    .iter()
                    .map(|d| d.loc)
                    .filter(|l| needed.contains(l.index()))
                    .collect()
            } else {
                Vec::new()
            };
            expected.sort();
            expected.dedup();
            let got = r.tbr.recorded(stmt.id());
            recorded_seen += !got.is_empty() as usize;
            if acyclic {
                assert_eq!(
                    got,
                    expected.as_slice(),
                    "case {case} {:?} recorded",
                    stmt.id()
                );
            } else {
                assert!(
                    expected.iter().all(|l| got.contains(l)),
                    "case {case} {:?}",
                    stmt.id()
                );
            }
        }
    }
    assert!(
        recorded_seen > 20 && present_seen > 100,
        "{recorded_seen} {present_seen}"
    );
}
