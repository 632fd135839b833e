//! The worked example of paper 000, section "Elimination Methods":
//! `v1=v₋₁+v₀; v2=sin(v₀); v3=v1+v2; v4=v1*v3; v5=sqrt(v3); v6=cos(v4); v7=−v5`.

use super::graph::{LinearizedGraph, VertexId};
use super::label::Label;

/// The example graph at the point `(v₋₁, v₀)`.  Vertex `v_k` has id `k+1`
/// and name `k` (so `-1`, `0`, `1`, … as in the paper); independents
/// `v₋₁, v₀`, dependents `v6, v7`.  Sums and `−` give structural ±1 labels.
pub fn paper_example(vm1: f64, v0: f64) -> LinearizedGraph {
    let v1 = vm1 + v0;
    let v2 = v0.sin();
    let v3 = v1 + v2;
    let v4 = v1 * v3;
    let mut g = LinearizedGraph::new();
    let ids: Vec<VertexId> = (-1..=7)
        .map(|k| {
            let v = if k <= 0 {
                g.add_independent()
            } else {
                g.add_vertex()
            };
            g.set_name(v, k.to_string()).expect("vertex exists");
            v
        })
        .collect();
    let v = |k: i32| ids[(k + 1) as usize];
    let edges = [
        (-1, 1, Label::One),
        (0, 1, Label::One),
        (0, 2, Label::Value(v0.cos())),
        (1, 3, Label::One),
        (2, 3, Label::One),
        (1, 4, Label::Value(v3)),
        (3, 4, Label::Value(v1)),
        (3, 5, Label::Value(0.5 / v3.sqrt())),
        (4, 6, Label::Value(-v4.sin())),
        (5, 7, Label::MinusOne),
    ];
    for (s, d, l) in edges {
        g.add_edge(v(s), v(d), l).expect("valid edge");
    }
    g.mark_dependent(v(6)).expect("vertex exists");
    g.mark_dependent(v(7)).expect("vertex exists");
    g
}
