//! Optimal vertex elimination by branch and bound (small graphs only).
//!
//! The structure of the graph after eliminating a set of vertices does not
//! depend on the order (every remaining edge (i,k) stands for the paths from
//! i to k through eliminated vertices only), so the search memoises the
//! cheapest cost found for each eliminated set and prunes when a set is
//! reached again at no lower cost.
//!
//! Lower bound of the remaining cost (Menger): when `j` is eliminated its
//! predecessors separate the independents from `j` (every path ends in an
//! edge from its last uneliminated vertex), so `|P_j|` is at least the number
//! `a_j` of vertex-disjoint paths from the independents to `j` in the
//! original graph; likewise `|S_j| ≥ b_j` towards the dependents.  Hence the
//! remaining intermediates cost at least `Σ a_j·b_j`.  A second bound: every
//! Jacobian entry not yet present as an edge needs a product to create it.
//! Products with ±1 are free under [`CostModel::Multiplications`], so the
//! bounds are only used when the graph has no unit labels or all products
//! count.  States are bitsets (`u128`): at most 128 vertices after
//! normalisation.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use super::best_of::{default_candidates, CostModel};
use super::eliminator::{eliminate, Step};
use super::graph::{LinearizedGraph, VertexId};
use super::label::Labels;
use super::method::Method;
use super::work::{EliminationError, Role, WorkGraph};

/// Search limits.
#[derive(Clone, Copy, Debug)]
pub struct SearchLimit {
    /// Larger graphs are not searched (`None` is returned).
    pub max_intermediates: usize,
    /// Search nodes before giving up proving optimality.
    pub max_nodes: usize,
    /// Start from the best heuristic sequence as upper bound (off only to
    /// test the search on its own).
    pub heuristic_start: bool,
}

impl Default for SearchLimit {
    fn default() -> Self {
        SearchLimit {
            max_intermediates: 40,
            max_nodes: 2_000_000,
            heuristic_start: true,
        }
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

/// Multiplicative hash for the eliminated-set masks (SipHash dominated the search).
#[derive(Default)]
struct MaskHasher(u64);

impl Hasher for MaskHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.0 = (self.0.rotate_left(5) ^ u64::from_le_bytes(word))
                .wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
        }
    }
}

#[derive(Clone)]
pub(crate) struct Bits {
    pub pred: Vec<u128>,
    pub succ: Vec<u128>,
    /// Bit s of `unit_out[p]`: edge (p,s) is structurally ±1.
    pub unit_out: Vec<u128>,
    pub intermediates: u128,
}

pub(crate) fn bits(mut x: u128) -> impl Iterator<Item = usize> {
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
    /// Disjoint paths a_j (from independents) and b_j (to dependents).
    menger: Vec<(u32, u32)>,
    independents: u128,
    dependents: u128,
    /// Dependents reachable from each independent (final Jacobian pattern).
    reach: Vec<(usize, u128)>,
    use_entry_bound: bool,
    memo: HashMap<u128, usize, BuildHasherDefault<MaskHasher>>,
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
        let missing: usize = self
            .reach
            .iter()
            .map(|&(x, r)| (r & !s.succ[x]).count_ones() as usize)
            .sum();
        // edges from independents / into dependents stay until j goes
        // (an intermediate neighbour may be replaced by vertices j already has)
        let degree_bound = |set: u128, kept: u128, disjoint: u32| {
            (set & kept).count_ones().max(disjoint).max(1) as usize
        };
        let per_vertex: usize = bits(s.intermediates)
            .map(|j| {
                let (a, b) = self.menger[j];
                degree_bound(s.pred[j], self.independents, a)
                    * degree_bound(s.succ[j], self.dependents, b)
            })
            .sum();
        missing.max(per_vertex)
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
        let mut children: Vec<(usize, usize)> = bits(s.intermediates)
            .map(|j| (s.cost(j, self.model), j))
            .collect();
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
    let Some(c) = Compact::build(graph, limit)? else {
        return Ok(None);
    };
    let Compact {
        w,
        alive,
        index,
        bits: s,
        any_unit,
        reach,
        ..
    } = c;
    let m = alive.len();
    // upper bound from the heuristics
    let mut best = usize::MAX;
    let mut best_seq = Vec::new();
    let candidates = if limit.heuristic_start {
        default_candidates(&[Method::Vertex])
    } else {
        Vec::new()
    };
    for cand in candidates {
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
    let sources: Vec<usize> = (0..m)
        .filter(|&k| w.role[alive[k] as usize] == Role::Independent)
        .collect();
    let sinks: Vec<usize> = (0..m)
        .filter(|&k| w.role[alive[k] as usize] == Role::Dependent)
        .collect();
    let menger = (0..m)
        .map(|j| {
            if s.intermediates >> j & 1 == 0 {
                return (0, 0);
            }
            (
                disjoint_paths(&s.succ, &sources, j) as u32,
                disjoint_paths(&s.pred, &sinks, j) as u32,
            )
        })
        .collect();
    let mask = |set: &[usize]| set.iter().fold(0u128, |acc, &k| acc | 1u128 << k);
    let mut search = Search {
        model,
        menger,
        independents: mask(&sources),
        dependents: mask(&sinks),
        reach,
        use_entry_bound: model == CostModel::AllProducts || !any_unit,
        memo: HashMap::default(),
        best,
        best_seq,
        nodes: 0,
        max_nodes: limit.max_nodes,
        path: Vec::new(),
    };
    search.dfs(&s, 0, 0);
    Ok(Some(Optimum {
        cost: search.best,
        sequence: search
            .best_seq
            .iter()
            .map(|&k| VertexId(alive[k]))
            .collect(),
        proven: search.nodes < search.max_nodes,
        nodes: search.nodes,
    }))
}

/// Number of paths from `sources` to `target` that share no vertex except
/// `target` (unit vertex capacities; max flow by augmenting paths on the
/// split graph: vertex v is node 2v (in) and 2v+1 (out)).
fn disjoint_paths(succ: &[u128], sources: &[usize], target: usize) -> usize {
    let m = succ.len();
    let n = 2 * m + 1;
    let super_source = 2 * m;
    let mut cap = vec![0i32; n * n];
    let big = m as i32 + 1;
    for v in 0..m {
        cap[2 * v * n + 2 * v + 1] = if v == target { big } else { 1 };
        for t in bits(succ[v]) {
            cap[(2 * v + 1) * n + 2 * t] = big;
        }
    }
    for &x in sources {
        cap[super_source * n + 2 * x] = 1;
    }
    let sink = 2 * target; // paths end on entering the target
    let mut flow = 0;
    loop {
        let mut parent = vec![usize::MAX; n];
        parent[super_source] = super_source;
        let mut queue = std::collections::VecDeque::from([super_source]);
        while let Some(u) = queue.pop_front() {
            if u == sink {
                break;
            }
            for v in 0..n {
                if parent[v] == usize::MAX && cap[u * n + v] > 0 {
                    parent[v] = u;
                    queue.push_back(v);
                }
            }
        }
        if parent[sink] == usize::MAX {
            return flow;
        }
        let mut v = sink;
        while v != super_source {
            let u = parent[v];
            cap[u * n + v] -= 1;
            cap[v * n + u] += 1;
            v = u;
        }
        flow += 1;
    }
}

/// The normalised graph as bitsets over its live vertices (shared by the
/// vertex and edge searches).
pub(crate) struct Compact {
    pub w: WorkGraph,
    /// Live vertex ids of `w`, and the compact index of each `w` vertex.
    pub alive: Vec<u32>,
    pub index: Vec<usize>,
    pub bits: Bits,
    pub any_unit: bool,
    /// Dependents reachable from each independent (final Jacobian pattern).
    pub reach: Vec<(usize, u128)>,
}

impl Compact {
    pub fn build(
        graph: &LinearizedGraph,
        limit: SearchLimit,
    ) -> Result<Option<Compact>, EliminationError> {
        let mut labels = Labels::new();
        let w = WorkGraph::build(graph, &mut labels)?;
        let alive: Vec<u32> = (0..w.role.len() as u32)
            .filter(|v| w.role[*v as usize] != Role::Removed)
            .collect();
        if alive.len() > 128 || w.intermediates > limit.max_intermediates {
            return Ok(None);
        }
        let mut index = vec![usize::MAX; w.role.len()];
        for (k, &v) in alive.iter().enumerate() {
            index[v as usize] = k;
        }
        let m = alive.len();
        let mut s = Bits {
            pred: vec![0; m],
            succ: vec![0; m],
            unit_out: vec![0; m],
            intermediates: 0,
        };
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
            let mut r = if w.role[v as usize] == Role::Dependent {
                1u128 << k
            } else {
                0
            };
            for t in bits(s.succ[k]) {
                r |= reach_all[t];
            }
            reach_all[k] = r;
        }
        let reach: Vec<(usize, u128)> = (0..m)
            .filter(|&k| w.role[alive[k] as usize] == Role::Independent)
            .map(|k| (k, reach_all[k]))
            .collect();

        Ok(Some(Compact {
            w,
            alive,
            index,
            bits: s,
            any_unit,
            reach,
        }))
    }
}
