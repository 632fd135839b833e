//! Best-of driver: run several (method, chain) sequences and keep the
//! cheapest by multiplications, additions breaking ties.

use rayon::prelude::*;

use super::eliminator::{eliminate, Elimination, Method};
use super::graph::LinearizedGraph;
use super::heuristics::{Chain, Filter};
use super::label::OpCounts;
use super::work::EliminationError;

/// What "cheapest" means.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CostModel {
    /// Multiplications actually emitted (products with ±1 are free).
    #[default]
    Multiplications,
    /// Every product of two labels, as counted in paper 000.
    AllProducts,
}

impl CostModel {
    pub fn multiplications(self, c: &OpCounts) -> usize {
        match self {
            CostModel::Multiplications => c.multiplications,
            CostModel::AllProducts => c.multiplications_with_units(),
        }
    }

    /// Comparison key: multiplications, then additions.
    pub fn key(self, c: &OpCounts) -> (usize, usize) {
        (self.multiplications(c), c.additions)
    }
}

/// One sequence the best-of driver tries.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Candidate {
    pub method: Method,
    pub chain: Chain,
}

/// The default candidates for the given methods.  Forward and reverse
/// vertex elimination are always included, so the best-of result is never
/// worse than either of them.
pub fn default_candidates(methods: &[Method]) -> Vec<Candidate> {
    use Filter::*;
    let chains: Vec<Vec<Filter>> = vec![
        vec![Forward],
        vec![Reverse],
        vec![Markowitz, Forward],
        vec![Markowitz, Reverse],
        vec![RelativeMarkowitz, Forward],
        vec![RelativeMarkowitz, Reverse],
        vec![Markowitz, RelativeMarkowitz, Reverse],
        vec![RelativeMarkowitz, Markowitz, Forward],
        vec![Sibling, Markowitz, Reverse],
        vec![Markowitz, Sibling, Forward],
    ];
    let mut out: Vec<Candidate> = Vec::new();
    for base in [Method::Vertex] {
        for f in [vec![Forward], vec![Reverse]] {
            out.push(Candidate { method: base, chain: Chain(f) });
        }
    }
    for &m in methods {
        for c in &chains {
            let cand = Candidate { method: m, chain: Chain(c.clone()) };
            if !out.contains(&cand) {
                out.push(cand);
            }
        }
    }
    out
}

/// Run every candidate and keep the cheapest (first one on ties).
pub fn best_of(graph: &LinearizedGraph, candidates: &[Candidate], cost: CostModel) -> Result<Elimination, EliminationError> {
    let results: Vec<Result<Elimination, EliminationError>> =
        candidates.par_iter().map(|c| eliminate(graph, c.method, &c.chain)).collect();
    let mut best: Option<Elimination> = None;
    for r in results {
        let r = r?;
        if best.as_ref().is_none_or(|b| cost.key(&r.counts) < cost.key(&b.counts)) {
            best = Some(r);
        }
    }
    let mut best = best.ok_or(EliminationError::Incomplete)?;
    best.strategy = format!("best of {} candidates: {}", candidates.len(), best.strategy);
    Ok(best)
}
