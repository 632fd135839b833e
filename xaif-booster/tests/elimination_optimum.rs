//! The branch-and-bound optimum against brute force over all vertex orders
//! (replayed through the stepwise eliminator, not the search's bitsets).

use xaif_booster::elimination::random::{random_graph, RandomGraphConfig};
use xaif_booster::elimination::*;

fn permutations(items: &[VertexId]) -> Vec<Vec<VertexId>> {
    if items.len() <= 1 {
        return vec![items.to_vec()];
    }
    let mut out = Vec::new();
    for k in 0..items.len() {
        let mut rest = items.to_vec();
        let first = rest.remove(k);
        for mut p in permutations(&rest) {
            p.insert(0, first);
            out.push(p);
        }
    }
    out
}

fn brute_force(g: &LinearizedGraph, model: CostModel) -> usize {
    let verts = Eliminator::new(g).unwrap().intermediate_vertices();
    permutations(&verts)
        .into_iter()
        .map(|order| {
            let mut e = Eliminator::new(g).unwrap();
            for v in order {
                // a vertex may have become isolated and been removed already
                let _ = e.eliminate_vertex(v);
            }
            model.multiplications(&e.finish().unwrap().counts)
        })
        .min()
        .unwrap()
}

#[test]
fn branch_and_bound_matches_brute_force_on_small_graphs() {
    let mut checked = 0;
    for seed in 0..60u64 {
        let n = 8 + (seed % 6) as usize;
        let cfg = RandomGraphConfig {
            independents: 1 + (seed % 3) as usize,
            max_args: 3,
            window: 5,
            unit_probability: if seed % 2 == 0 { 0.0 } else { 0.3 },
            non_maximal_dependents: 0.15,
            collapsed: seed % 5 == 0,
            vertices: n,
        };
        let g = random_graph(seed, &cfg);
        if Eliminator::new(&g).unwrap().intermediate_vertices().len() > 7 {
            continue;
        }
        for model in [CostModel::AllProducts, CostModel::Multiplications] {
            let want = brute_force(&g, model);
            for heuristic_start in [true, false] {
                let limit = SearchLimit {
                    heuristic_start,
                    ..SearchLimit::default()
                };
                let opt = optimal_vertex_elimination(&g, model, limit)
                    .unwrap()
                    .unwrap();
                assert!(opt.proven);
                assert_eq!(
                    opt.cost, want,
                    "seed {seed} {model:?} heuristic start {heuristic_start}"
                );
            }
        }
        checked += 1;
    }
    assert!(checked >= 20, "only {checked} graphs small enough");
}

#[test]
fn paper_example_optimum_is_12_products() {
    let g = examples::paper_example(0.5, 1.2);
    let opt = optimal_vertex_elimination(&g, CostModel::AllProducts, SearchLimit::default())
        .unwrap()
        .unwrap();
    assert_eq!((opt.cost, opt.proven), (12, true));
    assert_eq!(brute_force(&g, CostModel::AllProducts), 12);
}

/// Cheapest complete front/back edge elimination, by trying every step.
fn brute_force_edges(el: &Eliminator, model: CostModel) -> usize {
    let inter = el.intermediate_vertices();
    if inter.is_empty() {
        return model.multiplications(&el.counts());
    }
    let mut best = usize::MAX;
    for (i, j) in el.edges() {
        let mut front = el.clone();
        if front.front_eliminate(i, j).is_ok() {
            best = best.min(brute_force_edges(&front, model));
        }
        let mut back = el.clone();
        if back.back_eliminate(i, j).is_ok() {
            best = best.min(brute_force_edges(&back, model));
        }
    }
    best
}

#[test]
fn edge_branch_and_bound_matches_brute_force_on_tiny_graphs() {
    let mut checked = 0;
    for seed in 0..80u64 {
        let cfg = RandomGraphConfig {
            vertices: 6 + (seed % 3) as usize,
            independents: 1 + (seed % 2) as usize,
            max_args: 2,
            window: 4,
            unit_probability: if seed % 2 == 0 { 0.0 } else { 0.3 },
            non_maximal_dependents: 0.1,
            collapsed: seed % 7 == 0,
        };
        let g = random_graph(seed, &cfg);
        let el = Eliminator::new(&g).unwrap();
        let inner_edges = el
            .edges()
            .iter()
            .filter(|(i, j)| {
                let inter = el.intermediate_vertices();
                inter.contains(i) || inter.contains(j)
            })
            .count();
        if inner_edges > 6 {
            continue;
        }
        for model in [CostModel::AllProducts, CostModel::Multiplications] {
            let want = brute_force_edges(&el, model);
            for heuristic_start in [true, false] {
                let limit = SearchLimit {
                    heuristic_start,
                    ..SearchLimit::default()
                };
                let opt = optimal_edge_elimination(&g, model, limit).unwrap().unwrap();
                assert!(opt.proven);
                assert_eq!(
                    opt.cost, want,
                    "seed {seed} {model:?} heuristic start {heuristic_start}"
                );
                // the reported steps replay to that cost
                let mut replay = Eliminator::new(&g).unwrap();
                for st in &opt.steps {
                    match *st {
                        Step::FrontEdge(i, j) => replay.front_eliminate(i, j).unwrap(),
                        Step::BackEdge(j, k) => replay.back_eliminate(j, k).unwrap(),
                        _ => panic!("not an edge step"),
                    }
                }
                assert_eq!(
                    model.multiplications(&replay.finish().unwrap().counts),
                    want
                );
            }
        }
        checked += 1;
    }
    assert!(checked >= 20, "only {checked} graphs small enough");
}

#[test]
fn paper_example_edge_optimum_is_12_products() {
    let g = examples::paper_example(0.5, 1.2);
    let opt = optimal_edge_elimination(&g, CostModel::AllProducts, SearchLimit::default())
        .unwrap()
        .unwrap();
    assert_eq!((opt.cost, opt.proven), (12, true));
}
