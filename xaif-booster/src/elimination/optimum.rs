//! Optimal vertex elimination by branch and bound (small graphs only).
//!
//! The structure of the graph after eliminating a set of vertices does not
//! depend on the order (every remaining edge (i,k) stands for the paths from
//! i to k through eliminated vertices only), so the search memoises the
//! cheapest cost found for each eliminated set and prunes when a set is
//! reached again at no lower cost.  Lower bound of the remaining cost: every
//! remaining intermediate costs at least one product, and every Jacobian
//! entry not yet present as an edge needs a product to be created (products
//! with ±1 are free under [`CostModel::Multiplications`], so that bound is
//! only used when the graph has no unit labels).  States are bitsets
//! (`u128`), hence at most 128 vertices after normalisation.

use std::collections::HashMap;

use super::best_of::{default_candidates, CostModel};
use super::eliminator::{eliminate, Method, Step};
use super::graph::{LinearizedGraph, VertexId};
use super::label::Labels;
use super::work::{EliminationError, Role, WorkGraph};

/// Search limits.
#[derive(Clone, Copy, Debug)]
pub struct SearchLimit {
    /// Larger graphs are not searched (`None` is returned).
    pub max_intermediates: usize,
    /// Search nodes before giving up proving optimality.
    pub max_nodes: usize,
}

impl Default for SearchLimit {
    fn default() -> Self {
        SearchLimit { max_intermediates: 40, max_nodes: 2_000_000 }
    }
}

/// Best vertex elimination sequence found.
#[derive(Clone, Debug)]
pub struct Optimum {
    /// Multiplications under the requested cost model.
    pub cost: usize,
    pub sequence: Vec<VertexId>,
    /// False when the node limit stopped the search (cost is then an upper bound).
    pub proven: bool,
    pub nodes: usize,
}

#[derive(Clone)]
struct Bits {
    pred: Vec<u128>,
    succ: Vec<u128>,
    /// Bit s of `unit_out[p]`: edge (p,s) is structurally ±1.
    unit_out: Vec<u128>,
    intermediates: u128,
}

fn bits(mut x: u128) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        if x == 0 {
            return None;
        }
        let i = x.trailing_zeros() as usize;
        x &= x - 1;
        Some(i)
    })
}

impl Bits {
    fn cost(&self, j: usize, model: CostModel) -> usize {
        let (p, s) = (self.pred[j], self.succ[j]);
        match model {
            CostModel::AllProducts => (p.count_ones() * s.count_ones()) as usize,
            CostModel::Multiplications => {
                let nonunit_in = bits(p).filter(|&i| self.unit_out[i] >> j & 1 == 0).count();
                let nonunit_out = (s & !self.unit_out[j]).count_ones() as usize;
                nonunit_in * nonunit_out
            }
        }
    }

    fn eliminate(&mut self, j: usize) {
        let (pj, sj) = (self.pred[j], self.succ[j]);
        let jbit = 1u128 << j;
        for p in bits(pj) {
            let existing = self.succ[p] & sj;
            let fill = sj & !self.succ[p];
            let unit_in = self.unit_out[p] & jbit != 0;
            self.unit_out[p] &= !existing; // absorption makes a sum
            if unit_in {
                self.unit_out[p] |= fill & self.unit_out[j];
            }
            self.succ[p] = (self.succ[p] | sj) & !jbit;
            self.unit_out[p] &= !jbit;
        }
        for s in bits(sj) {
            self.pred[s] = (self.pred[s] | pj) & !jbit;
        }
        self.pred[j] = 0;
        self.succ[j] = 0;
        self.intermediates &= !jbit;
    }
}

struct Search {
    model: CostModel,
    /// Dependents reachable from each independent (final Jacobian pattern).
    reach: Vec<(usize, u128)>,
    use_entry_bound: bool,
    memo: HashMap<u128, usize>,
    best: usize,
    best_seq: Vec<usize>,
    nodes: usize,
    max_nodes: usize,
    path: Vec<usize>,
}

impl Search {
    fn lower_bound(&self, s: &Bits) -> usize {
        if !self.use_entry_bound {
            return 0;
        }
        let missing: usize = self.reach.iter().map(|&(x, r)| (r & !s.succ[x]).count_ones() as usize).sum();
        missing.max(s.intermediates.count_ones() as usize)
    }

    fn dfs(&mut self, s: &Bits, eliminated: u128, cost: usize) {
        if s.intermediates == 0 {
            if cost < self.best {
                self.best = cost;
                self.best_seq = self.path.clone();
            }
            return;
        }
        if self.nodes >= self.max_nodes || cost + self.lower_bound(s) >= self.best {
            return;
        }
        match self.memo.get(&eliminated) {
            Some(&c) if c <= cost => return,
            _ => {
                self.memo.insert(eliminated, cost);
            }
        }
        self.nodes += 1;
        let mut children: Vec<(usize, usize)> = bits(s.intermediates).map(|j| (s.cost(j, self.model), j)).collect();
        children.sort_unstable();
        for (c, j) in children {
            if cost + c >= self.best {
                continue;
            }
            let mut next = s.clone();
            next.eliminate(j);
            self.path.push(j);
            self.dfs(&next, eliminated | 1u128 << j, cost + c);
            self.path.pop();
        }
    }
}

/// The cheapest vertex elimination sequence, or `None` when the graph has
/// more intermediates than `limit.max_intermediates` or more than 128
/// vertices.  Starts from the best heuristic sequence as upper bound.
pub fn optimal_vertex_elimination(
    graph: &LinearizedGraph,
    model: CostModel,
    limit: SearchLimit,
) -> Result<Option<Optimum>, EliminationError> {
    let mut labels = Labels::new();
    let w = WorkGraph::build(graph, &mut labels)?;
    let alive: Vec<u32> = (0..w.role.len() as u32).filter(|v| w.role[*v as usize] != Role::Removed).collect();
    if alive.len() > 128 || w.intermediates > limit.max_intermediates {
        return Ok(None);
    }
    let mut index = vec![usize::MAX; w.role.len()];
    for (k, &v) in alive.iter().enumerate() {
        index[v as usize] = k;
    }
    let m = alive.len();
    let mut s = Bits { pred: vec![0; m], succ: vec![0; m], unit_out: vec![0; m], intermediates: 0 };
    let mut any_unit = false;
    for (&(a, b), &l) in &w.label {
        let (i, k) = (index[a as usize], index[b as usize]);
        s.succ[i] |= 1u128 << k;
        s.pred[k] |= 1u128 << i;
        if labels.is_unit(l) {
            s.unit_out[i] |= 1u128 << k;
            any_unit = true;
        }
    }
    for (k, &v) in alive.iter().enumerate() {
        if w.role[v as usize] == Role::Intermediate {
            s.intermediates |= 1u128 << k;
        }
    }
    // final pattern: dependents reachable from each independent
    let mut reach_all = vec![0u128; m];
    let mut order: Vec<usize> = (0..m).collect();
    order.sort_by_key(|&k| std::cmp::Reverse(w.topo[alive[k] as usize]));
    for &k in &order {
        let v = alive[k];
        let mut r = if w.role[v as usize] == Role::Dependent { 1u128 << k } else { 0 };
        for t in bits(s.succ[k]) {
            r |= reach_all[t];
        }
        reach_all[k] = r;
    }
    let reach: Vec<(usize, u128)> = (0..m)
        .filter(|&k| w.role[alive[k] as usize] == Role::Independent)
        .map(|k| (k, reach_all[k]))
        .collect();

    // upper bound from the heuristics
    let mut best = usize::MAX;
    let mut best_seq = Vec::new();
    for cand in default_candidates(&[Method::Vertex]) {
        let e = eliminate(graph, cand.method, &cand.chain)?;
        let c = model.multiplications(&e.counts);
        if c < best {
            best = c;
            best_seq = e
                .steps
                .iter()
                .map(|st| match st {
                    Step::Vertex(v) => index[v.0 as usize],
                    _ => unreachable!("vertex candidates only"),
                })
                .collect();
        }
    }
    // counts include additions from merging parallel edges, never products
    let mut search = Search {
        model,
        reach,
        use_entry_bound: model == CostModel::AllProducts || !any_unit,
        memo: HashMap::new(),
        best,
        best_seq,
        nodes: 0,
        max_nodes: limit.max_nodes,
        path: Vec::new(),
    };
    search.dfs(&s, 0, 0);
    Ok(Some(Optimum {
        cost: search.best,
        sequence: search.best_seq.iter().map(|&k| VertexId(alive[k])).collect(),
        proven: search.nodes < search.max_nodes,
        nodes: search.nodes,
    }))
}
