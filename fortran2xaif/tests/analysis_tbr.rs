//! Diff-liveness and TBR on small programs with hand-computed answers.

use fortran2xaif::analysis::analyze;
use fortran2xaif::analysis::builder::{ProgramBuilder, Ty};
use fortran2xaif::analysis::ir::{Seeds, Use};

/// head(x, y): s1 t = x*x; s2 x = 3; s3 y = t*x; s4 t = 0; s5 z = t
/// The derivative of s1 reads x, which s2 overwrites: record x at s2.
/// s4/s5 compute nothing a derivative needs: not diff-present.
#[test]
fn overwritten_operand_is_recorded() {
    let mut p = ProgramBuilder::new();
    let head = p.unit("head");
    let x = p.dummy(head, "x", Ty::Real);
    let y = p.dummy(head, "y", Ty::Real);
    let t = p.local(head, "t", Ty::Real);
    let z = p.local(head, "z", Ty::Real);
    let b = p.block(head);
    let s1 = p.assign(head, b, t, &[Use::diff(x), Use::diff(x)]);
    let s2 = p.assign(head, b, x, &[]);
    let s3 = p.assign(head, b, y, &[Use::diff(t), Use::diff(x)]);
    let s4 = p.assign(head, b, t, &[]);
    let s5 = p.assign(head, b, z, &[Use::diff(t)]);
    let prog = p.finish();
    let r = analyze(
        &prog,
        &Seeds {
            top: head,
            independents: vec![x],
            dependents: vec![y],
        },
    );
    let tbr = &r.tbr;
    assert_eq!(tbr.recorded(s2), &[x]);
    assert_eq!(tbr.derivative_reads(s1), &[x]);
    assert_eq!(tbr.derivative_reads(s3), &[x, t]);
    assert!(tbr.derivative_reads(s2).is_empty() && tbr.derivative_reads(s5).is_empty());
    assert!(tbr.recorded(s1).is_empty());
    assert!(tbr.recorded(s3).is_empty());
    assert!(
        tbr.recorded(s4).is_empty(),
        "s4 is not in the derivative program"
    );
    for s in [s1, s2, s3] {
        assert!(tbr.is_diff_present(s), "{s:?}");
    }
    assert!(!tbr.is_diff_present(s4) && !tbr.is_diff_present(s5));
}

/// A loop: do i: y = y * x(i) — the index i is needed by the derivative
/// and overwritten by the loop update: record i there (and y at s_y).
#[test]
fn indices_used_by_derivatives_are_recorded() {
    let mut p = ProgramBuilder::new();
    let head = p.unit("head");
    let x = p.dummy(head, "x", Ty::RealArray);
    let y = p.dummy(head, "y", Ty::Real);
    let i = p.local(head, "i", Ty::Int);
    let [b0, body, after] = [p.block(head), p.block(head), p.block(head)];
    p.edge(head, b0, body);
    p.edge(head, body, body);
    p.edge(head, body, after);
    let s_init = p.assign(head, b0, i, &[]);
    let s_y = p.assign(
        head,
        body,
        y,
        &[Use::diff(y), Use::diff(x), Use::passive(i)],
    );
    let s_inc = p.assign(head, body, i, &[Use::passive(i)]);
    let s_cond = p.opaque(head, body, &[], &[i]);
    let prog = p.finish();
    let r = analyze(
        &prog,
        &Seeds {
            top: head,
            independents: vec![x],
            dependents: vec![y],
        },
    );
    let tbr = &r.tbr;
    assert_eq!(tbr.recorded(s_inc), &[i]);
    assert_eq!(tbr.recorded(s_y), &[y]);
    assert!(tbr.recorded(s_init).is_empty());
    assert!(tbr.is_diff_present(s_inc) && tbr.is_diff_present(s_init));
    let _ = s_cond;
}

/// A passive program records nothing and keeps nothing.
#[test]
fn passive_program_records_nothing() {
    let mut p = ProgramBuilder::new();
    let head = p.unit("head");
    let x = p.dummy(head, "x", Ty::Real);
    let y = p.dummy(head, "y", Ty::Real);
    let b = p.block(head);
    let s1 = p.assign(head, b, y, &[Use::diff(x)]);
    let s2 = p.assign(head, b, x, &[Use::diff(y)]);
    let prog = p.finish();
    let r = analyze(
        &prog,
        &Seeds {
            top: head,
            independents: vec![],
            dependents: vec![],
        },
    );
    assert!(r.tbr.to_record.is_empty());
    assert!(!r.tbr.is_diff_present(s1) && !r.tbr.is_diff_present(s2));
}

/// Through a call: sub f(a, b): b = a*a. head: call f(x, t); x = 0; y = t*x.
/// The callee's derivative reads a, i.e. x, which is then overwritten.
#[test]
fn values_read_by_callee_derivatives_are_recorded() {
    let mut p = ProgramBuilder::new();
    let head = p.unit("head");
    let f = p.unit("f");
    let fa = p.dummy(f, "a", Ty::Real);
    let fb = p.dummy(f, "b", Ty::Real);
    let fbk = p.block(f);
    p.assign(f, fbk, fb, &[Use::diff(fa), Use::diff(fa)]);
    let x = p.dummy(head, "x", Ty::Real);
    let y = p.dummy(head, "y", Ty::Real);
    let t = p.local(head, "t", Ty::Real);
    let hb = p.block(head);
    p.call(head, hb, f, &[Some(x), Some(t)]);
    let s_x = p.assign(head, hb, x, &[]);
    p.assign(head, hb, y, &[Use::diff(t), Use::diff(x)]);
    let prog = p.finish();
    let r = analyze(
        &prog,
        &Seeds {
            top: head,
            independents: vec![x],
            dependents: vec![y],
        },
    );
    assert!(r.tbr.entry_diff_live[f.index()].contains(fa.index()));
    assert_eq!(r.tbr.recorded(s_x), &[x]);
}
