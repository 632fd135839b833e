//! The worked example of paper 000: costs of each method, the exhaustive
//! optimum, and the Jacobian against a hand-derived one.

use xaif_booster::elimination::examples::paper_example;
use xaif_booster::elimination::*;

const XM1: f64 = 0.5;
const X0: f64 = 1.2;

/// The Jacobian of v6 = cos((x₋₁+x₀)·(x₋₁+x₀+sin x₀)), v7 = −sqrt(x₋₁+x₀+sin x₀),
/// differentiated by hand.
fn hand_jacobian() -> [[f64; 2]; 2] {
    let v1 = XM1 + X0;
    let v3 = v1 + X0.sin();
    let v4 = v1 * v3;
    let dv3 = [1.0, 1.0 + X0.cos()];
    let dv1 = [1.0, 1.0];
    let mut j = [[0.0; 2]; 2];
    for k in 0..2 {
        j[0][k] = -v4.sin() * (dv1[k] * v3 + v1 * dv3[k]);
        j[1][k] = -0.5 / v3.sqrt() * dv3[k];
    }
    j
}

fn check_jacobian(e: &Elimination) {
    let want = hand_jacobian();
    for (r, dep) in [6u32, 7].iter().enumerate() {
        for (c, ind) in [0u32, 1].iter().enumerate() {
            let got = e
                .jacobian
                .value(VertexId(*ind), VertexId(*dep + 1))
                .unwrap();
            let w = want[r][c];
            assert!(
                (got - w).abs() <= 1e-12 * w.abs().max(1.0),
                "J[{dep}][{ind}] = {got}, want {w} ({})",
                e.strategy
            );
        }
    }
}

#[test]
fn forward_vertex_elimination_costs_13_multiplications_as_in_the_paper() {
    let g = paper_example(XM1, X0);
    let e = eliminate(&g, Method::Vertex, &Chain::forward()).unwrap();
    // the paper counts every product of two edge labels, unit or not
    assert_eq!(e.counts.multiplications_with_units(), 13, "{}", e.summary());
    assert_eq!(e.sequence_with_names(&g), "1 2 3 4 5");
    // with unit labels free: c43*c3,0, c53*c3,0, c64*c4,-1, c64*c4,0
    assert_eq!(e.counts.multiplications, 4, "{}", e.summary());
    check_jacobian(&e);
}

#[test]
fn every_method_and_the_optimum_on_the_paper_example() {
    let g = paper_example(XM1, X0);
    let mut report = String::new();
    for method in [Method::Vertex, Method::Edge, Method::Face] {
        for chain in [
            "forward",
            "reverse",
            "markowitz,forward",
            "markowitz,reverse",
            "relative-markowitz,reverse",
            "sibling,markowitz,reverse",
        ] {
            let e = eliminate(&g, method, &chain.parse().unwrap()).unwrap();
            check_jacobian(&e);
            report += &format!(
                "{method:6} {chain:28} {:2} all products, {} non-unit, {} additions\n",
                e.counts.multiplications_with_units(),
                e.counts.multiplications,
                e.counts.additions
            );
        }
    }
    let opt = optimal_vertex_elimination(&g, CostModel::AllProducts, SearchLimit::default())
        .unwrap()
        .unwrap();
    assert!(opt.proven);
    report += &format!(
        "optimum vertex (all products): {} by {:?}\n",
        opt.cost, opt.sequence
    );
    let opt_u = optimal_vertex_elimination(&g, CostModel::Multiplications, SearchLimit::default())
        .unwrap()
        .unwrap();
    report += &format!(
        "optimum vertex (non-unit): {} by {:?}\n",
        opt_u.cost, opt_u.sequence
    );
    println!("{report}");
    // replay the optimal sequence and check its cost independently of the search
    let mut el = Eliminator::new(&g).unwrap();
    for v in &opt.sequence {
        el.eliminate_vertex(*v).unwrap();
    }
    let e = el.finish().unwrap();
    assert_eq!(e.counts.multiplications_with_units(), opt.cost);
    check_jacobian(&e);
    assert!(opt.cost <= 13);
}
