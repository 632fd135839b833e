//! Incremental target selection for heuristic chains.
//!
//! A chain selects the lexicographic minimum of the targets' filter keys:
//! each filter keeps the minimum of its key, `forward` breaks the remaining
//! ties (its key is unique), and `sibling` keeps the maximum degree when it
//! is positive.  Instead of listing and scoring every target at every step
//! (O(steps × targets), the reference [`Chain::select`]), the selector keeps
//! all targets in an ordered set under their keys and, after a step,
//! re-scores only the targets whose key can have changed.  The graphs record
//! what a step touched (`ChangeLog`, `LineLog`); from that:
//!
//! * vertex and edge targets: a target at intermediate `j` (vertex `j`,
//!   front `(i,j)`, back `(j,k)`) depends on `j`'s neighbours and incident
//!   labels, and (relative Markowitz) on which edges join `P_j` to `S_j`.
//!   So the targets at every touched vertex are re-scored, plus those at the
//!   vertices `x` on a path `a → x → b` for every edge `(a,b)` created or
//!   removed;
//! * face targets `(x,y)`: the faces at every touched line vertex, and
//!   (relative Markowitz, which asks whether a line vertex with `P = P_x`,
//!   `S = S_y` exists) the faces `(x,y)` matching the old or new neighbour
//!   lists of every touched line vertex.
//!
//! `sibling` depends on the previous step, so it is not part of the stored
//! key: its candidates with a positive degree are enumerated from the
//! previous step's vertex sets.  The selected target is always the one
//! [`Chain::select`] picks; chains the selector does not plan (two sibling
//! filters, more than [`SLOTS`] key slots) use that reference directly.

use std::collections::BTreeSet;

use super::face::LineGraph;
use super::heuristics::{Chain, Filter, Space, StepSets, Target};
use super::label::Labels;
use super::method::Method;
use super::work::{intersection_len, PairMap, WorkGraph};

/// Key slots available: 1 per scalar filter, 3 for `forward` / `reverse`
/// (their five components packed, see [`pack`]).
const SLOTS: usize = 8;
type Key = [i64; SLOTS];

/// The chain as an ordering key plus where the sibling filter applies.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Plan {
    /// Filters whose keys order the targets, in chain order, ending with
    /// `forward` or `reverse` (whose keys are unique: later filters never
    /// matter).  Sibling excluded.
    keyed: Vec<Filter>,
    /// The number of key slots of the filters before the sibling filter.
    sibling_after: Option<usize>,
}

fn width(f: Filter) -> usize {
    match f {
        Filter::Forward | Filter::Reverse => 3,
        Filter::Sibling => 0,
        _ => 1,
    }
}

impl Plan {
    fn of(chain: &Chain) -> Option<Plan> {
        let (mut keyed, mut sibling_after, mut slots) = (Vec::new(), None, 0);
        for &f in &chain.0 {
            if f == Filter::Sibling {
                if sibling_after.is_some() {
                    return None;
                }
                sibling_after = Some(slots);
                continue;
            }
            keyed.push(f);
            slots += width(f);
            if matches!(f, Filter::Forward | Filter::Reverse) {
                break;
            }
        }
        if !matches!(keyed.last(), Some(Filter::Forward | Filter::Reverse)) {
            keyed.push(Filter::Forward);
            slots += width(Filter::Forward);
        }
        (slots <= SLOTS).then_some(Plan {
            keyed,
            sibling_after,
        })
    }

    fn needs_edges(&self) -> bool {
        self.keyed.contains(&Filter::RelativeMarkowitz)
    }

    fn key(&self, space: &dyn Space, labels: &Labels, t: Target) -> Key {
        let mut k = [0; SLOTS];
        let mut n = 0;
        for &f in &self.keyed {
            match f {
                Filter::Forward => k[n..n + 3].copy_from_slice(&pack(space.forward_key(t))),
                Filter::Reverse => k[n..n + 3].copy_from_slice(&pack(space.reverse_key(t))),
                Filter::Markowitz => k[n] = space.markowitz(t),
                Filter::RelativeMarkowitz => k[n] = space.relative_markowitz(t),
                Filter::LowestCost => k[n] = space.step_cost(t, labels),
                Filter::Sibling => unreachable!("sibling is not keyed"),
            }
            n += width(f);
        }
        k
    }
}

/// A topological key in three slots, same order: components are positions
/// or ids, or their negations, all of magnitude below 2^31, so `a·2^32 +
/// (b + 2^31)` orders pairs lexicographically.
fn pack(k: [i64; 5]) -> [i64; 3] {
    let pair = |a: i64, b: i64| (a << 32) + (b + (1 << 31));
    [pair(k[0], k[1]), pair(k[2], k[3]), k[4]]
}

/// Sibling degree `|S ∩ S⁻|·|P ∩ P⁻|` of a target w.r.t. the previous step.
fn sibling_degree(space: &dyn Space, t: Target, last: &StepSets) -> i64 {
    let s = space.sets(t);
    (intersection_len(&s.succs, &last.succs) * intersection_len(&s.preds, &last.preds)) as i64
}

/// Targets of one method and chain, kept ordered under their keys.
#[derive(Clone, Debug)]
pub(crate) struct Selector {
    method: Method,
    chain: Chain,
    faces: bool,
    plan: Plan,
    order: BTreeSet<(Key, Target)>,
    /// Vertex/edge phase: the entries of the targets at each vertex.
    at_vertex: Vec<Vec<(Key, Target)>>,
    /// Face phase: the key of each face.
    face_key: PairMap<Key>,
}

impl Selector {
    /// Whether this selector is the one for `method` and `chain` now.
    pub fn serves(&self, method: Method, chain: &Chain, faces: bool) -> bool {
        self.faces == faces && self.method == method && self.chain == *chain
    }

    fn empty(method: Method, chain: &Chain, faces: bool) -> Option<Selector> {
        Some(Selector {
            method,
            chain: chain.clone(),
            faces,
            plan: Plan::of(chain)?,
            order: BTreeSet::new(),
            at_vertex: Vec::new(),
            face_key: PairMap::default(),
        })
    }

    /// A selector for vertex or edge targets; starts `w`'s change log.
    /// `None` if the chain is not planned (use [`Chain::select`]).
    pub fn for_graph(
        w: &mut WorkGraph,
        labels: &Labels,
        method: Method,
        chain: &Chain,
    ) -> Option<Selector> {
        debug_assert!(method != Method::Face);
        let mut s = Selector::empty(method, chain, false)?;
        w.log.start();
        s.at_vertex = vec![Vec::new(); w.role.len()];
        for j in 0..w.role.len() as u32 {
            s.refresh_vertex(w, labels, j);
        }
        Some(s)
    }

    /// A selector for face targets; starts `l`'s change log.
    pub fn for_faces(l: &mut LineGraph, labels: &Labels, chain: &Chain) -> Option<Selector> {
        let mut s = Selector::empty(Method::Face, chain, true)?;
        l.log.start(s.plan.needs_edges());
        for (x, y) in l.faces() {
            s.refresh_face(l, labels, x, y);
        }
        Some(s)
    }

    /// Re-score the targets at vertex `j` (none if it is no intermediate).
    fn refresh_vertex(&mut self, w: &WorkGraph, labels: &Labels, j: u32) {
        let mut entries = Vec::new();
        if w.is_intermediate(j) {
            let key = |t: Target| (self.plan.key(w, labels, t), t);
            match self.method {
                Method::Vertex => entries.push(key(Target::Vertex(j))),
                Method::Edge => {
                    entries.extend(w.pred[j as usize].iter().map(|&i| key(Target::Front(i, j))));
                    entries.extend(w.succ[j as usize].iter().map(|&k| key(Target::Back(j, k))));
                }
                Method::Face => unreachable!("face targets on the computational graph"),
            }
        }
        let old = std::mem::replace(&mut self.at_vertex[j as usize], entries);
        // both lists are sorted by target (fronts by source, then backs by
        // target): merge them and touch only the entries that changed
        let new = &self.at_vertex[j as usize];
        let (mut a, mut b) = (0, 0);
        while a < old.len() || b < new.len() {
            let order = match (old.get(a), new.get(b)) {
                (Some(o), Some(n)) => o.1.cmp(&n.1),
                (Some(_), None) => std::cmp::Ordering::Less,
                _ => std::cmp::Ordering::Greater,
            };
            match order {
                std::cmp::Ordering::Less => {
                    self.order.remove(&old[a]);
                    a += 1;
                }
                std::cmp::Ordering::Greater => {
                    self.order.insert(new[b]);
                    b += 1;
                }
                std::cmp::Ordering::Equal => {
                    if old[a].0 != new[b].0 {
                        self.order.remove(&old[a]);
                        self.order.insert(new[b]);
                    }
                    a += 1;
                    b += 1;
                }
            }
        }
    }

    /// Re-score the existing face `(x,y)`.
    fn refresh_face(&mut self, l: &LineGraph, labels: &Labels, x: u32, y: u32) {
        let key = self.plan.key(l, labels, Target::Face(x, y));
        if let Some(old) = self.face_key.insert((x, y), key) {
            if old == key {
                return;
            }
            self.order.remove(&(old, Target::Face(x, y)));
        }
        self.order.insert((key, Target::Face(x, y)));
    }

    /// The target the chain selects in `w` (after the logged changes).
    pub fn select_graph(
        &mut self,
        w: &mut WorkGraph,
        labels: &Labels,
        last: Option<&StepSets>,
    ) -> Option<Target> {
        let mut affected = std::mem::take(&mut w.log.touched);
        let edges = std::mem::take(&mut w.log.edges);
        if self.plan.needs_edges() {
            // x on a path a → x → b sees (a,b) among its P × S
            for (a, b) in edges {
                let (sa, pb) = (&w.succ[a as usize], &w.pred[b as usize]);
                if sa.len() <= pb.len() {
                    affected.extend(sa.iter().copied().filter(|&x| w.has_edge(x, b)));
                } else {
                    affected.extend(pb.iter().copied().filter(|&x| w.has_edge(a, x)));
                }
            }
        }
        affected.sort_unstable();
        affected.dedup();
        for j in affected {
            self.refresh_vertex(w, labels, j);
        }
        let candidates = match (self.plan.sibling_after, last) {
            (Some(_), Some(last)) => self.graph_sibling_candidates(w, last),
            _ => Vec::new(),
        };
        self.choose(w, labels, last, candidates)
    }

    /// Targets that can have a positive sibling degree: those sharing a
    /// predecessor and a successor with the previous step.
    fn graph_sibling_candidates(&self, w: &WorkGraph, last: &StepSets) -> Vec<Target> {
        let mut out = Vec::new();
        for &p in &last.preds {
            for &j in &w.succ[p as usize] {
                if w.is_intermediate(j) {
                    out.push(match self.method {
                        Method::Vertex => Target::Vertex(j),
                        _ => Target::Front(p, j),
                    });
                }
            }
        }
        if self.method == Method::Edge {
            for &k in &last.succs {
                for &j in &w.pred[k as usize] {
                    if w.is_intermediate(j) {
                        out.push(Target::Back(j, k));
                    }
                }
            }
        }
        out.sort_unstable();
        out.dedup();
        out
    }

    /// The face the chain selects in `l` (after the logged changes).
    pub fn select_faces(
        &mut self,
        l: &mut LineGraph,
        labels: &Labels,
        last: Option<&StepSets>,
    ) -> Option<Target> {
        let log = l.log.take();
        for (x, y) in log.removed {
            if let Some(k) = self.face_key.remove(&(x, y)) {
                self.order.remove(&(k, Target::Face(x, y)));
            }
        }
        let mut faces = Vec::new();
        for &t in &log.touched {
            if !l.is_inner(t) {
                continue;
            }
            let ti = t as usize;
            faces.extend(
                l.succ[ti]
                    .iter()
                    .filter(|&&y| l.is_inner(y))
                    .map(|&y| (t, y)),
            );
            faces.extend(
                l.pred[ti]
                    .iter()
                    .filter(|&&x| l.is_inner(x))
                    .map(|&x| (x, t)),
            );
        }
        // relative Markowitz: faces whose twin may have appeared or vanished
        for (k, was_inner, preds, succs) in &log.old {
            if *was_inner {
                faces_with_ends(l, preds, succs, &mut faces);
            }
            if l.is_inner(*k) {
                faces_with_ends(l, &l.pred[*k as usize], &l.succ[*k as usize], &mut faces);
            }
        }
        faces.sort_unstable();
        faces.dedup();
        for (x, y) in faces {
            self.refresh_face(l, labels, x, y);
        }
        let candidates = match (self.plan.sibling_after, last) {
            (Some(_), Some(last)) => {
                let mut out = Vec::new();
                for &p in &last.preds {
                    for &x in l.succ[p as usize].iter().filter(|&&x| l.is_inner(x)) {
                        out.extend(
                            l.succ[x as usize]
                                .iter()
                                .filter(|&&y| l.is_inner(y))
                                .map(|&y| Target::Face(x, y)),
                        );
                    }
                }
                out.sort_unstable();
                out.dedup();
                out
            }
            _ => Vec::new(),
        };
        self.choose(l, labels, last, candidates)
    }

    /// The minimum of the ordered set, unless the sibling filter prefers a
    /// candidate with a positive degree among the targets that tie with the
    /// minimum on the filters before it.
    fn choose(
        &self,
        space: &dyn Space,
        labels: &Labels,
        last: Option<&StepSets>,
        candidates: Vec<Target>,
    ) -> Option<Target> {
        let &(min_key, min_target) = self.order.first()?;
        let (Some(prefix), Some(last)) = (self.plan.sibling_after, last) else {
            return Some(min_target);
        };
        let mut best: Option<(i64, Key, Target)> = None;
        for t in candidates {
            let degree = sibling_degree(space, t, last);
            if degree == 0 {
                continue;
            }
            let key = self.plan.key(space, labels, t);
            if key[..prefix] != min_key[..prefix] {
                continue;
            }
            if best
                .as_ref()
                .is_none_or(|(d, k, _)| degree > *d || (degree == *d && key < *k))
            {
                best = Some((degree, key, t));
            }
        }
        Some(best.map_or(min_target, |(_, _, t)| t))
    }
}

/// Faces `(x,y)` with `P_x = preds` and `S_y = succs`: `x` is a successor
/// of every vertex in `preds`, `y` a predecessor of every vertex in `succs`.
fn faces_with_ends(l: &LineGraph, preds: &[u32], succs: &[u32], out: &mut Vec<(u32, u32)>) {
    if preds.is_empty() || succs.is_empty() {
        return;
    }
    let xs = l.twin_candidates(preds, &[]);
    let ys = l.twin_candidates(&[], succs);
    for &x in xs {
        if !l.is_inner(x) || l.pred[x as usize] != preds {
            continue;
        }
        let sx = &l.succ[x as usize];
        if sx.len() <= ys.len() {
            out.extend(
                sx.iter()
                    .filter(|&&y| l.is_inner(y) && l.succ[y as usize] == succs)
                    .map(|&y| (x, y)),
            );
        } else {
            out.extend(
                ys.iter()
                    .filter(|&&y| {
                        l.is_inner(y)
                            && l.succ[y as usize] == succs
                            && l.pred[y as usize].binary_search(&x).is_ok()
                    })
                    .map(|&y| (x, y)),
            );
        }
    }
}
