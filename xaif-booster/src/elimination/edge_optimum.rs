//! Optimal edge elimination (front and back) by branch and bound, for tiny
//! graphs.
//!
//! Unlike vertex elimination, the graph after a set of edge eliminations
//! depends on the order, so states are memoised by their whole structure
//! (successor and unit bitsets).  Lower bound of the remaining cost, valid
//! when all products count or no label is ±1: each step isolates at most one
//! intermediate and costs at least one product, and every Jacobian entry not
//! yet present as an edge needs a product to create it.

use std::collections::HashMap;

use super::best_of::{default_candidates, CostModel};
use super::eliminator::{eliminate, Step};
use super::graph::{LinearizedGraph, VertexId};
use super::method::Method;
use super::optimum::{bits, Bits, Compact, SearchLimit};
use super::work::EliminationError;

/// Best edge elimination sequence found.
#[derive(Clone, Debug)]
pub struct EdgeOptimum {
    pub cost: usize,
    /// Front and back edge eliminations, replayable with [`super::Eliminator`].
    pub steps: Vec<Step>,
    /// False when the node limit stopped the search.
    pub proven: bool,
    pub nodes: usize,
}

#[derive(Clone, Copy, Debug)]
enum EdgeStep {
    Front(usize, usize),
    Back(usize, usize),
}

impl Bits {
    fn is_unit(&self, i: usize, j: usize) -> bool {
        self.unit_out[i] >> j & 1 == 1
    }

    /// Product (p, s) of the edges (p, j) and (j, s): cost, then fill-in or
    /// absorption.
    fn edge_product(&mut self, p: usize, j: usize, s: usize, model: CostModel) -> usize {
        let unit = (self.is_unit(p, j), self.is_unit(j, s));
        let cost = match model {
            CostModel::AllProducts => 1,
            CostModel::Multiplications => usize::from(!unit.0 && !unit.1),
        };
        let bit = 1u128 << s;
        if self.succ[p] & bit != 0 {
            self.unit_out[p] &= !bit;
        } else {
            self.succ[p] |= bit;
            self.pred[s] |= 1u128 << p;
            if unit.0 && unit.1 {
                self.unit_out[p] |= bit;
            }
        }
        cost
    }

    fn remove_edge(&mut self, i: usize, j: usize) {
        self.succ[i] &= !(1u128 << j);
        self.unit_out[i] &= !(1u128 << j);
        self.pred[j] &= !(1u128 << i);
    }

    fn isolate_if_needed(&mut self, j: usize) {
        if self.intermediates >> j & 1 == 0 || (self.pred[j] != 0 && self.succ[j] != 0) {
            return;
        }
        for p in bits(self.pred[j]) {
            self.remove_edge(p, j);
        }
        for s in bits(self.succ[j]) {
            self.remove_edge(j, s);
        }
        self.intermediates &= !(1u128 << j);
    }

    fn apply(&mut self, step: EdgeStep, model: CostModel) -> usize {
        let mut cost = 0;
        match step {
            EdgeStep::Front(i, j) => {
                for k in bits(self.succ[j]) {
                    cost += self.edge_product(i, j, k, model);
                }
                self.remove_edge(i, j);
                self.isolate_if_needed(j);
            }
            EdgeStep::Back(j, k) => {
                for i in bits(self.pred[j]) {
                    cost += self.edge_product(i, j, k, model);
                }
                self.remove_edge(j, k);
                self.isolate_if_needed(j);
            }
        }
        cost
    }

    fn edge_steps(&self) -> Vec<EdgeStep> {
        let mut out = Vec::new();
        for j in bits(self.intermediates) {
            out.extend(bits(self.pred[j]).map(|i| EdgeStep::Front(i, j)));
            out.extend(bits(self.succ[j]).map(|k| EdgeStep::Back(j, k)));
        }
        out
    }
}

struct EdgeSearch {
    model: CostModel,
    reach: Vec<(usize, u128)>,
    use_bound: bool,
    memo: HashMap<Vec<u128>, usize>,
    best: usize,
    best_path: Vec<EdgeStep>,
    path: Vec<EdgeStep>,
    nodes: usize,
    max_nodes: usize,
}

impl EdgeSearch {
    fn lower_bound(&self, s: &Bits) -> usize {
        if !self.use_bound {
            return 0;
        }
        let missing: usize = self
            .reach
            .iter()
            .map(|&(x, r)| (r & !s.succ[x]).count_ones() as usize)
            .sum();
        missing.max(s.intermediates.count_ones() as usize)
    }

    fn dfs(&mut self, s: &Bits, cost: usize) {
        if s.intermediates == 0 {
            if cost < self.best {
                self.best = cost;
                self.best_path = self.path.clone();
            }
            return;
        }
        if self.nodes >= self.max_nodes || cost + self.lower_bound(s) >= self.best {
            return;
        }
        let key: Vec<u128> = s.succ.iter().chain(s.unit_out.iter()).copied().collect();
        match self.memo.get(&key) {
            Some(&c) if c <= cost => return,
            _ => {
                self.memo.insert(key, cost);
            }
        }
        self.nodes += 1;
        let mut children: Vec<(usize, Bits, EdgeStep)> = s
            .edge_steps()
            .into_iter()
            .map(|step| {
                let mut next = s.clone();
                let c = next.apply(step, self.model);
                (c, next, step)
            })
            .collect();
        children.sort_by_key(|(c, _, _)| *c);
        for (c, next, step) in children {
            if cost + c >= self.best {
                continue;
            }
            self.path.push(step);
            self.dfs(&next, cost + c);
            self.path.pop();
        }
    }
}

/// The cheapest edge elimination sequence for graphs within `limit` (and at
/// most 128 vertices); `None` otherwise.  Only practical for about a dozen
/// edges between intermediates.
pub fn optimal_edge_elimination(
    graph: &LinearizedGraph,
    model: CostModel,
    limit: SearchLimit,
) -> Result<Option<EdgeOptimum>, EliminationError> {
    let Some(c) = Compact::build(graph, limit)? else {
        return Ok(None);
    };
    let mut best = usize::MAX;
    let mut best_steps = Vec::new();
    if limit.heuristic_start {
        for cand in default_candidates(&[Method::Edge]) {
            let e = eliminate(graph, cand.method, &cand.chain)?;
            let cost = model.multiplications(&e.counts);
            if cost < best && e.steps.iter().all(|s| !matches!(s, Step::Vertex(_))) {
                best = cost;
                best_steps = e.steps.clone();
            }
        }
    }
    let mut search = EdgeSearch {
        model,
        reach: c.reach.clone(),
        use_bound: model == CostModel::AllProducts || !c.any_unit,
        memo: HashMap::new(),
        best,
        best_path: Vec::new(),
        path: Vec::new(),
        nodes: 0,
        max_nodes: limit.max_nodes,
    };
    search.dfs(&c.bits, 0);
    let id = |k: usize| VertexId(c.alive[k]);
    let steps = if search.best_path.is_empty() && search.best == best {
        best_steps
    } else {
        search
            .best_path
            .iter()
            .map(|st| match *st {
                EdgeStep::Front(i, j) => Step::FrontEdge(id(i), id(j)),
                EdgeStep::Back(j, k) => Step::BackEdge(id(j), id(k)),
            })
            .collect()
    };
    Ok(Some(EdgeOptimum {
        cost: search.best,
        steps,
        proven: search.nodes < search.max_nodes,
        nodes: search.nodes,
    }))
}
