//! Activity analysis on small hand-built programs with hand-computed answers.

use fortran2xaif::analysis::analyze;
use fortran2xaif::analysis::builder::{ProgramBuilder, Ty};
use fortran2xaif::analysis::ir::{Def, LocationId, Seeds, Use};

fn d(l: LocationId) -> Use {
    Use::diff(l)
}

fn idx(l: LocationId) -> Use {
    Use::passive(l)
}

/// head(x, y): t = 2*x; c = 3; y = t + c; z = c * t   (z never used)
#[test]
fn straight_line() {
    let mut p = ProgramBuilder::new();
    let head = p.unit("head");
    let x = p.dummy(head, "x", Ty::Real);
    let y = p.dummy(head, "y", Ty::Real);
    let t = p.local(head, "t", Ty::Real);
    let c = p.local(head, "c", Ty::Real);
    let z = p.local(head, "z", Ty::Real);
    let b = p.block(head);
    let s_t = p.assign(head, b, t, &[d(x)]);
    let s_c = p.assign(head, b, c, &[]);
    let s_y = p.assign(head, b, y, &[d(t), d(c)]);
    let s_z = p.assign(head, b, z, &[d(c), d(t)]);
    let prog = p.finish();
    let r = analyze(
        &prog,
        &Seeds {
            top: head,
            independents: vec![x],
            dependents: vec![y],
        },
    );
    assert!(r.errors.is_empty());
    let a = &r.activity;
    for (l, want) in [(x, true), (y, true), (t, true), (c, false), (z, false)] {
        assert_eq!(a.flow_active.contains(l.index()), want, "flow-active {l:?}");
        assert_eq!(a.is_active_location(l), want, "declared {l:?}");
    }
    // z is varied but useless; c is useful but not varied.
    assert!(a.varied.contains(z.index()) && !a.useful.contains(z.index()));
    assert!(a.useful.contains(c.index()) && !a.varied.contains(c.index()));
    assert!(a.is_active_stmt(s_t) && a.is_active_stmt(s_y));
    assert!(!a.is_active_stmt(s_c) && !a.is_active_stmt(s_z));
    assert!(a.is_active_use(s_y, t) && !a.is_active_use(s_y, c));
    assert!(a.is_active_unit(head));
}

/// if (p) then y = x*w else y = 1.0 endif, then after the join y is used.
#[test]
fn branches_join_and_zeroing() {
    let mut p = ProgramBuilder::new();
    let head = p.unit("head");
    let x = p.dummy(head, "x", Ty::Real);
    let y = p.dummy(head, "y", Ty::Real);
    let flag = p.dummy(head, "flag", Ty::Int);
    let w = p.local(head, "w", Ty::Real);
    let [b0, bt, bf, bj] = [p.block(head), p.block(head), p.block(head), p.block(head)];
    p.edge(head, b0, bt);
    p.edge(head, b0, bf);
    p.edge(head, bt, bj);
    p.edge(head, bf, bj);
    let s_w = p.assign(head, b0, w, &[]);
    let s_cond = p.opaque(head, b0, &[], &[flag]);
    let s_then = p.assign(head, bt, y, &[d(x), d(w)]);
    let s_else = p.assign(head, bf, y, &[]);
    let prog = p.finish();
    let r = analyze(
        &prog,
        &Seeds {
            top: head,
            independents: vec![x],
            dependents: vec![y],
        },
    );
    let a = &r.activity;
    assert!(a.is_active_location(y) && a.is_active_location(x));
    assert!(!a.is_active_location(w) && !a.is_active_location(flag));
    assert!(a.stmts[&s_then].active);
    // The else branch defines y passively, yet y is active after the join:
    // not active in the paper's sense, but its derivative must be zeroed.
    assert!(!a.stmts[&s_else].active);
    assert!(a.stmts[&s_else].differentiated);
    assert!(a.stmts[&s_else].active_uses.is_empty());
    assert!(!a.is_active_stmt(s_w) && !a.is_active_stmt(s_cond));
    let _ = bj;
}

/// Loop-carried dependence: a only becomes varied through the back edge.
/// b0: a = 0; b = 0 | loop: a = b; b = x; cond i | exit: y = a
#[test]
fn loop_carried_dependence() {
    let mut p = ProgramBuilder::new();
    let head = p.unit("head");
    let x = p.dummy(head, "x", Ty::Real);
    let y = p.dummy(head, "y", Ty::Real);
    let a = p.local(head, "a", Ty::Real);
    let bb = p.local(head, "b", Ty::Real);
    let i = p.local(head, "i", Ty::Int);
    let [b0, body, after] = [p.block(head), p.block(head), p.block(head)];
    p.edge(head, b0, body);
    p.edge(head, body, body);
    p.edge(head, body, after);
    p.assign(head, b0, a, &[]);
    p.assign(head, b0, bb, &[]);
    p.assign(head, b0, i, &[]);
    let s_a = p.assign(head, body, a, &[d(bb)]);
    let s_b = p.assign(head, body, bb, &[d(x)]);
    p.assign(head, body, i, &[idx(i)]);
    let s_y = p.assign(head, after, y, &[d(a)]);
    let prog = p.finish();
    let r = analyze(
        &prog,
        &Seeds {
            top: head,
            independents: vec![x],
            dependents: vec![y],
        },
    );
    let act = &r.activity;
    assert!(act.is_active_location(a) && act.is_active_location(bb));
    assert!(act.stmts[&s_a].active && act.stmts[&s_b].active && act.stmts[&s_y].active);
    assert!(act.is_active_use(s_a, bb));
    assert!(!act.is_active_location(i));

    // Without the back edge a is never varied.
    let mut p = ProgramBuilder::new();
    let head = p.unit("head");
    let x = p.dummy(head, "x", Ty::Real);
    let y = p.dummy(head, "y", Ty::Real);
    let a = p.local(head, "a", Ty::Real);
    let bb = p.local(head, "b", Ty::Real);
    let [b0, body, after] = [p.block(head), p.block(head), p.block(head)];
    p.chain(head, &[b0, body, after]);
    p.assign(head, b0, a, &[]);
    p.assign(head, b0, bb, &[]);
    p.assign(head, body, a, &[d(bb)]);
    p.assign(head, body, bb, &[d(x)]);
    p.assign(head, after, y, &[d(a)]);
    let prog = p.finish();
    let r = analyze(
        &prog,
        &Seeds {
            top: head,
            independents: vec![x],
            dependents: vec![y],
        },
    );
    assert!(!r.activity.is_active_location(a));
    assert!(!r.activity.is_active_location(bb));
    assert!(!r.activity.flow_active.contains(y.index()));
}

/// y = x(i) * w; k = int(x(1)); v = k; w2 = v * x(2) — integer index and
/// int() uses carry no derivative.
#[test]
fn index_and_passive_uses() {
    let mut p = ProgramBuilder::new();
    let head = p.unit("head");
    let x = p.dummy(head, "x", Ty::RealArray);
    let y = p.dummy(head, "y", Ty::Real);
    let i = p.dummy(head, "i", Ty::Int);
    let k = p.local(head, "k", Ty::Int);
    let v = p.local(head, "v", Ty::Real);
    let b = p.block(head);
    let s1 = p.assign(head, b, y, &[d(x), idx(i)]);
    p.assign(head, b, k, &[idx(x)]);
    let s3 = p.assign(head, b, v, &[idx(k)]);
    // A differentiable-looking use of an integer still carries nothing.
    let s4 = p.assign(head, b, y, &[d(y), d(v), d(k)]);
    let prog = p.finish();
    let r = analyze(
        &prog,
        &Seeds {
            top: head,
            independents: vec![x],
            dependents: vec![y],
        },
    );
    let a = &r.activity;
    assert!(a.is_active_location(x) && a.is_active_location(y));
    assert!(!a.is_active_location(i) && !a.is_active_location(k) && !a.is_active_location(v));
    assert!(a.is_active_use(s1, x) && !a.is_active_use(s1, i));
    assert!(!a.is_active_stmt(s3));
    assert!(a.is_active_use(s4, y) && !a.is_active_use(s4, v) && !a.is_active_use(s4, k));
}

/// sub f(a, b): b = a * a.   head(x, y): call f(x, t); y = sin(t)
#[test]
fn activity_through_arguments() {
    let mut p = ProgramBuilder::new();
    let head = p.unit("head");
    let f = p.unit("f");
    let fa = p.dummy(f, "a", Ty::Real);
    let fb = p.dummy(f, "b", Ty::Real);
    let fbk = p.block(f);
    let s_f = p.assign(f, fbk, fb, &[d(fa)]);
    let x = p.dummy(head, "x", Ty::Real);
    let y = p.dummy(head, "y", Ty::Real);
    let t = p.local(head, "t", Ty::Real);
    let hb = p.block(head);
    let s_call = p.call(head, hb, f, &[Some(x), Some(t)]);
    let s_y = p.assign(head, hb, y, &[d(t)]);
    let prog = p.finish();
    let r = analyze(
        &prog,
        &Seeds {
            top: head,
            independents: vec![x],
            dependents: vec![y],
        },
    );
    let a = &r.activity;
    for l in [x, y, t, fa, fb] {
        assert!(a.is_active_location(l), "{l:?}");
        assert!(a.flow_active.contains(l.index()), "{l:?}");
    }
    assert!(a.stmts[&s_call].active && a.is_active_stmt(s_call));
    assert!(a.is_active_use(s_call, x) && a.is_active_def(s_call, t));
    assert!(a.is_active_stmt(s_f) && a.is_active_stmt(s_y));
    assert!(a.is_active_unit(f));
    assert!(a.entry_varied[f.index()].contains(fa.index()));
    assert!(!a.entry_varied[f.index()].contains(fb.index()));
    assert!(a.exit_useful[f.index()].contains(fb.index()));
}

/// Globals gx, gy: sub g(): gy = gx * gx. head(x, y): gx = x; call g(); y = gy
#[test]
fn activity_through_globals() {
    let mut p = ProgramBuilder::new();
    let gx = p.global("gx", Ty::Real);
    let gy = p.global("gy", Ty::Real);
    let gz = p.global("gz", Ty::Real);
    let head = p.unit("head");
    let g = p.unit("g");
    let gb = p.block(g);
    let s_g = p.assign(g, gb, gy, &[d(gx)]);
    let s_gz = p.assign(g, gb, gz, &[d(gx)]);
    let x = p.dummy(head, "x", Ty::Real);
    let y = p.dummy(head, "y", Ty::Real);
    let hb = p.block(head);
    p.assign(head, hb, gx, &[d(x)]);
    let s_call = p.call(head, hb, g, &[]);
    p.assign(head, hb, y, &[d(gy)]);
    let prog = p.finish();
    let r = analyze(
        &prog,
        &Seeds {
            top: head,
            independents: vec![x],
            dependents: vec![y],
        },
    );
    let a = &r.activity;
    assert!(a.is_active_location(gx) && a.is_active_location(gy));
    // gz is varied but never useful.
    assert!(!a.is_active_location(gz));
    assert!(a.stmts[&s_call].active && a.is_active_stmt(s_call));
    assert!(a.is_active_stmt(s_g) && !a.is_active_stmt(s_gz));
    assert!(a.is_active_unit(g));
    let se = &r.side_effects.units[g.index()];
    assert!(se.mod_.contains(gy.index()) && se.mod_.contains(gz.index()));
    assert!(se.read.contains(gx.index()) && !se.read.contains(gy.index()));
    let hse = &r.side_effects.units[head.index()];
    assert!(hse.mod_.contains(gy.index()) && !hse.mod_local.contains(gy.index()));
}

/// sub sq(a, b): b = a*a. head(x, y): c = 2; call sq(x, t); call sq(c, q);
/// y = t * q. The second call is a passive context: q is useful but not
/// varied (the callee's summary is applied per call site), so the product
/// reads only t's derivative. The dummies are active, so c and q are
/// declared active to match their types.
#[test]
fn routine_called_in_active_and_passive_contexts() {
    let mut p = ProgramBuilder::new();
    let head = p.unit("head");
    let sq = p.unit("sq");
    let a_ = p.dummy(sq, "a", Ty::Real);
    let b_ = p.dummy(sq, "b", Ty::Real);
    let sb = p.block(sq);
    p.assign(sq, sb, b_, &[d(a_)]);
    let x = p.dummy(head, "x", Ty::Real);
    let y = p.dummy(head, "y", Ty::Real);
    let t = p.local(head, "t", Ty::Real);
    let c = p.local(head, "c", Ty::Real);
    let q = p.local(head, "q", Ty::Real);
    let hb = p.block(head);
    p.assign(head, hb, c, &[]);
    let call1 = p.call(head, hb, sq, &[Some(x), Some(t)]);
    let call2 = p.call(head, hb, sq, &[Some(c), Some(q)]);
    let s_y = p.assign(head, hb, y, &[d(t), d(q)]);
    let prog = p.finish();
    let r = analyze(
        &prog,
        &Seeds {
            top: head,
            independents: vec![x],
            dependents: vec![y],
        },
    );
    let act = &r.activity;
    assert!(act.flow_active.contains(t.index()));
    assert!(!act.flow_active.contains(q.index()));
    assert!(!act.flow_active.contains(c.index()));
    assert!(!act.varied.contains(q.index()));
    assert!(act.stmts[&call1].active);
    assert!(!act.stmts[&call2].active);
    assert!(act.is_active_use(s_y, t) && !act.is_active_use(s_y, q));
    // Type agreement at the passive call.
    assert!(act.is_active_location(c) && act.is_active_location(q));
    assert!(act.is_active_stmt(call2));
    assert!(act.conversions.is_empty());
}

/// read(*,*) x overwrites x without a derivative: y = x * w is then passive.
#[test]
fn opaque_read_kills_variedness() {
    let mut p = ProgramBuilder::new();
    let head = p.unit("head");
    let x = p.dummy(head, "x", Ty::Real);
    let y = p.dummy(head, "y", Ty::Real);
    let w = p.local(head, "w", Ty::Real);
    let u = p.local(head, "u", Ty::Real);
    let b = p.block(head);
    let s_u = p.assign(head, b, u, &[d(x)]);
    let s_read = p.opaque(head, b, &[Def::whole(x)], &[]);
    let s_w = p.assign(head, b, w, &[]);
    let s_y = p.assign(head, b, y, &[d(x), d(w), d(u)]);
    let prog = p.finish();
    let r = analyze(
        &prog,
        &Seeds {
            top: head,
            independents: vec![x],
            dependents: vec![y],
        },
    );
    let a = &r.activity;
    assert!(a.is_active_stmt(s_u) && a.is_active_stmt(s_y));
    assert!(a.is_active_use(s_y, u));
    assert!(!a.is_active_use(s_y, x), "x is not varied after the read");
    assert!(!a.is_active_stmt(s_w));
    // x is active before the read (x → u → y), and declared as an independent.
    assert!(a.is_active_location(x));
    // The read sets a value whose derivative someone may read: zero it.
    assert!(a.stmts[&s_read].differentiated);

    // A partial opaque definition (read into x(i)) keeps variedness.
    let mut p = ProgramBuilder::new();
    let head = p.unit("head");
    let x = p.dummy(head, "x", Ty::RealArray);
    let y = p.dummy(head, "y", Ty::Real);
    let b = p.block(head);
    p.opaque(head, b, &[Def::partial(x)], &[]);
    let s_y = p.assign(head, b, y, &[d(x)]);
    let prog = p.finish();
    let r = analyze(
        &prog,
        &Seeds {
            top: head,
            independents: vec![x],
            dependents: vec![y],
        },
    );
    assert!(r.activity.is_active_use(s_y, x));
}

/// A dummy bound to an expression: the call needs a converted temporary.
#[test]
fn conversions_for_hoisted_actuals() {
    let mut p = ProgramBuilder::new();
    let head = p.unit("head");
    let f = p.unit("f");
    let fa = p.dummy(f, "a", Ty::Real);
    let fb = p.dummy(f, "b", Ty::Real);
    let fbk = p.block(f);
    p.assign(f, fbk, fb, &[d(fa)]);
    let x = p.dummy(head, "x", Ty::Real);
    let y = p.dummy(head, "y", Ty::Real);
    let hb = p.block(head);
    p.call(head, hb, f, &[Some(x), Some(y)]);
    let s2 = p.call(head, hb, f, &[None, Some(y)]);
    let prog = p.finish();
    let r = analyze(
        &prog,
        &Seeds {
            top: head,
            independents: vec![x],
            dependents: vec![y],
        },
    );
    assert_eq!(r.activity.conversions.len(), 1);
    assert_eq!(r.activity.conversions[0].stmt, s2);
    assert_eq!(r.activity.conversions[0].position, 0);
}

/// An external routine: every actual may depend on every actual.
#[test]
fn external_calls_are_conservative() {
    let mut p = ProgramBuilder::new();
    let head = p.unit("head");
    let x = p.dummy(head, "x", Ty::Real);
    let y = p.dummy(head, "y", Ty::Real);
    let n = p.local(head, "n", Ty::Int);
    let b = p.block(head);
    let s = p.call_external(head, b, "blas_copy", &[Some(n), Some(x), Some(y)]);
    let prog = p.finish();
    let r = analyze(
        &prog,
        &Seeds {
            top: head,
            independents: vec![x],
            dependents: vec![y],
        },
    );
    assert!(r.activity.stmts[&s].active);
    assert!(r.activity.is_active_location(x) && r.activity.is_active_location(y));
    assert!(!r.activity.is_active_location(n));
    assert_eq!(
        r.call_graph.externals[head.index()],
        vec!["blas_copy".to_string()]
    );
}

/// Invalid input gives errors and the conservative answer, not a panic.
#[test]
fn invalid_program_is_conservative() {
    let mut p = ProgramBuilder::new();
    let head = p.unit("head");
    let x = p.dummy(head, "x", Ty::Real);
    let b = p.block(head);
    p.assign(head, b, LocationId(99), &[d(x)]);
    let prog = p.finish();
    let r = analyze(
        &prog,
        &Seeds {
            top: head,
            independents: vec![x],
            dependents: vec![],
        },
    );
    assert!(!r.errors.is_empty());
    assert!(r.activity.conservative);
    assert!(r.activity.is_active_location(x));
}

/// A call overwrites what its callee certainly overwrites: after
/// call sq(c, t) the temporary t no longer carries x's variedness.
/// head(x, y, z): call sq(x, t); y = t; call sq(c, t); z = t
#[test]
fn calls_overwrite_reused_temporaries() {
    let mut p = ProgramBuilder::new();
    let head = p.unit("head");
    let sq = p.unit("sq");
    let a_ = p.dummy(sq, "a", Ty::Real);
    let b_ = p.dummy(sq, "b", Ty::Real);
    let sb = p.block(sq);
    p.assign(sq, sb, b_, &[d(a_)]);
    let x = p.dummy(head, "x", Ty::Real);
    let y = p.dummy(head, "y", Ty::Real);
    let z = p.dummy(head, "z", Ty::Real);
    let t = p.local(head, "t", Ty::Real);
    let c = p.local(head, "c", Ty::Real);
    let hb = p.block(head);
    p.assign(head, hb, c, &[]);
    p.call(head, hb, sq, &[Some(x), Some(t)]);
    let s_y = p.assign(head, hb, y, &[d(t)]);
    p.call(head, hb, sq, &[Some(c), Some(t)]);
    let s_z = p.assign(head, hb, z, &[d(t)]);
    let prog = p.finish();
    let r = analyze(
        &prog,
        &Seeds {
            top: head,
            independents: vec![x],
            dependents: vec![y, z],
        },
    );
    let a = &r.activity;
    assert!(a.stmts[&s_y].active);
    assert!(
        !a.stmts[&s_z].active,
        "t is not varied after the second call"
    );
    assert!(a.is_active_use(s_y, t) && !a.is_active_use(s_z, t));
    // Useful: t before the first call is dead (overwritten), so x is useful
    // only through the first call.
    assert!(a.useful.contains(x.index()));
}

/// A recursive routine: activity reaches a fixed point through the cycle.
/// sub r(a, b, n): if (n > 0) { call r(a, t, n); b = t * a } else { b = a }
#[test]
fn recursion_reaches_a_fixed_point() {
    let mut p = ProgramBuilder::new();
    let head = p.unit("head");
    let r_ = p.unit("r");
    let a_ = p.dummy(r_, "a", Ty::Real);
    let b_ = p.dummy(r_, "b", Ty::Real);
    let n_ = p.dummy(r_, "n", Ty::Int);
    let t_ = p.local(r_, "t", Ty::Real);
    let [c0, rec, base, join] = [p.block(r_), p.block(r_), p.block(r_), p.block(r_)];
    p.edge(r_, c0, rec);
    p.edge(r_, c0, base);
    p.edge(r_, rec, join);
    p.edge(r_, base, join);
    p.opaque(r_, c0, &[], &[n_]);
    let s_call = p.call(r_, rec, r_, &[Some(a_), Some(t_), Some(n_)]);
    let s_mul = p.assign(r_, rec, b_, &[d(t_), d(a_)]);
    let s_base = p.assign(r_, base, b_, &[d(a_)]);
    let x = p.dummy(head, "x", Ty::Real);
    let y = p.dummy(head, "y", Ty::Real);
    let n = p.local(head, "n", Ty::Int);
    let hb = p.block(head);
    p.call(head, hb, r_, &[Some(x), Some(y), Some(n)]);
    let prog = p.finish();
    let res = analyze(
        &prog,
        &Seeds {
            top: head,
            independents: vec![x],
            dependents: vec![y],
        },
    );
    let a = &res.activity;
    assert!(res.call_graph.is_recursive(r_));
    for l in [a_, b_, t_] {
        assert!(a.flow_active.contains(l.index()), "{l:?}");
    }
    assert!(!a.is_active_location(n_));
    assert!(a.stmts[&s_call].active && a.stmts[&s_mul].active && a.stmts[&s_base].active);
    assert!(a.is_active_use(s_mul, t_));
}

/// A call is active through the globals its callee touches, not through
/// active globals it never sees.
#[test]
fn calls_are_active_only_through_touched_globals() {
    let mut p = ProgramBuilder::new();
    let g = p.global("g", Ty::Real);
    let h = p.global("h", Ty::Real);
    let head = p.unit("head");
    let uses_h = p.unit("uses_h");
    let ignores = p.unit("ignores");
    let hb = p.block(uses_h);
    p.assign(uses_h, hb, h, &[d(h)]);
    let ib = p.block(ignores);
    let q = p.local(ignores, "q", Ty::Real);
    p.assign(ignores, ib, q, &[]);
    let x = p.dummy(head, "x", Ty::Real);
    let y = p.dummy(head, "y", Ty::Real);
    let b = p.block(head);
    p.assign(head, b, g, &[d(x)]);
    p.assign(head, b, h, &[d(x)]);
    let c1 = p.call(head, b, ignores, &[]);
    let c2 = p.call(head, b, uses_h, &[]);
    p.assign(head, b, y, &[d(g), d(h)]);
    let prog = p.finish();
    let r = analyze(
        &prog,
        &Seeds {
            top: head,
            independents: vec![x],
            dependents: vec![y],
        },
    );
    assert!(!r.activity.stmts[&c1].active);
    assert!(!r.activity.is_active_stmt(c1));
    assert!(r.activity.stmts[&c2].active);
    assert!(r.activity.is_active_unit(uses_h) && !r.activity.is_active_unit(ignores));
}

/// A host local read by a contained procedure but lowered as a local of the
/// host: analysed as shared storage, so its variedness reaches the callee.
/// head(x, y): s = x; call weigh(x, y)   weigh(v, w): w = s * v
#[test]
fn host_locals_seen_by_contained_procedures_are_shared() {
    let mut p = ProgramBuilder::new();
    let head = p.unit("head");
    let weigh = p.unit("weigh");
    let x = p.dummy(head, "x", Ty::Real);
    let y = p.dummy(head, "y", Ty::Real);
    let s = p.local(head, "s", Ty::Real);
    let v = p.dummy(weigh, "v", Ty::Real);
    let w = p.dummy(weigh, "w", Ty::Real);
    let wb = p.block(weigh);
    let s_w = p.assign(weigh, wb, w, &[d(s), d(v)]);
    let hb = p.block(head);
    p.assign(head, hb, s, &[d(x)]);
    p.call(head, hb, weigh, &[Some(x), Some(y)]);
    let prog = p.finish();
    let r = analyze(
        &prog,
        &Seeds {
            top: head,
            independents: vec![x],
            dependents: vec![y],
        },
    );
    assert_eq!(r.shared_locals, vec![s]);
    assert!(r.activity.is_active_location(s));
    assert!(r.activity.is_active_use(s_w, s));
}
