//! Elimination heuristics as composable filters.
//!
//! A filter maps the current set of elimination targets to the subset that
//! is best by its criterion; a [`Chain`] applies its filters in order, each
//! one breaking the ties left by the previous.  Whatever ties remain at the
//! end are broken by `forward`, so every chain selects exactly one target.
//!
//! The same filters work for vertex, edge and face targets, each target
//! exposing the sets of vertices it connects (`P`, `S`):
//! vertex `j`: `(P_j, S_j)`; front edge `(i,j)`: `({i}, S_j)`; back edge
//! `(j,k)`: `(P_j, {k})`; face `(i,j)`: `(P_i, S_j)` in the line graph.

use std::fmt;
use std::str::FromStr;

use super::face::LineGraph;
use super::label::Labels;
use super::work::{intersection_len, EliminationError, WorkGraph};

/// One elimination target in the current graph (internal ids).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Target {
    Vertex(u32),
    /// Front elimination of edge (i, j).
    Front(u32, u32),
    /// Back elimination of edge (j, k).
    Back(u32, u32),
    /// Face between line-graph vertices (i, j).
    Face(u32, u32),
}

/// A heuristic filter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Filter {
    /// Earliest target in topological order (vertex order; front eliminations
    /// of the in-edges of the earliest vertex; faces through the earliest vertex).
    Forward,
    /// Latest target in topological order (mirror image of `Forward`, back
    /// eliminations for edges).
    Reverse,
    /// Lowest Markowitz degree `|P|·|S|` (the multiplications of a vertex or
    /// edge elimination).
    Markowitz,
    /// Lowest relative Markowitz degree: the net growth of the graph
    /// (fill-ins minus removed edges, or line vertices for faces).
    RelativeMarkowitz,
    /// Highest sibling degree `|S ∩ S⁻|·|P ∩ P⁻|` with respect to the previous
    /// step (data locality, paper 001 §3.2); no-op when the maximum is 0.
    Sibling,
    /// Fewest multiplications emitted by the step itself: the Markowitz
    /// degree without the products that involve a ±1 label.
    LowestCost,
}

impl Filter {
    pub fn name(self) -> &'static str {
        match self {
            Filter::Forward => "forward",
            Filter::Reverse => "reverse",
            Filter::Markowitz => "markowitz",
            Filter::RelativeMarkowitz => "relative-markowitz",
            Filter::Sibling => "sibling",
            Filter::LowestCost => "cost",
        }
    }
}

impl FromStr for Filter {
    type Err = EliminationError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "forward" | "fwd" | "f" => Ok(Filter::Forward),
            "reverse" | "rev" | "r" => Ok(Filter::Reverse),
            "markowitz" | "lm" | "lowest-markowitz" => Ok(Filter::Markowitz),
            "relative-markowitz" | "relative_markowitz" | "lrm" | "lowest-relative-markowitz" => {
                Ok(Filter::RelativeMarkowitz)
            }
            "sibling" | "hs" | "highest-sibling" | "locality" => Ok(Filter::Sibling),
            "cost" | "lowest-cost" | "unit-markowitz" => Ok(Filter::LowestCost),
            other => Err(EliminationError::UnknownHeuristic(other.to_string())),
        }
    }
}

/// A list of filters, e.g. `"markowitz,reverse"`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Chain(pub Vec<Filter>);

impl Chain {
    pub fn new(filters: Vec<Filter>) -> Self {
        Chain(filters)
    }

    pub fn forward() -> Self {
        Chain(vec![Filter::Forward])
    }

    pub fn reverse() -> Self {
        Chain(vec![Filter::Reverse])
    }

    /// Pick one target (`targets` must be non-empty).
    pub(crate) fn select(
        &self,
        space: &dyn Space,
        labels: &Labels,
        targets: Vec<Target>,
        last: Option<&StepSets>,
    ) -> Target {
        let mut set = targets;
        for &filter in self.0.iter().chain(std::iter::once(&Filter::Forward)) {
            if set.len() <= 1 {
                break;
            }
            set = apply(filter, space, labels, set, last);
        }
        set[0]
    }
}

/// Default chain: lowest Markowitz degree, ties by reverse order.
impl Default for Chain {
    fn default() -> Self {
        Chain(vec![Filter::Markowitz, Filter::Reverse])
    }
}

impl FromStr for Chain {
    type Err = EliminationError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let filters = s
            .split([',', '+'])
            .filter(|p| !p.trim().is_empty())
            .map(Filter::from_str)
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Chain(filters))
    }
}

impl fmt::Display for Chain {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = self.0.iter().map(|x| x.name()).collect();
        write!(f, "{}", names.join(","))
    }
}

/// The vertex sets a performed step connected (for the sibling filter).
#[derive(Clone, Debug, Default)]
pub(crate) struct StepSets {
    pub preds: Vec<u32>,
    pub succs: Vec<u32>,
}

/// What a filter needs to know about targets in the current graph.
pub(crate) trait Space {
    fn markowitz(&self, t: Target) -> i64;
    fn relative_markowitz(&self, t: Target) -> i64;
    fn forward_key(&self, t: Target) -> [i64; 5];
    fn reverse_key(&self, t: Target) -> [i64; 5];
    fn sets(&self, t: Target) -> StepSets;
    /// Multiplications the step emits (products with ±1 are free).
    fn step_cost(&self, t: Target, labels: &Labels) -> i64;
}

fn keep_min<K: Ord + Copy>(set: Vec<Target>, key: impl Fn(Target) -> K) -> Vec<Target> {
    let keys: Vec<K> = set.iter().map(|t| key(*t)).collect();
    let best = *keys.iter().min().expect("non-empty target set");
    set.into_iter()
        .zip(keys)
        .filter(|(_, k)| *k == best)
        .map(|(t, _)| t)
        .collect()
}

fn apply(
    filter: Filter,
    space: &dyn Space,
    labels: &Labels,
    set: Vec<Target>,
    last: Option<&StepSets>,
) -> Vec<Target> {
    match filter {
        Filter::LowestCost => keep_min(set, |t| space.step_cost(t, labels)),
        Filter::Forward => keep_min(set, |t| space.forward_key(t)),
        Filter::Reverse => keep_min(set, |t| space.reverse_key(t)),
        Filter::Markowitz => keep_min(set, |t| space.markowitz(t)),
        Filter::RelativeMarkowitz => keep_min(set, |t| space.relative_markowitz(t)),
        Filter::Sibling => {
            let Some(last) = last else { return set };
            let degree = |t: Target| {
                let s = space.sets(t);
                (intersection_len(&s.succs, &last.succs) * intersection_len(&s.preds, &last.preds))
                    as i64
            };
            let degrees: Vec<i64> = set.iter().map(|t| degree(*t)).collect();
            let best = *degrees.iter().max().expect("non-empty target set");
            if best == 0 {
                return set;
            }
            set.into_iter()
                .zip(degrees)
                .filter(|(_, d)| *d == best)
                .map(|(t, _)| t)
                .collect()
        }
    }
}

impl Space for WorkGraph {
    fn step_cost(&self, t: Target, labels: &Labels) -> i64 {
        let general = |s: u32, d: u32| !labels.is_unit(self.edge_label(s, d));
        let into = |j: u32| {
            self.pred[j as usize]
                .iter()
                .filter(|&&i| general(i, j))
                .count() as i64
        };
        let out_of = |j: u32| {
            self.succ[j as usize]
                .iter()
                .filter(|&&k| general(j, k))
                .count() as i64
        };
        match t {
            Target::Vertex(j) => into(j) * out_of(j),
            Target::Front(i, j) => i64::from(general(i, j)) * out_of(j),
            Target::Back(j, k) => i64::from(general(j, k)) * into(j),
            Target::Face(..) => unreachable!("face target on the computational graph"),
        }
    }

    fn markowitz(&self, t: Target) -> i64 {
        match t {
            Target::Vertex(j) => self.vertex_markowitz(j),
            Target::Front(_, j) => self.succ[j as usize].len() as i64,
            Target::Back(j, _) => self.pred[j as usize].len() as i64,
            Target::Face(..) => unreachable!("face target on the computational graph"),
        }
    }

    fn relative_markowitz(&self, t: Target) -> i64 {
        match t {
            Target::Vertex(j) => self.vertex_relative_markowitz(j),
            Target::Front(i, j) => self.front_relative_markowitz(i, j),
            Target::Back(j, k) => self.back_relative_markowitz(j, k),
            Target::Face(..) => unreachable!("face target on the computational graph"),
        }
    }

    fn forward_key(&self, t: Target) -> [i64; 5] {
        let p = |v: u32| self.topo[v as usize] as i64;
        match t {
            Target::Vertex(j) => [p(j), 0, 0, 0, 0],
            Target::Front(i, j) => [0, p(j), p(i), 0, 0],
            Target::Back(j, k) => [1, p(j), p(k), 0, 0],
            Target::Face(..) => unreachable!("face target on the computational graph"),
        }
    }

    fn reverse_key(&self, t: Target) -> [i64; 5] {
        let p = |v: u32| self.topo[v as usize] as i64;
        match t {
            Target::Vertex(j) => [-p(j), 0, 0, 0, 0],
            Target::Back(j, k) => [0, -p(j), -p(k), 0, 0],
            Target::Front(i, j) => [1, -p(j), -p(i), 0, 0],
            Target::Face(..) => unreachable!("face target on the computational graph"),
        }
    }

    fn sets(&self, t: Target) -> StepSets {
        match t {
            Target::Vertex(j) => StepSets {
                preds: self.pred[j as usize].clone(),
                succs: self.succ[j as usize].clone(),
            },
            Target::Front(i, j) => StepSets {
                preds: vec![i],
                succs: self.succ[j as usize].clone(),
            },
            Target::Back(j, k) => StepSets {
                preds: self.pred[j as usize].clone(),
                succs: vec![k],
            },
            Target::Face(..) => unreachable!("face target on the computational graph"),
        }
    }
}

impl Space for LineGraph {
    fn step_cost(&self, t: Target, labels: &Labels) -> i64 {
        let Target::Face(i, j) = t else {
            unreachable!("non-face target on the line graph")
        };
        let general = |v: u32| !labels.is_unit(self.label[v as usize]);
        i64::from(general(i) && general(j))
    }

    fn markowitz(&self, t: Target) -> i64 {
        let Target::Face(i, j) = t else {
            unreachable!("non-face target on the line graph")
        };
        self.face_markowitz(i, j)
    }

    fn relative_markowitz(&self, t: Target) -> i64 {
        let Target::Face(i, j) = t else {
            unreachable!("non-face target on the line graph")
        };
        self.face_relative_markowitz(i, j)
    }

    fn forward_key(&self, t: Target) -> [i64; 5] {
        let Target::Face(i, j) = t else {
            unreachable!("non-face target on the line graph")
        };
        self.face_forward_key(i, j)
    }

    fn reverse_key(&self, t: Target) -> [i64; 5] {
        let Target::Face(i, j) = t else {
            unreachable!("non-face target on the line graph")
        };
        self.face_reverse_key(i, j)
    }

    fn sets(&self, t: Target) -> StepSets {
        let Target::Face(i, j) = t else {
            unreachable!("non-face target on the line graph")
        };
        StepSets {
            preds: self.pred[i as usize].clone(),
            succs: self.succ[j as usize].clone(),
        }
    }
}
