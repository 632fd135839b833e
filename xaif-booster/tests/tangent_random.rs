//! Random blocks of assignments (a fixed-seed generator, so failures
//! reproduce): every variant of preaccumulation must give the derivatives
//! of central finite differences of the original statements. The blocks mix
//! overwrites, reuse of assigned values and possibly aliased array
//! elements (`v[n]`, `v[m]` with n = m or not), the cases where flattening
//! and propagator ordering can go wrong.

use std::collections::HashMap;

use xaif_booster::block_accumulate::EliminationChoice;
use xaif_booster::catalogue::Catalogue;
use xaif_booster::elimination::{Chain, Method};
use xaif_booster::tangent::{transform_tangent, Preaccumulation, TangentOptions};
use xaif_testkit::random::{expression, Lcg};
use xaif_testkit::*;

const VARS: &[&str] = &["x", "y", "z", "a", "b", "p", "v[n]", "v[m]", "v[1]"];
const LHS: &[&str] = &["x", "y", "z", "a", "b", "v[n]", "v[m]", "v[2]"];

fn variants() -> Vec<TangentOptions> {
    let chain = |s: &str| s.parse::<Chain>().unwrap();
    let block = |elimination| TangentOptions {
        preaccumulation: Preaccumulation::BasicBlock,
        elimination,
        dot_dir: None,
        report_optimum: false,
    };
    vec![
        TangentOptions {
            preaccumulation: Preaccumulation::Statement,
            elimination: EliminationChoice::Best(vec![Method::Vertex]),
            dot_dir: None,
            report_optimum: false,
        },
        block(EliminationChoice::One(
            Method::Vertex,
            chain("markowitz,reverse"),
        )),
        block(EliminationChoice::One(Method::Edge, chain("forward"))),
        block(EliminationChoice::One(
            Method::Face,
            chain("relative-markowitz,forward"),
        )),
        TangentOptions {
            preaccumulation: Preaccumulation::Auto,
            ..block(EliminationChoice::One(
                Method::Vertex,
                chain("markowitz,reverse"),
            ))
        },
    ]
}

fn start_point(n: f64, m: f64) -> HashMap<String, f64> {
    let mut v: HashMap<String, f64> = [
        ("x", 0.31),
        ("y", -0.42),
        ("z", 0.27),
        ("a", 0.63),
        ("b", -0.18),
        ("p", 0.77),
        ("q", 0.5),
        ("n", n),
        ("m", m),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect();
    for (k, name) in VECTOR.iter().enumerate() {
        v.insert(name.to_string(), 0.2 - 0.15 * k as f64);
    }
    v
}

#[test]
fn random_blocks_match_finite_differences() {
    let catalogue = Catalogue::builtin().unwrap();
    let mut rng = Lcg(20261122);
    let inputs: Vec<&str> = ["x", "y", "z", "a", "b"]
        .into_iter()
        .chain(VECTOR.iter().copied())
        .collect();
    for case in 0..40 {
        let len = 1 + (rng.next() % 6) as usize;
        let owned: Vec<(String, String)> = (0..len)
            .map(|_| {
                (
                    rng.pick(LHS).to_string(),
                    expression(&mut rng, 3, VARS, true),
                )
            })
            .collect();
        let stmts: Vec<(&str, &str)> = owned
            .iter()
            .map(|(l, r)| (l.as_str(), r.as_str()))
            .collect();
        for (n, m) in [(2.0, 2.0), (2.0, 3.0)] {
            let point = start_point(n, m);
            for opts in variants() {
                let mut cg = program(&stmts);
                transform_tangent(&mut cg, &catalogue, &opts).unwrap();
                for input in &inputs {
                    let mut state = State {
                        v: point.clone(),
                        d: inputs.iter().map(|k| (k.to_string(), 0.0)).collect(),
                    };
                    state.d.insert(input.to_string(), 1.0);
                    execute(block_elements(&cg), &mut state);
                    for output in &inputs {
                        let got = state.d[*output];
                        let h = 1e-6;
                        let run = |dx: f64| {
                            let mut vars = point.clone();
                            *vars.get_mut(*input).unwrap() += dx;
                            execute_original(&stmts, &mut vars);
                            vars[*output]
                        };
                        let fd = (run(h) - run(-h)) / (2.0 * h);
                        assert!(
                            (got - fd).abs() <= 1e-6 * fd.abs().max(1.0),
                            "case {case} n={n} m={m} {:?} {:?}: d{output}/d{input} tangent {got} fd {fd}\n{stmts:?}",
                            opts.preaccumulation,
                            opts.elimination
                        );
                    }
                }
            }
        }
    }
}
