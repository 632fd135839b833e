//! The analyses stay near linear: a long call chain of units with many
//! blocks and statements is analysed quickly, and doubling its size does
//! not much more than double the time.

use std::time::{Duration, Instant};

use fortran2xaif::analysis::analyze;
use fortran2xaif::analysis::builder::{ProgramBuilder, Ty};
use fortran2xaif::analysis::ir::{Program, Seeds, UnitId, Use};

/// `units` subroutines s_k(a, b), each a loop over `blocks` blocks of
/// assignments through `locals` locals, calling s_{k+1}(t, b).
fn chain_program(units: usize, blocks: usize, locals: usize) -> Program {
    let mut p = ProgramBuilder::new();
    let g = p.global("g", Ty::Real);
    let ids: Vec<UnitId> = (0..units).map(|k| p.unit(&format!("s{k}"))).collect();
    for (k, &u) in ids.iter().enumerate() {
        let a = p.dummy(u, "a", Ty::Real);
        let b = p.dummy(u, "b", Ty::Real);
        let i = p.local(u, "i", Ty::Int);
        let ls: Vec<_> = (0..locals)
            .map(|j| p.local(u, &format!("t{j}"), Ty::Real))
            .collect();
        let bs: Vec<_> = (0..blocks).map(|_| p.block(u)).collect();
        p.chain(u, &bs);
        for w in bs.windows(3).step_by(3) {
            p.edge(u, w[2], w[0]);
            p.edge(u, w[0], w[2]);
        }
        for (n, &blk) in bs.iter().enumerate() {
            let t = ls[n % locals];
            let s = ls[(n * 7 + 3) % locals];
            p.assign(u, blk, t, &[Use::diff(a), Use::diff(s), Use::passive(i)]);
            p.assign(u, blk, s, &[Use::diff(t), Use::diff(g)]);
            p.assign(u, blk, i, &[Use::passive(i)]);
        }
        let last = bs[blocks - 1];
        if let Some(&next) = ids.get(k + 1) {
            p.call(u, last, next, &[Some(ls[0]), Some(b)]);
        } else {
            p.assign(u, last, b, &[Use::diff(ls[0])]);
        }
    }
    p.finish()
}

fn time(units: usize) -> Duration {
    let prog = chain_program(units, 40, 20);
    let x = prog.units[0].dummies[0];
    let y = prog.units[0].dummies[1];
    let seeds = Seeds {
        top: UnitId(0),
        independents: vec![x],
        dependents: vec![y],
    };
    let start = Instant::now();
    let r = analyze(&prog, &seeds);
    let spent = start.elapsed();
    assert!(r.errors.is_empty());
    // The whole chain is active: the last unit's b depends on its a.
    let last = &prog.units[units - 1];
    assert!(r.activity.is_active_location(last.dummies[0]));
    assert!(r.activity.is_active_location(last.dummies[1]));
    spent
}

#[test]
fn call_chain_scales() {
    // The best of two runs each, against noise from other work.
    let small = time(40).min(time(40));
    let large = time(80).min(time(80));
    eprintln!("40 units: {small:?}, 80 units: {large:?}");
    assert!(large < Duration::from_secs(30), "{large:?}");
    // Generous: sets are over all locations, so some growth beyond linear.
    assert!(
        large < small * 6 + Duration::from_millis(200),
        "{small:?} → {large:?}"
    );
}

#[test]
#[ignore]
fn phase_times() {
    use fortran2xaif::analysis::*;
    let units: usize = std::env::var("UNITS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(80);
    let blocks: usize = std::env::var("BLOCKS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(40);
    let prog = chain_program(units, blocks, 20);
    let seeds = Seeds {
        top: UnitId(0),
        independents: vec![prog.units[0].dummies[0]],
        dependents: vec![prog.units[0].dummies[1]],
    };
    let t = Instant::now();
    let cg = CallGraph::build(&prog);
    let se = SideEffects::compute(&prog, &cg);
    eprintln!("cg+se {:?}", t.elapsed());
    let t = Instant::now();
    let al = Alias::compute(&prog, &cg);
    eprintln!("alias {:?}", t.elapsed());
    let t = Instant::now();
    let _du = DuUd::compute(&prog, &se, &al);
    eprintln!("duud {:?}", t.elapsed());
    let t = Instant::now();
    let act = Activity::compute(&prog, &seeds, &cg, &se, &al);
    eprintln!("activity {:?}", t.elapsed());
    let t = Instant::now();
    let _tbr = Tbr::compute(&prog, &seeds, &cg, &se, &al, &act);
    eprintln!("tbr {:?}", t.elapsed());
}
