//! Face elimination on the directed line graph (paper 000).
//!
//! The line graph has one vertex per edge `(a,b)` of the computational graph
//! (an *intermediate* line vertex carrying `c_ba`), one *source* vertex per
//! independent and one *sink* vertex per dependent; line vertices are joined
//! when the underlying edges are adjacent.  Eliminating the face `(i,j)`
//! between two intermediate line vertices:
//! 1. if a vertex `k` with `P_k = P_i` and `S_k = S_j` exists, `c_k += c_j*c_i`
//!    (absorption), otherwise a new vertex with those neighbours and label
//!    `c_j*c_i` is created (fill-in);
//! 2. the edge `(i,j)` is removed;
//! 3. `i` is removed if isolated (no predecessors or no successors), otherwise
//!    merged with any `i'` having the same predecessors and successors
//!    (`c_i += c_i'`, `i'` removed);
//! 4. the same for `j`.
//!
//! Every line vertex keeps the pair (a,c) of computational-graph vertices it
//! connects: all its predecessors end in `a` and all its successors start in
//! `c`, which gives a topological key for the forward and reverse filters and
//! maps the final tripartite graph back to the Jacobian.

use super::label::{LabelId, Labels};
use super::work::{insert_sorted, remove_sorted, Role, WorkGraph};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum LineKind {
    Source,
    Sink,
    Inner,
    Removed,
}

/// Marks the missing end of a source / sink line vertex.
pub(crate) const NO_VERTEX: u32 = u32::MAX;

#[derive(Clone, Debug)]
pub(crate) struct LineGraph {
    pub kind: Vec<LineKind>,
    /// Computational-graph vertices (a, c) the line vertex connects.
    pub ends: Vec<(u32, u32)>,
    pub label: Vec<LabelId>,
    pub pred: Vec<Vec<u32>>,
    pub succ: Vec<Vec<u32>>,
    /// Topological positions of the computational-graph vertices.
    pub topo: Vec<u32>,
    /// Computational-graph vertices in topological order.
    pub by_topo: Vec<u32>,
    /// Line vertices (ever) ending at each computational-graph vertex; may
    /// hold removed ones.  Faces through b start at these.
    pub ending_at: Vec<Vec<u32>>,
    /// What changed since the incremental selector last looked.
    pub log: LineLog,
}

/// Changes of a [`LineGraph`] recorded for the incremental selector
/// (`selector.rs`).
#[derive(Clone, Debug, Default)]
pub(crate) struct LineLog {
    pub enabled: bool,
    /// Also keep each touched vertex's neighbour lists from before its first
    /// change: relative Markowitz must know which twins stopped existing.
    pub snapshots: bool,
    marked: Vec<bool>,
    /// Line vertices whose neighbours, label or kind changed.
    pub touched: Vec<u32>,
    /// (vertex, was inner, predecessors, successors) before the first change.
    pub old: Vec<(u32, bool, Vec<u32>, Vec<u32>)>,
    /// Line-graph edges removed.
    pub removed: Vec<(u32, u32)>,
}

impl LineLog {
    /// Start recording from an empty log.
    pub fn start(&mut self, snapshots: bool) {
        *self = LineLog {
            enabled: true,
            snapshots,
            ..LineLog::default()
        };
    }

    pub fn stop(&mut self) {
        *self = LineLog::default();
    }

    /// Hand over what was recorded and start a new round.
    pub fn take(&mut self) -> LineLog {
        for &v in &self.touched {
            self.marked[v as usize] = false;
        }
        LineLog {
            enabled: self.enabled,
            snapshots: self.snapshots,
            marked: Vec::new(),
            touched: std::mem::take(&mut self.touched),
            old: std::mem::take(&mut self.old),
            removed: std::mem::take(&mut self.removed),
        }
    }
}

impl LineGraph {
    /// The line graph of the current state of a computational graph.
    pub fn from_work(w: &WorkGraph) -> LineGraph {
        let mut g = LineGraph {
            kind: Vec::new(),
            ends: Vec::new(),
            label: Vec::new(),
            pred: Vec::new(),
            succ: Vec::new(),
            topo: w.topo.clone(),
            by_topo: w.by_topo.clone(),
            ending_at: vec![Vec::new(); w.role.len()],
            log: LineLog::default(),
        };
        let n = w.role.len();
        // line vertex of each edge, and of the source/sink attachments
        let mut in_lines: Vec<Vec<u32>> = vec![Vec::new(); n];
        let mut out_lines: Vec<Vec<u32>> = vec![Vec::new(); n];
        for v in 0..n as u32 {
            match w.role[v as usize] {
                Role::Independent => {
                    let id = g.push(LineKind::Source, (NO_VERTEX, v), Labels::ONE);
                    in_lines[v as usize].push(id);
                }
                Role::Dependent => {
                    let id = g.push(LineKind::Sink, (v, NO_VERTEX), Labels::ONE);
                    out_lines[v as usize].push(id);
                }
                _ => {}
            }
        }
        for a in 0..n as u32 {
            for &b in &w.succ[a as usize] {
                let id = g.push(LineKind::Inner, (a, b), w.edge_label(a, b));
                out_lines[a as usize].push(id);
                in_lines[b as usize].push(id);
            }
        }
        for v in 0..n {
            for &i in &in_lines[v] {
                for &o in &out_lines[v] {
                    g.succ[i as usize].push(o);
                    g.pred[o as usize].push(i);
                }
            }
        }
        for list in g.succ.iter_mut().chain(g.pred.iter_mut()) {
            list.sort_unstable();
        }
        g
    }

    fn push(&mut self, kind: LineKind, ends: (u32, u32), label: LabelId) -> u32 {
        self.kind.push(kind);
        self.ends.push(ends);
        self.label.push(label);
        self.pred.push(Vec::new());
        self.succ.push(Vec::new());
        let id = self.kind.len() as u32 - 1;
        if kind == LineKind::Inner {
            self.ending_at[ends.1 as usize].push(id);
        }
        id
    }

    pub fn is_inner(&self, v: u32) -> bool {
        self.kind.get(v as usize) == Some(&LineKind::Inner)
    }

    /// Whether some face starts at line vertex `i`.
    pub fn has_face(&self, i: u32) -> bool {
        self.is_inner(i) && self.succ[i as usize].iter().any(|j| self.is_inner(*j))
    }

    pub fn is_face(&self, i: u32, j: u32) -> bool {
        self.is_inner(i) && self.is_inner(j) && self.succ[i as usize].binary_search(&j).is_ok()
    }

    /// All eliminable faces, in line-vertex order.
    pub fn faces(&self) -> Vec<(u32, u32)> {
        let mut out = Vec::new();
        for i in 0..self.kind.len() as u32 {
            if self.kind[i as usize] != LineKind::Inner {
                continue;
            }
            for &j in &self.succ[i as usize] {
                if self.kind[j as usize] == LineKind::Inner {
                    out.push((i, j));
                }
            }
        }
        out
    }

    /// Record `v` as changed (before the change, for the snapshot).
    fn touch(&mut self, v: u32) {
        let log = &mut self.log;
        if !log.enabled {
            return;
        }
        let vi = v as usize;
        if log.marked.len() <= vi {
            log.marked.resize(self.kind.len().max(vi + 1), false);
        }
        if log.marked[vi] {
            return;
        }
        log.marked[vi] = true;
        log.touched.push(v);
        if log.snapshots {
            log.old.push((
                v,
                self.kind[vi] == LineKind::Inner,
                self.pred[vi].clone(),
                self.succ[vi].clone(),
            ));
        }
    }

    /// Remove the line-graph edge `x -> y`.
    fn unlink(&mut self, x: u32, y: u32) {
        self.touch(x);
        self.touch(y);
        if self.log.enabled {
            self.log.removed.push((x, y));
        }
        remove_sorted(&mut self.succ[x as usize], y);
        remove_sorted(&mut self.pred[y as usize], x);
    }

    /// An inner vertex other than `exclude` with exactly these neighbours.
    fn find_twin(&self, preds: &[u32], succs: &[u32], exclude: u32) -> Option<u32> {
        self.twin_candidates(preds, succs)
            .iter()
            .copied()
            .find(|&k| k != exclude && self.has_ends(k, preds, succs))
    }

    /// Where a vertex with these neighbours must be: among the successors
    /// of each predecessor and the predecessors of each successor; the
    /// shortest of those lists (no global scan).
    pub fn twin_candidates(&self, preds: &[u32], succs: &[u32]) -> &[u32] {
        let lists = preds
            .iter()
            .map(|&p| &self.succ[p as usize])
            .chain(succs.iter().map(|&s| &self.pred[s as usize]));
        lists.min_by_key(|l| l.len()).map_or(&[], |l| l.as_slice())
    }

    /// Whether `k` is an inner vertex with exactly these neighbours.
    pub fn has_ends(&self, k: u32, preds: &[u32], succs: &[u32]) -> bool {
        let (kp, ks) = (&self.pred[k as usize], &self.succ[k as usize]);
        kp.len() == preds.len()
            && ks.len() == succs.len()
            && kp.first() == preds.first()
            && ks.first() == succs.first()
            && self.kind[k as usize] == LineKind::Inner
            && kp == preds
            && ks == succs
    }

    pub fn eliminate_face(&mut self, labels: &mut Labels, i: u32, j: u32) {
        let product = labels.mul(self.label[j as usize], self.label[i as usize]);
        let preds = self.pred[i as usize].clone();
        let succs = self.succ[j as usize].clone();
        match self.find_twin(&preds, &succs, NO_VERTEX) {
            Some(k) => {
                self.touch(k);
                self.label[k as usize] = labels.add(self.label[k as usize], product)
            }
            None => {
                let ends = (self.ends[i as usize].0, self.ends[j as usize].1);
                let k = self.push(LineKind::Inner, ends, product);
                self.touch(k);
                for &p in &preds {
                    self.touch(p);
                    insert_sorted(&mut self.succ[p as usize], k);
                }
                for &s in &succs {
                    self.touch(s);
                    insert_sorted(&mut self.pred[s as usize], k);
                }
                self.pred[k as usize] = preds;
                self.succ[k as usize] = succs;
            }
        }
        self.unlink(i, j);
        self.settle(labels, i);
        self.settle(labels, j);
    }

    /// Step 3 of face elimination: remove if isolated, else merge a twin.
    fn settle(&mut self, labels: &mut Labels, v: u32) {
        if !self.is_inner(v) {
            return;
        }
        if self.pred[v as usize].is_empty() || self.succ[v as usize].is_empty() {
            let mut work = vec![v];
            while let Some(x) = work.pop() {
                if !self.is_inner(x)
                    || (!self.pred[x as usize].is_empty() && !self.succ[x as usize].is_empty())
                {
                    continue;
                }
                work.extend(
                    self.pred[x as usize]
                        .iter()
                        .chain(self.succ[x as usize].iter())
                        .copied(),
                );
                self.remove(x);
            }
            return;
        }
        let (preds, succs) = (self.pred[v as usize].clone(), self.succ[v as usize].clone());
        if let Some(twin) = self.find_twin(&preds, &succs, v) {
            self.touch(v);
            self.label[v as usize] = labels.add(self.label[v as usize], self.label[twin as usize]);
            self.remove(twin);
        }
    }

    fn remove(&mut self, v: u32) {
        self.touch(v);
        for p in self.pred[v as usize].clone() {
            self.unlink(p, v);
        }
        for s in self.succ[v as usize].clone() {
            self.unlink(v, s);
        }
        self.kind[v as usize] = LineKind::Removed;
    }

    /// Face Markowitz degree: the Markowitz degree of the middle vertex b of
    /// the path a→b→c as far as it is still uneliminated, |P_j|·|S_i| (the
    /// faces left into and out of b through this pair).
    pub fn face_markowitz(&self, i: u32, j: u32) -> i64 {
        (self.pred[j as usize].len() * self.succ[i as usize].len()) as i64
    }

    /// Net change in the number of line vertices: +1 for fill-in, −1 for each
    /// of `i`, `j` that becomes isolated.
    pub fn face_relative_markowitz(&self, i: u32, j: u32) -> i64 {
        let fill = self
            .find_twin(&self.pred[i as usize], &self.succ[j as usize], NO_VERTEX)
            .is_none() as i64;
        let i_gone = (self.succ[i as usize].len() == 1) as i64;
        let j_gone = (self.pred[j as usize].len() == 1) as i64;
        fill - i_gone - j_gone
    }

    /// Topological keys (middle vertex b of the path a→b→c first).
    pub fn face_forward_key(&self, i: u32, j: u32) -> [i64; 5] {
        let (a, b) = self.ends[i as usize];
        let c = self.ends[j as usize].1;
        [self.pos(b), self.pos(a), self.pos(c), i as i64, j as i64]
    }

    pub fn face_reverse_key(&self, i: u32, j: u32) -> [i64; 5] {
        let (a, b) = self.ends[i as usize];
        let c = self.ends[j as usize].1;
        [
            -self.pos(b),
            -self.pos(c),
            -self.pos(a),
            -(j as i64),
            -(i as i64),
        ]
    }

    fn pos(&self, v: u32) -> i64 {
        self.topo[v as usize] as i64
    }

    /// Remaining inner line vertices: (a, c, label); after a complete face
    /// elimination each connects an independent a with a dependent c.
    pub fn inner_vertices(&self) -> impl Iterator<Item = (u32, u32, LabelId)> + '_ {
        (0..self.kind.len())
            .filter(|v| self.kind[*v] == LineKind::Inner)
            .map(|v| (self.ends[v].0, self.ends[v].1, self.label[v]))
    }
}
