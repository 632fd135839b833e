//! Random analysis-IR programs for the property tests (a small seeded
//! generator, so failures reproduce). Each test file uses only part of it.
#![allow(dead_code)]

use fortran2xaif::analysis::builder::{ProgramBuilder, Ty};
use fortran2xaif::analysis::ir::{Def, LocationId, LocationKind, Program, Seeds, UnitId, Use};

/// xorshift64*.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    pub fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
    pub fn pick<T: Copy>(&mut self, v: &[T]) -> Option<T> {
        if v.is_empty() {
            None
        } else {
            Some(v[self.below(v.len())])
        }
    }
}

pub fn random_ty(rng: &mut Rng) -> Ty {
    match rng.below(6) {
        0 => Ty::Int,
        1 => Ty::RealArray,
        _ => Ty::Real,
    }
}

/// A random program of up to four units (unit 0 is the top); calls may
/// recurse; blocks form a chain plus random forward and back edges.
pub fn random_program(rng: &mut Rng) -> Program {
    let mut p = ProgramBuilder::new();
    let nunits = 1 + rng.below(4);
    let globals: Vec<LocationId> = (0..rng.below(3))
        .map(|g| {
            let ty = random_ty(rng);
            p.global(&format!("g{g}"), ty)
        })
        .collect();
    let units: Vec<UnitId> = (0..nunits).map(|u| p.unit(&format!("u{u}"))).collect();
    let mut visible: Vec<Vec<LocationId>> = Vec::new();
    for &u in &units {
        let mut locs = globals.clone();
        for d in 0..1 + rng.below(3) {
            let ty = random_ty(rng);
            locs.push(p.dummy(u, &format!("d{d}"), ty));
        }
        for l in 0..rng.below(4) {
            let ty = random_ty(rng);
            locs.push(p.local(u, &format!("l{l}"), ty));
        }
        visible.push(locs);
    }
    let ndummies: Vec<usize> = {
        let prog = p.clone().finish();
        prog.units.iter().map(|u| u.dummies.len()).collect()
    };
    for (ui, &u) in units.iter().enumerate() {
        let nb = 1 + rng.below(5);
        let blocks: Vec<_> = (0..nb).map(|_| p.block(u)).collect();
        p.chain(u, &blocks);
        for _ in 0..rng.below(3) {
            let (a, b) = (rng.below(nb), rng.below(nb));
            p.edge(u, blocks[a], blocks[b]);
        }
        let locs = &visible[ui];
        for &b in &blocks {
            for _ in 0..rng.below(5) {
                match rng.below(10) {
                    0 => {
                        let defs: Vec<Def> = (0..rng.below(2))
                            .filter_map(|_| {
                                let loc = rng.pick(locs)?;
                                Some(Def {
                                    loc,
                                    kills: rng.chance(50),
                                    element: None,
                                })
                            })
                            .collect();
                        let uses: Vec<LocationId> =
                            (0..rng.below(3)).filter_map(|_| rng.pick(locs)).collect();
                        p.opaque(u, b, &defs, &uses);
                    }
                    1 | 2 => {
                        let callee = units[rng.below(nunits)];
                        let actuals: Vec<Option<LocationId>> = (0..ndummies[callee.index()])
                            .map(|_| if rng.chance(15) { None } else { rng.pick(locs) })
                            .collect();
                        if rng.chance(10) {
                            p.call_external(u, b, "ext", &actuals);
                        } else {
                            p.call(u, b, callee, &actuals);
                        }
                    }
                    _ => {
                        let Some(def) = rng.pick(locs) else { continue };
                        let uses: Vec<Use> = (0..rng.below(4))
                            .filter_map(|_| {
                                let loc = rng.pick(locs)?;
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
            }
        }
    }
    p.finish()
}

pub fn random_seeds(rng: &mut Rng, prog: &Program) -> Seeds {
    let candidates: Vec<LocationId> = (0..prog.locations.len())
        .map(|l| LocationId(l as u32))
        .filter(|l| match prog.locations[l.index()].kind {
            LocationKind::Global => true,
            LocationKind::Dummy { unit, .. } => unit == UnitId(0),
            LocationKind::Local { .. } => false,
        })
        .collect();
    Seeds {
        top: UnitId(0),
        independents: candidates
            .iter()
            .copied()
            .filter(|_| rng.chance(40))
            .collect(),
        dependents: candidates
            .iter()
            .copied()
            .filter(|_| rng.chance(40))
            .collect(),
    }
}
