//! The stepwise elimination driver and its result.

use std::collections::BTreeMap;
use std::fmt;
use std::fmt::Write as _;

use super::face::LineGraph;
use super::graph::{dot_escape, LinearizedGraph, VertexId};
use super::heuristics::{Chain, Filter, Space, StepSets, Target};
use super::label::{LabelId, Labels, Op, OpCounts};
use super::method::Method;
use super::selector::Selector;
use super::work::{EliminationError, Role, WorkGraph};

/// One performed step, in terms of computational-graph vertices.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    Vertex(VertexId),
    FrontEdge(VertexId, VertexId),
    BackEdge(VertexId, VertexId),
    /// The face of the path a → b → c (line-graph vertices (a,b) and (b,c)).
    Face(VertexId, VertexId, VertexId),
}

impl fmt::Display for Step {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Step::Vertex(v) => write!(f, "{v}"),
            Step::FrontEdge(i, j) => write!(f, "({i},{j})f"),
            Step::BackEdge(i, j) => write!(f, "({i},{j})b"),
            Step::Face(a, b, c) => write!(f, "[({a},{b}),({b},{c})]"),
        }
    }
}

/// A line-graph face, addressed by its two line-graph vertex ids; see
/// [`Eliminator::faces`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FaceId(pub u32, pub u32);

/// A Jacobian entry: `∂dependent/∂independent` is the value of `label`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct JacobianEntry {
    pub independent: VertexId,
    pub dependent: VertexId,
    pub label: LabelId,
    /// Numeric value when all inputs were numeric.
    pub value: Option<f64>,
}

/// The bipartite remainder: structurally nonzero entries, sorted by
/// (dependent, independent).  Pairs without an entry are zero.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Jacobian {
    pub entries: Vec<JacobianEntry>,
}

impl Jacobian {
    pub fn get(&self, independent: VertexId, dependent: VertexId) -> Option<&JacobianEntry> {
        self.entries
            .binary_search_by(|e| (e.dependent, e.independent).cmp(&(dependent, independent)))
            .ok()
            .map(|i| &self.entries[i])
    }

    /// Numeric value of an entry (0 for structural zeros).
    pub fn value(&self, independent: VertexId, dependent: VertexId) -> Option<f64> {
        match self.get(independent, dependent) {
            Some(e) => e.value,
            None => Some(0.0),
        }
    }
}

/// Result of a complete elimination.
#[derive(Clone, Debug)]
pub struct Elimination {
    pub jacobian: Jacobian,
    /// Label definitions; `labels.ops()` is the accumulation code in order.
    pub labels: Labels,
    pub counts: OpCounts,
    pub steps: Vec<Step>,
    /// How the sequence was chosen, e.g. `vertex markowitz,reverse`.
    pub strategy: String,
    /// Auxiliary sinks `v'` added for non-maximal / collapsed dependents,
    /// as (auxiliary id, dependent it stands for); they can occur in `steps`.
    pub auxiliary: Vec<(VertexId, VertexId)>,
}

impl Elimination {
    pub fn ops(&self) -> &[Op] {
        self.labels.ops()
    }

    /// The sequence, one step per item, e.g. `1 2 3` or `(1,3)f (3,4)b`.
    pub fn sequence_string(&self) -> String {
        let steps: Vec<String> = self.steps.iter().map(|s| s.to_string()).collect();
        steps.join(" ")
    }

    /// The sequence with the graph's vertex names (auxiliary sinks shown as
    /// the dependent's name with a prime).
    pub fn sequence_with_names(&self, graph: &LinearizedGraph) -> String {
        let name = |v: VertexId| match self.auxiliary.iter().find(|(aux, _)| *aux == v) {
            Some((_, dep)) => format!("{}'", graph.display_name(*dep)),
            None => graph.display_name(v),
        };
        let steps: Vec<String> = self
            .steps
            .iter()
            .map(|s| match *s {
                Step::Vertex(v) => name(v),
                Step::FrontEdge(i, j) => format!("({},{})f", name(i), name(j)),
                Step::BackEdge(i, j) => format!("({},{})b", name(i), name(j)),
                Step::Face(a, b, c) => format!(
                    "[({a},{b}),({b},{c})]",
                    a = name(a),
                    b = name(b),
                    c = name(c)
                ),
            })
            .collect();
        steps.join(" ")
    }

    /// Human-readable statistics (for `--stats`).
    pub fn summary(&self) -> String {
        format!(
            "strategy: {}\ncost: {}\nsteps ({}): {}\njacobian entries: {}\n",
            self.strategy,
            self.counts,
            self.steps.len(),
            self.sequence_string(),
            self.jacobian.entries.len()
        )
    }

    /// Graphviz DOT of the bipartite result graph.
    pub fn to_dot(&self, graph: &LinearizedGraph) -> String {
        let mut out = String::from("digraph jacobian {\n  rankdir=TB;\n");
        let mut seen = std::collections::BTreeSet::new();
        for e in &self.jacobian.entries {
            for (v, shape) in [(e.independent, "box"), (e.dependent, "doublecircle")] {
                if seen.insert((v, shape)) {
                    let _ = writeln!(
                        out,
                        "  {}{} [label=\"{}\", shape={shape}];",
                        if shape == "box" { "x" } else { "y" },
                        v.0,
                        dot_escape(&graph.display_name(v))
                    );
                }
            }
            let text = match e.value {
                Some(v) => format!("{v:.4}"),
                None => e.label.to_string(),
            };
            let _ = writeln!(
                out,
                "  x{} -> y{} [label=\"{}\"];",
                e.independent.0, e.dependent.0, text
            );
        }
        out.push_str("}\n");
        out
    }
}

#[derive(Clone)]
enum Phase {
    Graph(WorkGraph),
    Faces(LineGraph),
}

/// Performs elimination steps one at a time (vertex and edge steps first,
/// then face steps; never back), recording the operations.
#[derive(Clone)]
pub struct Eliminator {
    labels: Labels,
    phase: Phase,
    steps: Vec<Step>,
    last: Option<StepSets>,
    origin: Vec<u32>,
    strategy: Vec<String>,
    /// Incremental selection for the chain of the latest steps.
    selector: Option<Selector>,
}

impl Eliminator {
    pub fn new(graph: &LinearizedGraph) -> Result<Self, EliminationError> {
        let mut labels = Labels::new();
        let work = WorkGraph::build(graph, &mut labels)?;
        let origin = work.origin.clone();
        Ok(Eliminator {
            labels,
            phase: Phase::Graph(work),
            steps: Vec::new(),
            last: None,
            origin,
            strategy: Vec::new(),
            selector: None,
        })
    }

    /// Counts so far (normalisation of parallel edges included).
    pub fn counts(&self) -> OpCounts {
        self.labels.counts()
    }

    pub fn steps(&self) -> &[Step] {
        &self.steps
    }

    pub fn in_face_phase(&self) -> bool {
        matches!(self.phase, Phase::Faces(_))
    }

    /// Intermediate vertices left (vertex/edge phase).
    pub fn intermediate_vertices(&self) -> Vec<VertexId> {
        match &self.phase {
            Phase::Graph(w) => (0..w.role.len() as u32)
                .filter(|v| w.role[*v as usize] == Role::Intermediate)
                .map(VertexId)
                .collect(),
            Phase::Faces(_) => Vec::new(),
        }
    }

    /// Edges left, as (source, target) pairs (vertex/edge phase).
    pub fn edges(&self) -> Vec<(VertexId, VertexId)> {
        match &self.phase {
            Phase::Graph(w) => {
                let mut e: Vec<_> = w
                    .label
                    .keys()
                    .map(|(s, d)| (VertexId(*s), VertexId(*d)))
                    .collect();
                e.sort();
                e
            }
            Phase::Faces(_) => Vec::new(),
        }
    }

    /// Eliminable faces (enters the face phase if needed).
    pub fn faces(&mut self) -> Vec<FaceId> {
        self.enter_face_phase();
        match &self.phase {
            Phase::Faces(l) => l.faces().into_iter().map(|(i, j)| FaceId(i, j)).collect(),
            Phase::Graph(_) => unreachable!(),
        }
    }

    pub fn eliminate_vertex(&mut self, v: VertexId) -> Result<(), EliminationError> {
        self.perform(Target::Vertex(v.0))
    }

    pub fn front_eliminate(&mut self, i: VertexId, j: VertexId) -> Result<(), EliminationError> {
        self.perform(Target::Front(i.0, j.0))
    }

    pub fn back_eliminate(&mut self, j: VertexId, k: VertexId) -> Result<(), EliminationError> {
        self.perform(Target::Back(j.0, k.0))
    }

    pub fn eliminate_face(&mut self, face: FaceId) -> Result<(), EliminationError> {
        self.enter_face_phase();
        self.perform(Target::Face(face.0, face.1))
    }

    /// Switch to the line graph of the current graph; further steps are faces.
    pub fn enter_face_phase(&mut self) {
        if let Phase::Graph(w) = &self.phase {
            self.phase = Phase::Faces(LineGraph::from_work(w));
            self.last = None;
        }
    }

    fn perform(&mut self, t: Target) -> Result<(), EliminationError> {
        let labels = &mut self.labels;
        let (sets, step) = match (&mut self.phase, t) {
            (Phase::Graph(w), Target::Vertex(j)) if w.is_intermediate(j) => {
                let sets = w.sets(t);
                w.eliminate_vertex(labels, j);
                (sets, Step::Vertex(VertexId(j)))
            }
            (Phase::Graph(w), Target::Front(i, j)) if w.can_front_eliminate(i, j) => {
                let sets = w.sets(t);
                w.front_eliminate(labels, i, j);
                (sets, Step::FrontEdge(VertexId(i), VertexId(j)))
            }
            (Phase::Graph(w), Target::Back(j, k)) if w.can_back_eliminate(j, k) => {
                let sets = w.sets(t);
                w.back_eliminate(labels, j, k);
                (sets, Step::BackEdge(VertexId(j), VertexId(k)))
            }
            (Phase::Faces(l), Target::Face(i, j)) if l.is_face(i, j) => {
                let sets = l.sets(t);
                let ((a, b), c) = (l.ends[i as usize], l.ends[j as usize].1);
                l.eliminate_face(labels, i, j);
                (sets, Step::Face(VertexId(a), VertexId(b), VertexId(c)))
            }
            (Phase::Faces(_), Target::Vertex(_) | Target::Front(..) | Target::Back(..)) => {
                return Err(EliminationError::AfterFaces)
            }
            (_, Target::Face(i, j)) => return Err(EliminationError::NotEliminableFace(i, j)),
            (_, Target::Vertex(v)) => return Err(EliminationError::NotIntermediate(VertexId(v))),
            (_, Target::Front(i, j) | Target::Back(i, j)) => {
                return Err(EliminationError::NotEliminableEdge(
                    VertexId(i),
                    VertexId(j),
                ))
            }
        };
        self.last = Some(sets);
        self.steps.push(step);
        Ok(())
    }

    /// All current targets of a method.
    fn targets(&mut self, method: Method) -> Vec<Target> {
        if method == Method::Face {
            self.enter_face_phase();
        }
        match &self.phase {
            Phase::Graph(w) => match method {
                Method::Vertex => (0..w.role.len() as u32)
                    .filter(|v| w.is_intermediate(*v))
                    .map(Target::Vertex)
                    .collect(),
                Method::Edge => {
                    let mut t = Vec::new();
                    for j in 0..w.role.len() as u32 {
                        if !w.is_intermediate(j) {
                            continue;
                        }
                        t.extend(w.pred[j as usize].iter().map(|&i| Target::Front(i, j)));
                        t.extend(w.succ[j as usize].iter().map(|&k| Target::Back(j, k)));
                    }
                    t
                }
                Method::Face => unreachable!(),
            },
            Phase::Faces(l) => l
                .faces()
                .into_iter()
                .map(|(i, j)| Target::Face(i, j))
                .collect(),
        }
    }

    /// Perform one step chosen by `chain`; `Ok(false)` when nothing is left.
    pub fn step(&mut self, method: Method, chain: &Chain) -> Result<bool, EliminationError> {
        if self.in_face_phase() && method != Method::Face {
            return Err(EliminationError::AfterFaces);
        }
        if method == Method::Face {
            self.enter_face_phase();
        }
        match self.choose(method, chain) {
            Some(t) => {
                self.perform(t)?;
                Ok(true)
            }
            None => Ok(false),
        }
    }

    /// The target `chain` selects among the targets of `method`.
    fn choose(&mut self, method: Method, chain: &Chain) -> Option<Target> {
        if method == Method::Face {
            self.enter_face_phase();
        }
        // forward / reverse pick a unique target: on the computational graph
        // walk the topological order; on the line graph that walk costs
        // O(vertices) per step, the ordered faces are cheaper
        let faces = self.in_face_phase();
        match chain.0.first() {
            Some(&f @ (Filter::Forward | Filter::Reverse)) if !faces => {
                self.drop_selector();
                return self.direct(method, f == Filter::Forward);
            }
            _ => {}
        }
        if !self
            .selector
            .as_ref()
            .is_some_and(|s| s.serves(method, chain, faces))
        {
            self.selector = match &mut self.phase {
                Phase::Graph(w) => Selector::for_graph(w, &self.labels, method, chain),
                Phase::Faces(l) => Selector::for_faces(l, &self.labels, chain),
            };
        }
        match (&mut self.selector, &mut self.phase) {
            (Some(s), Phase::Graph(w)) => s.select_graph(w, &self.labels, self.last.as_ref()),
            (Some(s), Phase::Faces(l)) => s.select_faces(l, &self.labels, self.last.as_ref()),
            (None, _) => {
                self.drop_selector();
                self.reference_choice(method, chain)
            }
        }
    }

    /// [`Chain::select`] over all listed targets: the reference the
    /// incremental selector reproduces.
    fn reference_choice(&mut self, method: Method, chain: &Chain) -> Option<Target> {
        let targets = self.targets(method);
        if targets.is_empty() {
            return None;
        }
        Some(match &self.phase {
            Phase::Graph(w) => chain.select(w, &self.labels, targets, self.last.as_ref()),
            Phase::Faces(l) => chain.select(l, &self.labels, targets, self.last.as_ref()),
        })
    }

    /// Stop incremental selection (and the graph's change log).
    fn drop_selector(&mut self) {
        if self.selector.take().is_some() {
            match &mut self.phase {
                Phase::Graph(w) => w.log.stop(),
                Phase::Faces(l) => l.log.stop(),
            }
        }
    }

    /// The target the forward (or reverse) filter would keep out of all
    /// targets of `method`, found by walking the topological order.
    fn direct(&self, method: Method, forward: bool) -> Option<Target> {
        match &self.phase {
            Phase::Graph(w) => {
                let pos = |v: &&u32| w.topo[**v as usize];
                let mut order: Box<dyn Iterator<Item = &u32>> = if forward {
                    Box::new(w.by_topo.iter())
                } else {
                    Box::new(w.by_topo.iter().rev())
                };
                let j = *order.find(|v| w.is_intermediate(**v))?;
                Some(match (method, forward) {
                    (Method::Vertex, _) => Target::Vertex(j),
                    (_, true) => Target::Front(*w.pred[j as usize].iter().min_by_key(pos)?, j),
                    (_, false) => Target::Back(j, *w.succ[j as usize].iter().max_by_key(pos)?),
                })
            }
            Phase::Faces(l) => {
                // faces through the earliest (latest) middle vertex b first
                let mut order: Box<dyn Iterator<Item = &u32>> = if forward {
                    Box::new(l.by_topo.iter())
                } else {
                    Box::new(l.by_topo.iter().rev())
                };
                let b =
                    *order.find(|b| l.ending_at[**b as usize].iter().any(|i| l.has_face(*i)))?;
                let mut best: Option<([i64; 5], Target)> = None;
                for &i in &l.ending_at[b as usize] {
                    if !l.is_inner(i) {
                        continue;
                    }
                    for &j in l.succ[i as usize].iter().filter(|j| l.is_inner(**j)) {
                        let key = if forward {
                            l.face_forward_key(i, j)
                        } else {
                            l.face_reverse_key(i, j)
                        };
                        if best.as_ref().is_none_or(|(k, _)| key < *k) {
                            best = Some((key, Target::Face(i, j)));
                        }
                    }
                }
                best.map(|(_, t)| t)
            }
        }
    }

    /// Eliminate until no target of `method` is left.
    pub fn run(&mut self, method: Method, chain: &Chain) -> Result<(), EliminationError> {
        self.strategy.push(format!("{method} {chain}"));
        while self.step(method, chain)? {}
        Ok(())
    }

    /// Like [`Self::run`], but gives up (returning `Ok(false)`) as soon as
    /// `over_budget` says the counts so far are too high.
    pub fn run_within(
        &mut self,
        method: Method,
        chain: &Chain,
        over_budget: impl Fn(&OpCounts) -> bool,
    ) -> Result<bool, EliminationError> {
        self.strategy.push(format!("{method} {chain}"));
        while self.step(method, chain)? {
            if over_budget(&self.labels.counts()) {
                return Ok(false);
            }
        }
        Ok(true)
    }

    pub fn is_complete(&self) -> bool {
        match &self.phase {
            Phase::Graph(w) => w.intermediates == 0,
            Phase::Faces(l) => l.faces().is_empty(),
        }
    }

    /// The result; fails if intermediates remain.
    pub fn finish(mut self) -> Result<Elimination, EliminationError> {
        if !self.is_complete() {
            return Err(EliminationError::Incomplete);
        }
        let mut acc: BTreeMap<(u32, u32), LabelId> = BTreeMap::new();
        let pairs: Vec<(u32, u32, LabelId)> = match &self.phase {
            Phase::Graph(w) => w.label.iter().map(|(&(s, d), &l)| (s, d, l)).collect(),
            Phase::Faces(l) => l.inner_vertices().collect(),
        };
        let mut pairs = pairs;
        pairs.sort_by_key(|&(s, d, l)| (s, d, l));
        for (s, d, l) in pairs {
            let key = (self.origin[d as usize], self.origin[s as usize]);
            let label = match acc.get(&key) {
                // only possible for twin line vertices that escaped merging
                Some(&old) => self.labels.add(old, l),
                None => l,
            };
            acc.insert(key, label);
        }
        let labels = self.labels;
        let entries = acc
            .into_iter()
            .map(|((d, s), l)| JacobianEntry {
                independent: VertexId(s),
                dependent: VertexId(d),
                label: l,
                value: labels.value(l),
            })
            .collect();
        let strategy = if self.strategy.is_empty() {
            "manual".to_string()
        } else {
            self.strategy.join(" then ")
        };
        Ok(Elimination {
            jacobian: Jacobian { entries },
            counts: labels.counts(),
            labels,
            steps: self.steps,
            strategy,
            auxiliary: (0..self.origin.len())
                .filter(|&v| self.origin[v] as usize != v)
                .map(|v| (VertexId(v as u32), VertexId(self.origin[v])))
                .collect(),
        })
    }
}

/// Eliminate completely with one method and chain.
pub fn eliminate(
    graph: &LinearizedGraph,
    method: Method,
    chain: &Chain,
) -> Result<Elimination, EliminationError> {
    let mut e = Eliminator::new(graph)?;
    e.run(method, chain)?;
    e.finish()
}

/// Vertex or edge steps by one chain, then face steps by another.
pub fn eliminate_mixed(
    graph: &LinearizedGraph,
    first: Method,
    first_chain: &Chain,
    first_steps: usize,
    face_chain: &Chain,
) -> Result<Elimination, EliminationError> {
    let mut e = Eliminator::new(graph)?;
    e.strategy
        .push(format!("{first_steps} {first} steps by {first_chain}"));
    for _ in 0..first_steps {
        if !e.step(first, first_chain)? {
            break;
        }
    }
    e.run(Method::Face, face_chain)?;
    e.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::elimination::random::{random_graph, RandomGraphConfig};

    /// The incremental selector must pick exactly what the reference
    /// `Chain::select` over all targets picks, at every step: for every
    /// default chain and a few more (sibling in other positions), every
    /// method, mixed vertex/edge-then-face runs, and with steps made behind
    /// the selector's back (by another chain) in between.
    #[test]
    fn incremental_selection_matches_the_reference_filters() {
        use crate::elimination::best_of::default_candidates;
        let mut chains: Vec<Chain> = default_candidates(&[Method::Vertex])
            .into_iter()
            .map(|c| c.chain)
            .collect();
        for extra in [
            "sibling",
            "relative-markowitz,sibling,reverse",
            "cost,sibling,markowitz,forward",
            "markowitz,cost,relative-markowitz,reverse",
            "sibling,relative-markowitz,forward",
            "sibling,cost,reverse",
        ] {
            chains.push(extra.parse().unwrap());
        }
        let mut steps_checked = 0usize;
        for seed in 0..14u64 {
            let cfg = RandomGraphConfig {
                unit_probability: if seed % 2 == 0 { 0.25 } else { 0.0 },
                non_maximal_dependents: 0.1,
                ..RandomGraphConfig::new(12 + 3 * seed as usize)
            };
            let g = random_graph(9000 + seed, &cfg);
            for chain in &chains {
                // (first method, its steps before faces, interference period)
                let runs = [
                    (Method::Vertex, usize::MAX, 0),
                    (Method::Edge, usize::MAX, 0),
                    (Method::Face, 0, 0),
                    (Method::Vertex, usize::MAX, 4),
                    (Method::Edge, usize::MAX, 3),
                    (Method::Face, 0, 5),
                    (Method::Vertex, 3, 0),
                    (Method::Edge, 4, 0),
                ];
                for (first, first_steps, every) in runs {
                    let mut e = Eliminator::new(&g).unwrap();
                    let (mut n, mut faces) = (0usize, first_steps == 0);
                    loop {
                        let method = if faces { Method::Face } else { first };
                        let t = if every > 0 && n % every == every - 1 {
                            // a step the selector does not choose
                            e.reference_choice(method, &Chain::reverse())
                        } else {
                            let reference = e.clone().reference_choice(method, chain);
                            let incremental = e.choose(method, chain);
                            // on the computational graph, chains headed by forward /
                            // reverse walk the topological order (next test)
                            let walks =
                                !faces && matches!(chain.0[0], Filter::Forward | Filter::Reverse);
                            assert!(walks || e.selector.is_some(), "{chain} is planned");
                            assert_eq!(
                                incremental, reference,
                                "seed {seed}, {first} then faces, chain {chain}, step {n}"
                            );
                            steps_checked += 1;
                            incremental
                        };
                        match t {
                            Some(t) => e.perform(t).unwrap(),
                            None if faces => break,
                            None => faces = true,
                        }
                        n += 1;
                        if n >= first_steps {
                            faces = true;
                        }
                    }
                    assert!(e.is_complete());
                }
            }
        }
        eprintln!("{steps_checked} steps checked");
        assert!(steps_checked > 10_000, "{steps_checked} steps checked");
    }

    /// The topological-walk shortcut must pick what the generic filter picks.
    #[test]
    fn direct_forward_and_reverse_match_the_generic_filters() {
        for seed in 0..30 {
            let cfg = RandomGraphConfig {
                unit_probability: 0.2,
                non_maximal_dependents: 0.1,
                ..RandomGraphConfig::new(25)
            };
            let g = random_graph(seed, &cfg);
            for method in [Method::Vertex, Method::Edge, Method::Face] {
                for (forward, chain) in [(true, Chain::forward()), (false, Chain::reverse())] {
                    let mut e = Eliminator::new(&g).unwrap();
                    loop {
                        let targets = e.targets(method);
                        let direct = e.direct(method, forward);
                        if targets.is_empty() {
                            assert!(direct.is_none());
                            break;
                        }
                        let generic = match &e.phase {
                            Phase::Graph(w) => chain.select(w, &e.labels, targets, None),
                            Phase::Faces(l) => chain.select(l, &e.labels, targets, None),
                        };
                        assert_eq!(
                            direct,
                            Some(generic),
                            "seed {seed} {method} forward={forward}"
                        );
                        e.perform(generic).unwrap();
                    }
                }
            }
        }
    }
}
