//! Property tests: every elimination method and heuristic chain yields the
//! Jacobian of the dense chain rule (path sums in topological order),
//! computed here independently of the elimination engine.  The recorded
//! operations are replayed by a separate interpreter, so the accumulation
//! code itself is checked, not only the values the engine tracks.

use std::collections::HashMap;

use proptest::prelude::*;
use xaif_booster::elimination::*;

/// A random DAG: `(independent?, dependent?, in-edges (arg, label))` per
/// vertex, edges from lower to higher ids.
type VertexSpec = (bool, bool, Vec<(usize, Label)>);

#[derive(Clone, Debug)]
struct Spec {
    vertices: Vec<VertexSpec>,
}

fn label() -> impl Strategy<Value = Label> {
    prop_oneof![
        1 => Just(Label::One),
        1 => Just(Label::MinusOne),
        4 => (0.3f64..3.0, any::<bool>()).prop_map(|(m, neg)| Label::Value(if neg { -m } else { m })),
    ]
}

fn spec() -> impl Strategy<Value = Spec> {
    (1usize..4, 1usize..18).prop_flat_map(|(indep, rest)| {
        let n = indep + rest;
        let per_vertex: Vec<_> = (0..n)
            .map(|v| {
                let args = if v < indep {
                    Just(Vec::new()).boxed()
                } else {
                    // parallel edges (same argument twice) are allowed
                    prop::collection::vec((0..v, label()), 1..=3).boxed()
                };
                (any::<u8>(), args)
            })
            .collect();
        per_vertex.prop_map(move |vs| Spec {
            vertices: vs
                .into_iter()
                .enumerate()
                .map(|(v, (flags, args))| {
                    let independent = v < indep;
                    // ~1/4 of the vertices are dependents (sinks are added below)
                    let dependent = flags % 4 == 0;
                    (independent, dependent, args)
                })
                .collect(),
        })
    })
}

fn build(spec: &Spec) -> LinearizedGraph {
    let mut g = LinearizedGraph::new();
    let mut has_succ = vec![false; spec.vertices.len()];
    for (indep, _, args) in &spec.vertices {
        let v = if *indep {
            g.add_independent()
        } else {
            g.add_vertex()
        };
        for &(a, l) in args {
            g.add_edge(VertexId(a as u32), v, l).unwrap();
            has_succ[a] = true;
        }
    }
    for (v, (indep, dep, _)) in spec.vertices.iter().enumerate() {
        if *dep || (!indep && !has_succ[v]) {
            g.mark_dependent(VertexId(v as u32)).unwrap();
        }
    }
    g
}

fn numeric(l: &Label) -> f64 {
    match l {
        Label::Value(v) => *v,
        Label::One => 1.0,
        Label::MinusOne => -1.0,
        Label::Symbol(_) => panic!("symbolic label in numeric reference"),
    }
}

/// Dense forward mode: for each independent x, dot[v] = Σ c_vu·dot[u]; also
/// the sum of absolute path products, which scales the tolerance.
fn reference(g: &LinearizedGraph) -> HashMap<(VertexId, VertexId), (f64, f64)> {
    let n = g.vertex_count();
    let mut ins: Vec<Vec<(usize, f64)>> = vec![Vec::new(); n];
    for (s, d, l) in g.edges() {
        ins[d.0 as usize].push((s.0 as usize, numeric(l)));
    }
    let mut out = HashMap::new();
    for x in g.independents() {
        let mut dot = vec![0.0; n];
        let mut mag = vec![0.0; n];
        dot[x.0 as usize] = 1.0;
        mag[x.0 as usize] = 1.0;
        // ids are a topological order in these graphs
        for v in 0..n {
            for &(u, c) in &ins[v] {
                dot[v] += c * dot[u];
                mag[v] += c.abs() * mag[u];
            }
        }
        for y in g.dependents() {
            out.insert((x, y), (dot[y.0 as usize], mag[y.0 as usize]));
        }
    }
    out
}

/// Replay the recorded operations (not the engine's own values).
fn replay(e: &Elimination, symbols: &HashMap<u32, f64>) -> HashMap<LabelId, f64> {
    let mut val: HashMap<LabelId, f64> = HashMap::new();
    let get = |val: &HashMap<LabelId, f64>, id: LabelId| -> f64 {
        match e.labels.def(id) {
            LabelDef::Input(Label::Value(v)) => v,
            LabelDef::Input(Label::One) => 1.0,
            LabelDef::Input(Label::MinusOne) => -1.0,
            LabelDef::Input(Label::Symbol(s)) => symbols[&s],
            _ => *val
                .get(&id)
                .expect("operation result used before it is computed"),
        }
    };
    let (mut muls, mut adds) = (0, 0);
    for op in e.ops() {
        match *op {
            Op::Mul { lhs, rhs, out } => {
                muls += 1;
                let v = get(&val, lhs) * get(&val, rhs);
                assert!(val.insert(out, v).is_none(), "label defined twice");
            }
            Op::Add { lhs, rhs, out } => {
                adds += 1;
                let v = get(&val, lhs) + get(&val, rhs);
                assert!(val.insert(out, v).is_none(), "label defined twice");
            }
            Op::Neg { arg, out } => {
                let v = -get(&val, arg);
                assert!(val.insert(out, v).is_none(), "label defined twice");
            }
        }
    }
    assert_eq!(
        muls, e.counts.multiplications,
        "Mul ops vs counted multiplications"
    );
    assert_eq!(adds, e.counts.additions, "Add ops vs counted additions");
    e.jacobian
        .entries
        .iter()
        .map(|en| (en.label, get(&val, en.label)))
        .collect()
}

fn check(g: &LinearizedGraph, e: &Elimination) -> Result<(), TestCaseError> {
    let want = reference(g);
    let replayed = replay(e, &HashMap::new());
    for (&(x, y), &(w, mag)) in &want {
        let entry = e.jacobian.get(x, y);
        let got = entry.map(|en| replayed[&en.label]).unwrap_or(0.0);
        let tracked = e.jacobian.value(x, y).unwrap();
        let tol = 1e-12 * mag.max(1.0);
        prop_assert!(
            (got - w).abs() <= tol,
            "J[{y}][{x}]: replayed {got}, dense {w} ({})",
            e.strategy
        );
        prop_assert!(
            (tracked - w).abs() <= tol,
            "J[{y}][{x}]: tracked {tracked}, dense {w}"
        );
        if mag == 0.0 {
            prop_assert!(entry.is_none(), "structural zero J[{y}][{x}] has an entry");
        }
    }
    for en in &e.jacobian.entries {
        prop_assert!(
            want.contains_key(&(en.independent, en.dependent)),
            "entry for a non-(independent, dependent) pair"
        );
    }
    Ok(())
}

const CHAINS: [&str; 11] = [
    "forward",
    "reverse",
    "markowitz",
    "markowitz,reverse",
    "markowitz,forward",
    "relative-markowitz,reverse",
    "relative-markowitz,markowitz,forward",
    "sibling,markowitz,reverse",
    "markowitz,sibling,relative-markowitz",
    "cost,markowitz,reverse",
    "cost,sibling",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn vertex_elimination_matches_dense_chain_rule(s in spec()) {
        let g = build(&s);
        for chain in CHAINS {
            check(&g, &eliminate(&g, Method::Vertex, &chain.parse().unwrap()).unwrap())?;
        }
    }

    #[test]
    fn edge_elimination_matches_dense_chain_rule(s in spec()) {
        let g = build(&s);
        for chain in CHAINS {
            check(&g, &eliminate(&g, Method::Edge, &chain.parse().unwrap()).unwrap())?;
        }
    }

    #[test]
    fn face_elimination_matches_dense_chain_rule(s in spec()) {
        let g = build(&s);
        for chain in CHAINS {
            check(&g, &eliminate(&g, Method::Face, &chain.parse().unwrap()).unwrap())?;
        }
    }

    #[test]
    fn mixed_sequences_match_dense_chain_rule(s in spec(), steps in 0usize..12, first_edge in any::<bool>(), c1 in 0usize..11, c2 in 0usize..11) {
        let g = build(&s);
        let first = if first_edge { Method::Edge } else { Method::Vertex };
        let e = eliminate_mixed(&g, first, &CHAINS[c1].parse().unwrap(), steps, &CHAINS[c2].parse().unwrap()).unwrap();
        check(&g, &e)?;
    }

    /// Arbitrary (random) vertex, front, back and face steps through the
    /// stepwise API, not only the ones heuristics pick.
    #[test]
    fn arbitrary_step_sequences_match_dense_chain_rule(s in spec(), picks in prop::collection::vec(any::<u32>(), 64)) {
        let g = build(&s);
        let mut el = Eliminator::new(&g).unwrap();
        let mut picks = picks.into_iter().cycle();
        for _ in 0..8 {
            let p = picks.next().unwrap() as usize;
            let verts = el.intermediate_vertices();
            let edges = el.edges();
            match p % 3 {
                0 if !verts.is_empty() => el.eliminate_vertex(verts[p / 3 % verts.len()]).unwrap(),
                1 if !edges.is_empty() => {
                    let (i, j) = edges[p / 3 % edges.len()];
                    // exactly one of these may be refused (endpoint not intermediate)
                    let _ = el.front_eliminate(i, j).or_else(|_| el.back_eliminate(i, j));
                }
                _ => {}
            }
        }
        loop {
            let faces = el.faces();
            if faces.is_empty() { break; }
            let p = picks.next().unwrap() as usize;
            el.eliminate_face(faces[p % faces.len()]).unwrap();
        }
        prop_assert!(matches!(el.eliminate_vertex(VertexId(0)), Err(EliminationError::AfterFaces)), "vertex step after faces must be refused");
        check(&g, &el.finish().unwrap())?;
    }

    #[test]
    fn best_of_is_never_worse_than_forward_or_reverse(s in spec()) {
        let g = build(&s);
        let cost = CostModel::Multiplications;
        let best = best_of(&g, &default_candidates(&[Method::Vertex, Method::Edge, Method::Face]), cost).unwrap();
        check(&g, &best)?;
        for chain in [Chain::forward(), Chain::reverse()] {
            let e = eliminate(&g, Method::Vertex, &chain).unwrap();
            prop_assert!(cost.key(&best.counts) <= cost.key(&e.counts));
        }
    }

    #[test]
    fn exhaustive_optimum_is_a_lower_bound_and_replays(s in spec()) {
        let g = build(&s);
        for model in [CostModel::AllProducts, CostModel::Multiplications] {
            let Some(opt) = optimal_vertex_elimination(&g, model, SearchLimit::default()).unwrap() else { continue };
            let mut el = Eliminator::new(&g).unwrap();
            for v in &opt.sequence { el.eliminate_vertex(*v).unwrap(); }
            let e = el.finish().unwrap();
            check(&g, &e)?;
            prop_assert_eq!(model.multiplications(&e.counts), opt.cost);
            if opt.proven {
                for chain in CHAINS {
                    let h = eliminate(&g, Method::Vertex, &chain.parse().unwrap()).unwrap();
                    prop_assert!(opt.cost <= model.multiplications(&h.counts));
                }
            }
        }
    }
}

/// Symbolic labels: the engine knows no values; replaying the operations
/// with values bound to the symbols must give the dense Jacobian.
#[test]
fn symbolic_labels_replay_to_the_dense_jacobian() {
    let cfg = random::RandomGraphConfig {
        unit_probability: 0.2,
        non_maximal_dependents: 0.2,
        collapsed: true,
        ..random::RandomGraphConfig::new(40)
    };
    let numeric_graph = random::random_graph(7, &cfg);
    let mut symbolic = LinearizedGraph::new();
    let mut symbols = HashMap::new();
    for v in 0..numeric_graph.vertex_count() as u32 {
        let id = if numeric_graph.is_independent(VertexId(v)) {
            symbolic.add_independent()
        } else {
            symbolic.add_vertex()
        };
        assert_eq!(id, VertexId(v));
    }
    for (k, (s, d, l)) in numeric_graph.edges().iter().enumerate() {
        let l = match l {
            Label::Value(x) => {
                symbols.insert(k as u32, *x);
                Label::Symbol(k as u32)
            }
            other => *other,
        };
        symbolic.add_edge(*s, *d, l).unwrap();
    }
    for y in numeric_graph.dependents() {
        symbolic.mark_dependent(y).unwrap();
    }
    let want = reference(&numeric_graph);
    for method in [Method::Vertex, Method::Edge, Method::Face] {
        let e = eliminate(&symbolic, method, &Chain::default()).unwrap();
        let replayed = replay(&e, &symbols);
        for (&(x, y), &(w, mag)) in &want {
            let got = e
                .jacobian
                .get(x, y)
                .map(|en| replayed[&en.label])
                .unwrap_or(0.0);
            assert!(
                (got - w).abs() <= 1e-12 * mag.max(1.0),
                "{method}: J[{y}][{x}] {got} vs {w}"
            );
        }
    }
}

/// y = x for an independent x: the entry is exactly the unit, and a
/// dependent used further on keeps its own row.
#[test]
fn collapsed_and_non_maximal_dependents() {
    let mut g = LinearizedGraph::new();
    let x = g.add_independent();
    let z = g.add_independent();
    g.mark_dependent(x).unwrap(); // y = x, collapsed
    let v = g.add_vertex();
    g.add_edge(x, v, Label::Value(3.0)).unwrap();
    g.add_edge(z, v, Label::Value(-2.0)).unwrap();
    g.mark_dependent(v).unwrap(); // non-maximal: w uses it
    let w = g.add_vertex();
    g.add_edge(v, w, Label::Value(5.0)).unwrap();
    g.mark_dependent(w).unwrap();
    for method in [Method::Vertex, Method::Edge, Method::Face] {
        let e = eliminate(&g, method, &Chain::default()).unwrap();
        assert_eq!(e.jacobian.value(x, x), Some(1.0));
        assert_eq!(e.jacobian.value(z, x), Some(0.0));
        assert_eq!(e.jacobian.value(x, v), Some(3.0));
        assert_eq!(e.jacobian.value(z, v), Some(-2.0));
        assert_eq!(e.jacobian.value(x, w), Some(15.0));
        assert_eq!(e.jacobian.value(z, w), Some(-10.0));
        assert_eq!(e.jacobian.entries.len(), 5);
        // x and v get auxiliary sinks; a readable sequence names them x', v'
        assert_eq!(e.auxiliary.len(), 2);
        assert!(!e.sequence_with_names(&g).is_empty());
    }
}

#[test]
fn chains_parse_and_print() {
    let c: Chain = "markowitz, reverse".parse().unwrap();
    assert_eq!(c, Chain(vec![Filter::Markowitz, Filter::Reverse]));
    assert_eq!(c.to_string(), "markowitz,reverse");
    assert_eq!(
        "lrm,hs,fwd".parse::<Chain>().unwrap().to_string(),
        "relative-markowitz,sibling,forward"
    );
    assert!("markowitz,bogus".parse::<Chain>().is_err());
    assert_eq!(
        "cost".parse::<Chain>().unwrap(),
        Chain(vec![Filter::LowestCost])
    );
    assert_eq!("face".parse::<Method>().unwrap(), Method::Face);
}

#[test]
fn invalid_steps_and_graphs_are_refused() {
    let mut g = LinearizedGraph::new();
    let x = g.add_independent();
    let v = g.add_vertex();
    assert!(
        g.add_edge(v, x, Label::One).is_err(),
        "edge into an independent"
    );
    assert!(g.add_edge(v, v, Label::One).is_err(), "self loop");
    g.add_edge(x, v, Label::Value(2.0)).unwrap();
    let y = g.add_dependent();
    g.add_edge(v, y, Label::Value(3.0)).unwrap();
    let mut el = Eliminator::new(&g).unwrap();
    assert!(el.eliminate_vertex(x).is_err());
    assert!(
        el.front_eliminate(v, y).is_err(),
        "front elimination into a dependent"
    );
    assert!(
        el.back_eliminate(x, v).is_err(),
        "back elimination out of an independent"
    );
    assert!(matches!(
        Eliminator::new(&g).unwrap().finish(),
        Err(EliminationError::Incomplete)
    ));
    el.front_eliminate(x, v).unwrap();
    let e = el.finish().unwrap();
    assert_eq!(e.jacobian.value(x, y), Some(6.0));
    assert!(e.to_dot(&g).contains("x0 -> y2"));
    assert!(g.to_dot().contains("v0 -> v1"));

    let mut cyclic = LinearizedGraph::new();
    let x = cyclic.add_independent();
    let (a, b) = (cyclic.add_vertex(), cyclic.add_dependent());
    cyclic.add_edge(x, a, Label::One).unwrap();
    cyclic.add_edge(a, b, Label::One).unwrap();
    cyclic.add_edge(b, a, Label::One).unwrap();
    assert!(matches!(
        Eliminator::new(&cyclic),
        Err(EliminationError::Cycle(_))
    ));
}
