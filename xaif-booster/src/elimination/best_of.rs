//! Best-of driver: run several (method, chain) sequences and keep the
//! cheapest by multiplications, additions breaking ties.

use rayon::prelude::*;

use std::sync::atomic::{AtomicUsize, Ordering};

use super::eliminator::{Elimination, Eliminator};
use super::graph::LinearizedGraph;
use super::heuristics::{Chain, Filter};
use super::label::OpCounts;
use super::method::Method;
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
        vec![LowestCost, Markowitz, Reverse],
        vec![LowestCost, RelativeMarkowitz, Forward],
    ];
    let mut out: Vec<Candidate> = Vec::new();
    for base in [Method::Vertex] {
        for f in [vec![Forward], vec![Reverse]] {
            out.push(Candidate {
                method: base,
                chain: Chain(f),
            });
        }
    }
    for &m in methods {
        for c in &chains {
            let cand = Candidate {
                method: m,
                chain: Chain(c.clone()),
            };
            if !out.contains(&cand) {
                out.push(cand);
            }
        }
    }
    out
}

/// Candidates scaled to the graph: every method and chain for graphs of up
/// to `LARGE_GRAPH_EDGES` edges; above that the twelve vertex chains plus
/// the edge and face sequences that were both fast and good on the
/// 1,000-vertex benchmark graph (`docs/elimination.md`): edge
/// `markowitz,forward`, face `relative-markowitz,forward` and
/// `cost,relative-markowitz,forward`.  Edge and face `forward` are left out
/// there (they perform the products of forward vertex elimination, which
/// is a candidate), and so are the sequences that break ties in reverse
/// order: they cause massive fill-in on large graphs and take seconds.
pub fn recommended_candidates(graph: &LinearizedGraph) -> Vec<Candidate> {
    use Filter::*;
    let all = default_candidates(&[Method::Vertex, Method::Edge, Method::Face]);
    if graph.edge_count() <= LARGE_GRAPH_EDGES {
        return all;
    }
    let keep = |c: &Candidate| match c.method {
        Method::Vertex => true,
        Method::Edge => c.chain.0 == [Markowitz, Forward],
        Method::Face => {
            c.chain.0 == [RelativeMarkowitz, Forward]
                || c.chain.0 == [LowestCost, RelativeMarkowitz, Forward]
        }
    };
    all.into_iter().filter(keep).collect()
}

/// Edge count above which [`recommended_candidates`] drops the expensive
/// edge and face sequences.
pub const LARGE_GRAPH_EDGES: usize = 400;

/// Run every candidate and keep the cheapest (the first one on ties).
///
/// Candidates run in parallel and share the cheapest multiplication count
/// found so far: a run is abandoned as soon as it is strictly more
/// expensive, so hopeless sequences (fill-in explosions) cost little.  Only
/// strictly worse runs are abandoned, hence the choice is deterministic.
pub fn best_of(
    graph: &LinearizedGraph,
    candidates: &[Candidate],
    cost: CostModel,
) -> Result<Elimination, EliminationError> {
    let bound = AtomicUsize::new(usize::MAX);
    // forward vertex elimination (sparse forward mode) is the cheapest run
    // and usually a good sequence: it alone sets the first bound; then the
    // other vertex sequences, cheap too, tighten it for the edge and face ones
    let seed = candidates
        .iter()
        .position(|c| c.method == Method::Vertex && c.chain.0.first() == Some(&Filter::Forward));
    // then the other vertex sequences, cheap too, then edge and face ones,
    // taken from one queue by as many workers as rayon has threads
    let queue: Vec<usize> = (0..candidates.len())
        .filter(|&k| Some(k) != seed && candidates[k].method == Method::Vertex)
        .chain((0..candidates.len()).filter(|&k| candidates[k].method != Method::Vertex))
        .collect();
    let run = |c: &Candidate| -> Result<Option<Elimination>, EliminationError> {
        let mut e = Eliminator::new(graph)?;
        let done = e.run_within(c.method, &c.chain, |counts| {
            cost.multiplications(counts) > bound.load(Ordering::Relaxed)
        })?;
        if !done {
            return Ok(None);
        }
        let e = e.finish()?;
        bound.fetch_min(cost.multiplications(&e.counts), Ordering::Relaxed);
        Ok(Some(e))
    };
    let mut results: Vec<(usize, Result<Option<Elimination>, EliminationError>)> =
        seed.map(|k| (k, run(&candidates[k]))).into_iter().collect();
    let next = AtomicUsize::new(0);
    let workers = rayon::current_num_threads().clamp(1, queue.len().max(1));
    let taken: Vec<Vec<_>> = (0..workers)
        .into_par_iter()
        .map(|_| {
            let mut mine = Vec::new();
            while let Some(&k) = queue.get(next.fetch_add(1, Ordering::Relaxed)) {
                mine.push((k, run(&candidates[k])));
            }
            mine
        })
        .collect();
    results.extend(taken.into_iter().flatten());
    results.sort_by_key(|(k, _)| *k);
    let mut best: Option<Elimination> = None;
    for (_, r) in results {
        let Some(r) = r? else { continue };
        if best
            .as_ref()
            .is_none_or(|b| cost.key(&r.counts) < cost.key(&b.counts))
        {
            best = Some(r);
        }
    }
    let mut best = best.ok_or(EliminationError::Incomplete)?;
    best.strategy = format!("best of {} candidates: {}", candidates.len(), best.strategy);
    Ok(best)
}
