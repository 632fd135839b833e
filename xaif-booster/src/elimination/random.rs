//! Seeded random computational graphs for tests and benchmarks.

use super::graph::{LinearizedGraph, VertexId};
use super::label::Label;

/// SplitMix64: small, seedable, good enough for generating test graphs.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// Uniform in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// Shape of a random code-list-like DAG.
#[derive(Clone, Debug)]
pub struct RandomGraphConfig {
    pub vertices: usize,
    pub independents: usize,
    /// Each non-independent vertex has 1..=max_args arguments.
    pub max_args: usize,
    /// Arguments are drawn from the previous `window` vertices.
    pub window: usize,
    /// Probability that an edge label is a structural ±1.
    pub unit_probability: f64,
    /// Probability that an intermediate with successors is also a dependent.
    pub non_maximal_dependents: f64,
    /// Make one independent also a dependent (`y = x`).
    pub collapsed: bool,
}

impl RandomGraphConfig {
    pub fn new(vertices: usize) -> Self {
        RandomGraphConfig {
            vertices,
            independents: (vertices / 5).clamp(1, 12),
            max_args: 2,
            window: 12,
            unit_probability: 0.0,
            non_maximal_dependents: 0.0,
            collapsed: false,
        }
    }
}

/// A random DAG: independents first, then vertices with 1..=max_args
/// arguments from a sliding window; every sink is a dependent.
pub fn random_graph(seed: u64, cfg: &RandomGraphConfig) -> LinearizedGraph {
    let mut rng = Rng::new(seed);
    let mut g = LinearizedGraph::new();
    let n = cfg.vertices.max(cfg.independents + 1);
    let indep = cfg.independents.max(1);
    let mut has_succ = vec![false; n];
    for _ in 0..indep {
        g.add_independent();
    }
    for v in indep..n {
        let me = g.add_vertex();
        let args = 1 + rng.below(cfg.max_args.max(1));
        let lo = v.saturating_sub(cfg.window.max(1));
        let mut chosen: Vec<usize> = Vec::new();
        for _ in 0..args {
            let a = lo + rng.below(v - lo);
            if !chosen.contains(&a) {
                chosen.push(a);
            }
        }
        for a in chosen {
            let label = if rng.unit() < cfg.unit_probability {
                if rng.below(2) == 0 {
                    Label::One
                } else {
                    Label::MinusOne
                }
            } else {
                let mag = 0.5 + 1.5 * rng.unit();
                Label::Value(if rng.below(2) == 0 { mag } else { -mag })
            };
            g.add_edge(VertexId(a as u32), me, label)
                .expect("valid edge");
            has_succ[a] = true;
        }
    }
    for (v, &used) in has_succ.iter().enumerate().skip(indep) {
        let id = VertexId(v as u32);
        if !used || rng.unit() < cfg.non_maximal_dependents {
            g.mark_dependent(id).expect("vertex exists");
        }
    }
    if cfg.collapsed {
        g.mark_dependent(VertexId(rng.below(indep) as u32))
            .expect("vertex exists");
    }
    g
}
