//! du/ud and do chains, alias sets, call graph and side effects on small
//! programs, checked against hand-computed answers.

use fortran2xaif::analysis::builder::{ProgramBuilder, Ty};
use fortran2xaif::analysis::ir::{LocationId, Seeds, StmtId, Use};
use fortran2xaif::analysis::{analyze, ChainPoint};

fn d(l: LocationId) -> Use {
    Use::diff(l)
}

fn chain(points: &[Option<StmtId>]) -> Vec<ChainPoint> {
    let mut v: Vec<ChainPoint> = points
        .iter()
        .map(|p| p.map_or(ChainPoint::Outside, ChainPoint::Stmt))
        .collect();
    v.sort();
    v
}

/// head(x, y, i):
///   b0: s1 t = x; s2 cond(i)
///   b1: s3 t = t * 2          b2: s4 y = t
///   b3: s5 y = t + y
#[test]
fn chains_on_a_branch() {
    let mut p = ProgramBuilder::new();
    let head = p.unit("head");
    let x = p.dummy(head, "x", Ty::Real);
    let y = p.dummy(head, "y", Ty::Real);
    let i = p.dummy(head, "i", Ty::Int);
    let t = p.local(head, "t", Ty::Real);
    let [b0, b1, b2, b3] = [p.block(head), p.block(head), p.block(head), p.block(head)];
    p.edge(head, b0, b1);
    p.edge(head, b0, b2);
    p.edge(head, b1, b3);
    p.edge(head, b2, b3);
    let s1 = p.assign(head, b0, t, &[d(x)]);
    let s2 = p.opaque(head, b0, &[], &[i]);
    let s3 = p.assign(head, b1, t, &[d(t)]);
    let s4 = p.assign(head, b2, y, &[d(t)]);
    let s5 = p.assign(head, b3, y, &[d(t), d(y)]);
    let prog = p.finish();
    let r = analyze(
        &prog,
        &Seeds {
            top: head,
            independents: vec![x],
            dependents: vec![y],
        },
    );
    let du = &r.du_ud;
    let out = None;
    assert_eq!(du.ud(s1, x).unwrap(), chain(&[out]));
    assert_eq!(du.ud(s2, i).unwrap(), chain(&[out]));
    assert_eq!(du.ud(s3, t).unwrap(), chain(&[Some(s1)]));
    assert_eq!(du.ud(s4, t).unwrap(), chain(&[Some(s1)]));
    assert_eq!(du.ud(s5, t).unwrap(), chain(&[Some(s1), Some(s3)]));
    assert_eq!(du.ud(s5, y).unwrap(), chain(&[out, Some(s4)]));
    assert_eq!(
        du.du(s1, t).unwrap(),
        chain(&[Some(s3), Some(s4), Some(s5)])
    );
    assert_eq!(du.du(s3, t).unwrap(), chain(&[Some(s5)]));
    assert_eq!(du.du(s4, y).unwrap(), chain(&[Some(s5)]));
    assert_eq!(du.du(s5, y).unwrap(), chain(&[out]));
    assert_eq!(du.overwritten_by(s1, t).unwrap(), chain(&[Some(s3)]));
    assert_eq!(du.overwritten_by(s3, t).unwrap(), chain(&[]));
    assert_eq!(du.overwritten_by(s4, y).unwrap(), chain(&[Some(s5)]));
    assert_eq!(du.overwritten_by(s5, y).unwrap(), chain(&[out]));
    // Equal chains share a key; no key is 0; key 0 is empty.
    assert_eq!(du.use_key(s3, t), du.use_key(s4, t));
    assert_ne!(du.use_key(s3, t), 0);
    assert_ne!(du.use_key(s5, t), du.use_key(s3, t));
    assert_eq!(du.use_key(s1, y), 0, "s1 does not read y");
    let map = du.duud_set_map(|s| format!("s{}", s.0));
    assert_eq!(map.sets[0].key, 0);
    assert!(map.sets[0].statement_ids.is_empty());
    let k = du.use_key(s5, y) as usize;
    let mut ids = map.sets[k].statement_ids.clone();
    ids.sort();
    assert_eq!(ids, vec![String::new(), format!("s{}", s4.0)]);
    let do_map = du.do_set_map(|s| format!("s{}", s.0));
    assert_eq!(do_map.sets[0].key, 0);
    assert!(do_map.sets[0].statement_ids.is_empty());
    assert_eq!(
        do_map.sets[du.do_key(s1, t) as usize].statement_ids,
        vec![format!("s{}", s3.0)]
    );
}

/// A partial definition (array element) does not kill; a loop makes a
/// definition reach itself.
#[test]
fn chains_partial_defs_and_loops() {
    let mut p = ProgramBuilder::new();
    let head = p.unit("head");
    let a = p.local(head, "a", Ty::RealArray);
    let s = p.local(head, "s", Ty::Real);
    let [b0, body, after] = [p.block(head), p.block(head), p.block(head)];
    p.edge(head, b0, body);
    p.edge(head, body, body);
    p.edge(head, body, after);
    let s1 = p.assign(head, b0, a, &[]);
    let s2 = p.assign(head, b0, s, &[]);
    let s3 = p.assign_partial(head, body, a, &[d(s)]);
    let s4 = p.assign(head, body, s, &[d(s), d(a)]);
    let s5 = p.assign(head, after, s, &[d(a)]);
    let prog = p.finish();
    let r = analyze(
        &prog,
        &Seeds {
            top: head,
            independents: vec![],
            dependents: vec![],
        },
    );
    let du = &r.du_ud;
    assert_eq!(du.ud(s3, s).unwrap(), chain(&[Some(s2), Some(s4)]));
    assert_eq!(du.ud(s4, a).unwrap(), chain(&[Some(s1), Some(s3)]));
    assert_eq!(du.ud(s5, a).unwrap(), chain(&[Some(s1), Some(s3)]));
    assert_eq!(du.ud(s4, s).unwrap(), chain(&[Some(s2), Some(s4)]));
    assert_eq!(du.overwritten_by(s3, a).unwrap(), chain(&[Some(s3)]));
    assert_eq!(
        du.overwritten_by(s4, s).unwrap(),
        chain(&[Some(s4), Some(s5)])
    );
    // Locals are dead at exit: no "outside" use.
    assert_eq!(du.du(s5, s).unwrap(), chain(&[]));
}

/// Calls define what the callee may modify and read what it may read;
/// dummies bound to the same actual may alias.
#[test]
fn chains_through_calls_and_aliases() {
    let mut p = ProgramBuilder::new();
    let head = p.unit("head");
    let f = p.unit("f");
    let x = p.dummy(head, "x", Ty::Real);
    let y = p.dummy(head, "y", Ty::Real);
    let fa = p.dummy(f, "a", Ty::Real);
    let fb = p.dummy(f, "b", Ty::Real);
    let fr = p.local(f, "r", Ty::Real);
    let fbk = p.block(f);
    let f1 = p.assign(f, fbk, fa, &[]);
    let f2 = p.assign(f, fbk, fr, &[d(fb)]);
    let f3 = p.assign(f, fbk, fb, &[d(fr)]);
    let hb = p.block(head);
    let s1 = p.assign(head, hb, y, &[d(x)]);
    let s2 = p.call(head, hb, f, &[Some(x), Some(x)]);
    let s3 = p.assign(head, hb, y, &[d(x), d(y)]);
    let prog = p.finish();
    let r = analyze(
        &prog,
        &Seeds {
            top: head,
            independents: vec![x],
            dependents: vec![y],
        },
    );
    let du = &r.du_ud;
    // f's a and b may be the same storage: a = ... may define b.
    assert!(r.alias.may_alias(fa, fb));
    assert_eq!(du.ud(f2, fb).unwrap(), chain(&[None, Some(f1)]));
    // b = ... (f3) may overwrite a as well.
    assert_eq!(du.overwritten_by(f1, fa).unwrap(), chain(&[None, Some(f3)]));
    // In head the call reads and defines x, and does not touch y.
    assert_eq!(du.ud(s2, x).unwrap(), chain(&[None]));
    // f certainly overwrites a (f1), so the call kills x.
    assert!(r.side_effects.units[f.index()]
        .must_mod
        .contains(fa.index()));
    assert_eq!(du.ud(s3, x).unwrap(), chain(&[Some(s2)]));
    assert_eq!(du.ud(s3, y).unwrap(), chain(&[Some(s1)]));
    assert_eq!(du.du(s2, x).unwrap(), chain(&[None, Some(s3)]));
    assert!(du.ud(s2, y).is_none());
}

/// Virtual addresses are location index + 1; a dummy may also refer to the
/// storage of every actual bound to it.
#[test]
fn alias_sets() {
    let mut p = ProgramBuilder::new();
    let head = p.unit("head");
    let f = p.unit("f");
    let x = p.dummy(head, "x", Ty::Real); // address 1
    let y = p.dummy(head, "y", Ty::RealArray); // address 2
    let fa = p.dummy(f, "a", Ty::Real); // address 3
    let fb = p.dummy(f, "b", Ty::Real); // address 4
    let g = p.global("g", Ty::Real); // address 5
    let hb = p.block(head);
    p.call(head, hb, f, &[Some(x), Some(x)]);
    p.call(head, hb, f, &[Some(g), Some(y)]);
    p.block(f);
    let prog = p.finish();
    let r = analyze(
        &prog,
        &Seeds {
            top: head,
            independents: vec![],
            dependents: vec![],
        },
    );
    let al = &r.alias;
    assert!(al.may_alias(fa, fb) && al.may_alias(fa, g) && al.may_alias(fb, y));
    assert!(!al.may_alias(x, y) && !al.may_alias(x, g));
    assert_eq!(al.partners_of(fa), &[fb, g]);
    assert_eq!(al.partners_of(g), &[fa]);
    assert!(al.partners_of(x).is_empty());
    let keys: Vec<u64> = [x, y, fa, fb, g].iter().map(|l| al.key_of(*l)).collect();
    assert_eq!(keys, vec![1, 2, 3, 4, 5]);
    let map = al.alias_set_map();
    assert_eq!(map.sets.len(), 6);
    let ranges = |k: usize| -> Vec<(u64, u64, bool)> {
        map.sets[k]
            .ranges
            .iter()
            .map(|r| (r.from_virtual_address, r.to_virtual_address, r.partial))
            .collect()
    };
    assert_eq!(ranges(0), vec![(1, 5, true)]);
    assert_eq!(ranges(2), vec![(2, 2, true)]);
    assert_eq!(ranges(3), vec![(1, 1, false), (3, 3, false), (5, 5, false)]);
    // b may be x (scalar) or y (array: partial), split where partial changes.
    assert_eq!(ranges(4), vec![(1, 1, false), (2, 2, true), (4, 4, false)]);
}

/// Recursion is found and reported; side effects reach a fixed point
/// around the cycle.
#[test]
fn call_graph_and_recursion() {
    let mut p = ProgramBuilder::new();
    let h = p.unit("h");
    let f = p.unit("f");
    let g = p.unit("g");
    let r_ = p.unit("r");
    let leaf = p.unit("leaf");
    let hx = p.dummy(h, "x", Ty::Real);
    let fa = p.dummy(f, "a", Ty::Real);
    let gb = p.dummy(g, "b", Ty::Real);
    let glob = p.global("glob", Ty::Real);
    let hb = p.block(h);
    p.call(h, hb, f, &[Some(hx)]);
    p.call(h, hb, r_, &[]);
    let fb = p.block(f);
    p.call(f, fb, g, &[Some(fa)]);
    p.call(f, fb, leaf, &[]);
    let gbk = p.block(g);
    p.assign(g, gbk, gb, &[]);
    p.call(g, gbk, f, &[Some(gb)]);
    let rb = p.block(r_);
    p.call(r_, rb, r_, &[]);
    let lb = p.block(leaf);
    p.assign(leaf, lb, glob, &[]);
    let prog = p.finish();
    let res = analyze(
        &prog,
        &Seeds {
            top: h,
            independents: vec![],
            dependents: vec![],
        },
    );
    let cg = &res.call_graph;
    assert_eq!(cg.callees[h.index()], vec![f, r_]);
    assert_eq!(cg.callers[f.index()], vec![h, g]);
    let mut groups = cg.recursive.clone();
    groups.sort();
    assert_eq!(groups, vec![vec![f, g], vec![r_]]);
    assert!(
        cg.is_recursive(f) && cg.is_recursive(r_) && !cg.is_recursive(h) && !cg.is_recursive(leaf)
    );
    let pos = |u| cg.bottom_up.iter().position(|x| *x == u).unwrap();
    assert!(pos(leaf) < pos(f) && pos(f) < pos(h) && pos(g) < pos(h) && pos(r_) < pos(h));
    let se = &res.side_effects.units;
    assert!(se[f.index()].mod_.contains(fa.index()));
    assert!(!se[f.index()].mod_local.contains(fa.index()));
    assert!(se[f.index()].mod_.contains(glob.index()));
    assert!(se[g.index()].mod_local.contains(gb.index()));
    assert!(se[h.index()].mod_.contains(hx.index()) && se[h.index()].mod_.contains(glob.index()));
    assert!(se[h.index()].read.is_empty());
}

/// A callee overwriting its dummy on one branch only may-defines it; on
/// both branches it kills it.
#[test]
fn calls_kill_what_callees_must_modify() {
    let mut p = ProgramBuilder::new();
    let head = p.unit("head");
    let maybe = p.unit("maybe");
    let surely = p.unit("surely");
    for &u in &[maybe, surely] {
        let a = p.dummy(u, "a", Ty::Real);
        let k = p.dummy(u, "k", Ty::Int);
        let [c, t, e, j] = [p.block(u), p.block(u), p.block(u), p.block(u)];
        p.edge(u, c, t);
        p.edge(u, c, e);
        p.edge(u, t, j);
        p.edge(u, e, j);
        p.opaque(u, c, &[], &[k]);
        p.assign(u, t, a, &[]);
        if u == surely {
            p.assign(u, e, a, &[]);
        }
    }
    let x = p.dummy(head, "x", Ty::Real);
    let k = p.dummy(head, "k", Ty::Int);
    let y = p.dummy(head, "y", Ty::Real);
    let hb = p.block(head);
    let s1 = p.assign(head, hb, x, &[]);
    let s2 = p.call(head, hb, maybe, &[Some(x), Some(k)]);
    let s3 = p.assign(head, hb, y, &[d(x)]);
    let s4 = p.call(head, hb, surely, &[Some(x), Some(k)]);
    let s5 = p.assign(head, hb, y, &[d(x)]);
    let prog = p.finish();
    let r = analyze(
        &prog,
        &Seeds {
            top: head,
            independents: vec![],
            dependents: vec![],
        },
    );
    let ma = prog.units[maybe.index()].dummies[0];
    let sa = prog.units[surely.index()].dummies[0];
    assert!(!r.side_effects.units[maybe.index()]
        .must_mod
        .contains(ma.index()));
    assert!(r.side_effects.units[surely.index()]
        .must_mod
        .contains(sa.index()));
    assert_eq!(r.du_ud.ud(s3, x).unwrap(), chain(&[Some(s1), Some(s2)]));
    assert_eq!(r.du_ud.ud(s5, x).unwrap(), chain(&[Some(s4)]));
    assert_eq!(
        r.du_ud.overwritten_by(s1, x).unwrap(),
        chain(&[Some(s2), Some(s4)])
    );
}
