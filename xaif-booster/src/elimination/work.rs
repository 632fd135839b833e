//! The working graph on which vertex and edge eliminations operate.
//!
//! Built from a [`LinearizedGraph`] by normalising it the way paper 002
//! prescribes: parallel edges are summed, every dependent that is not a sink
//! (non-maximal dependent) or that is also an independent (collapsed vertex)
//! gets an auxiliary sink copy `v'` joined by a unit edge, and vertices that
//! cannot lie on an independent→dependent path are dropped.  Afterwards the
//! independents are exactly the sources with a role `Independent`, the
//! dependents exactly the sinks, and everything else is an eliminable
//! intermediate.

use std::collections::{BinaryHeap, HashMap};
use std::hash::{BuildHasherDefault, Hasher};

use super::graph::{LinearizedGraph, VertexId};
use super::label::{LabelId, Labels};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Role {
    Independent,
    Intermediate,
    Dependent,
    Removed,
}

/// Errors of the elimination engine.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EliminationError {
    #[error("the graph has a cycle through vertex {0}")]
    Cycle(VertexId),
    #[error("vertex {0} is not an intermediate vertex of the current graph")]
    NotIntermediate(VertexId),
    #[error("edge {0} -> {1} does not exist or cannot be eliminated in that direction")]
    NotEliminableEdge(VertexId, VertexId),
    #[error("face {0} -> {1} is not an edge between intermediate line-graph vertices")]
    NotEliminableFace(u32, u32),
    #[error("vertex and edge eliminations cannot follow face eliminations")]
    AfterFaces,
    #[error("the elimination is not complete: intermediate vertices remain")]
    Incomplete,
    #[error(
        "unknown heuristic `{0}` (known: forward, reverse, markowitz, relative-markowitz, sibling)"
    )]
    UnknownHeuristic(String),
    #[error("unknown method `{0}` (known: vertex, edge, face)")]
    UnknownMethod(String),
}

#[derive(Clone, Debug)]
pub(crate) struct WorkGraph {
    pub role: Vec<Role>,
    /// Sorted predecessor / successor lists.
    pub pred: Vec<Vec<u32>>,
    pub succ: Vec<Vec<u32>>,
    pub label: PairMap<LabelId>,
    /// Position in a fixed topological order; eliminations never invalidate it.
    pub topo: Vec<u32>,
    /// Vertices in that order.
    pub by_topo: Vec<u32>,
    /// The caller's vertex a (possibly auxiliary) vertex stands for.
    pub origin: Vec<u32>,
    pub intermediates: usize,
    /// What changed since the incremental selector last looked.
    pub log: ChangeLog,
}

/// Changes of a [`WorkGraph`] recorded for the incremental selector
/// (`selector.rs`), so that it re-evaluates only the targets a step touched.
#[derive(Clone, Debug, Default)]
pub(crate) struct ChangeLog {
    pub enabled: bool,
    /// Vertices whose neighbours, incident labels or role changed.
    pub touched: Vec<u32>,
    /// Edges created or removed (their existence matters to relative Markowitz).
    pub edges: Vec<(u32, u32)>,
}

impl ChangeLog {
    fn edge(&mut self, s: u32, d: u32, existence: bool) {
        if self.enabled {
            self.touched.push(s);
            self.touched.push(d);
            if existence {
                self.edges.push((s, d));
            }
        }
    }

    /// Start recording from an empty log.
    pub fn start(&mut self) {
        self.enabled = true;
        self.touched.clear();
        self.edges.clear();
    }

    pub fn stop(&mut self) {
        *self = ChangeLog::default();
    }
}

/// A map keyed by vertex pairs.  Edge lookups are the inner loop of every
/// elimination, and the keys are not attacker-controlled, so a multiplicative
/// hash replaces the (much slower) default SipHash.
pub(crate) type PairMap<V> = HashMap<(u32, u32), V, BuildHasherDefault<PairHasher>>;

#[derive(Default)]
pub(crate) struct PairHasher(u64);

impl Hasher for PairHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u32(u32::from(b));
        }
    }
    fn write_u32(&mut self, x: u32) {
        self.0 = (self.0.rotate_left(26) ^ u64::from(x)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
}

pub(crate) fn insert_sorted(v: &mut Vec<u32>, x: u32) {
    if let Err(pos) = v.binary_search(&x) {
        v.insert(pos, x);
    }
}

pub(crate) fn remove_sorted(v: &mut Vec<u32>, x: u32) {
    if let Ok(pos) = v.binary_search(&x) {
        v.remove(pos);
    }
}

/// Size of the intersection of two sorted lists.
pub(crate) fn intersection_len(a: &[u32], b: &[u32]) -> usize {
    let (mut i, mut j, mut n) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                n += 1;
                i += 1;
                j += 1;
            }
        }
    }
    n
}

impl WorkGraph {
    pub fn build(
        graph: &LinearizedGraph,
        labels: &mut Labels,
    ) -> Result<WorkGraph, EliminationError> {
        let n = graph.vertex_count();
        let mut w = WorkGraph {
            role: (0..n as u32)
                .map(|v| {
                    if graph.is_independent(VertexId(v)) {
                        Role::Independent
                    } else {
                        Role::Intermediate
                    }
                })
                .collect(),
            pred: vec![Vec::new(); n],
            succ: vec![Vec::new(); n],
            label: PairMap::with_capacity_and_hasher(graph.edge_count() * 2, Default::default()),
            topo: Vec::new(),
            by_topo: Vec::new(),
            origin: (0..n as u32).collect(),
            intermediates: 0,
            log: ChangeLog::default(),
        };
        for &(s, d, l) in graph.edges() {
            let id = labels.input(l);
            w.accumulate_edge(labels, s.0, d.0, id);
        }
        for v in 0..n as u32 {
            if !graph.is_dependent(VertexId(v)) {
                continue;
            }
            if w.role[v as usize] == Role::Independent || !w.succ[v as usize].is_empty() {
                // keep v's Jacobian row on a separate sink joined by a unit edge
                let copy = w.role.len() as u32;
                w.role.push(Role::Dependent);
                w.pred.push(Vec::new());
                w.succ.push(Vec::new());
                w.origin.push(v);
                w.accumulate_edge(labels, v, copy, Labels::ONE);
            } else {
                w.role[v as usize] = Role::Dependent;
            }
        }
        w.topo = w.topological_positions()?;
        w.by_topo = vec![0; w.topo.len()];
        for (v, &t) in w.topo.iter().enumerate() {
            w.by_topo[t as usize] = v as u32;
        }
        let all: Vec<u32> = (0..w.role.len() as u32).collect();
        w.remove_isolated(all);
        w.intermediates = w.role.iter().filter(|r| **r == Role::Intermediate).count();
        Ok(w)
    }

    /// Insert an edge, or add the label to an existing one (absorption).
    pub fn accumulate_edge(&mut self, labels: &mut Labels, s: u32, d: u32, l: LabelId) {
        match self.label.get_mut(&(s, d)) {
            Some(old) => {
                *old = labels.add(*old, l);
                self.log.edge(s, d, false);
            }
            None => {
                self.log.edge(s, d, true);
                self.label.insert((s, d), l);
                insert_sorted(&mut self.succ[s as usize], d);
                insert_sorted(&mut self.pred[d as usize], s);
            }
        }
    }

    pub fn remove_edge(&mut self, s: u32, d: u32) -> Option<LabelId> {
        let l = self.label.remove(&(s, d))?;
        self.log.edge(s, d, true);
        remove_sorted(&mut self.succ[s as usize], d);
        remove_sorted(&mut self.pred[d as usize], s);
        Some(l)
    }

    pub fn edge_label(&self, s: u32, d: u32) -> LabelId {
        self.label[&(s, d)]
    }

    pub fn has_edge(&self, s: u32, d: u32) -> bool {
        self.label.contains_key(&(s, d))
    }

    /// The product `c_sj * c_jp` lands on edge (p, s): fill-in or absorption.
    pub fn add_product(&mut self, labels: &mut Labels, p: u32, j: u32, s: u32) {
        let product = labels.mul(self.edge_label(j, s), self.edge_label(p, j));
        self.accumulate_edge(labels, p, s, product);
    }

    pub fn is_intermediate(&self, v: u32) -> bool {
        self.role.get(v as usize) == Some(&Role::Intermediate)
    }

    /// Remove a vertex and its incident edges.
    pub fn remove_vertex(&mut self, v: u32) {
        if self.log.enabled {
            self.log.touched.push(v);
        }
        for p in std::mem::take(&mut self.pred[v as usize]) {
            remove_sorted(&mut self.succ[p as usize], v);
            self.label.remove(&(p, v));
            self.log.edge(p, v, true);
        }
        for s in std::mem::take(&mut self.succ[v as usize]) {
            remove_sorted(&mut self.pred[s as usize], v);
            self.label.remove(&(v, s));
            self.log.edge(v, s, true);
        }
        if self.role[v as usize] == Role::Intermediate {
            self.intermediates -= 1;
        }
        self.role[v as usize] = Role::Removed;
    }

    /// Remove intermediates without predecessors or successors, and whatever
    /// becomes isolated as a consequence.
    pub fn remove_isolated(&mut self, mut work: Vec<u32>) {
        while let Some(v) = work.pop() {
            let vi = v as usize;
            if self.role[vi] != Role::Intermediate
                || (!self.pred[vi].is_empty() && !self.succ[vi].is_empty())
            {
                continue;
            }
            work.extend(self.pred[vi].iter().chain(self.succ[vi].iter()).copied());
            self.remove_vertex(v);
        }
    }

    fn topological_positions(&self) -> Result<Vec<u32>, EliminationError> {
        let n = self.role.len();
        let mut indegree: Vec<usize> = self.pred.iter().map(|p| p.len()).collect();
        // smallest id first among ready vertices: deterministic and close to code order
        let mut ready: BinaryHeap<std::cmp::Reverse<u32>> = (0..n as u32)
            .filter(|v| indegree[*v as usize] == 0)
            .map(std::cmp::Reverse)
            .collect();
        let mut topo = vec![u32::MAX; n];
        let mut next = 0;
        while let Some(std::cmp::Reverse(v)) = ready.pop() {
            topo[v as usize] = next;
            next += 1;
            for &s in &self.succ[v as usize] {
                indegree[s as usize] -= 1;
                if indegree[s as usize] == 0 {
                    ready.push(std::cmp::Reverse(s));
                }
            }
        }
        match topo.iter().position(|t| *t == u32::MAX) {
            Some(v) => Err(EliminationError::Cycle(VertexId(v as u32))),
            None => Ok(topo),
        }
    }

    /// Vertex pairs (p, s) among `ps` × `ss` that are not yet edges.
    pub fn missing_edges(&self, ps: &[u32], ss: &[u32]) -> usize {
        let mut n = 0;
        for &p in ps {
            for &s in ss {
                if !self.has_edge(p, s) {
                    n += 1;
                }
            }
        }
        n
    }
}
