//! The nesting of a structured control flow graph (Definition 1 of paper
//! 001): a sequence of regions, each a basic block, a branch (If or Branch
//! up to its EndBranch, one arm per distinct target) or a loop (ForLoop,
//! PreLoop or PostLoop with its body up to the EndLoop). Walking the graph
//! this way visits vertices in the topological order of Algorithm 1:
//! branch arms before the EndBranch, loop bodies before the loop's
//! successor. A graph that does not nest this way (gotos, labels, loop
//! exits, branches not meeting at one EndBranch) is `NotNested`; the
//! caller then records basic block ids instead. The booster's reversal
//! walks these regions; [`enclosing`] answers which loop or branch a
//! vertex is inside.
//!
//! One loop exit nests: a *leading exit*, `if (c) exit` before anything
//! else in a loop's body (`do it = 1, ncg; if (rr < tol) exit; ...`). The
//! iteration it leaves has done nothing, so the loop reverses like one
//! whose trip count is its number of full iterations (the counter is
//! incremented at the end of the body); the region keeps the test so the
//! forward sweep can repeat it.

use std::collections::HashMap;

use crate::model::{ControlFlowEdge, ControlFlowVertex};

/// One arm of a branch: the out-edges (indices into the edge list) that
/// lead to it and its body.
#[derive(Debug, Clone)]
pub struct Arm {
    pub edges: Vec<usize>,
    pub body: Vec<Region>,
}

#[derive(Debug, Clone)]
pub enum Region {
    /// A basic block (index into the vertex list).
    Block(usize),
    Branch {
        vertex: usize,
        arms: Vec<Arm>,
    },
    Loop {
        vertex: usize,
        /// The edges into the body and out of the loop.
        body_edge: usize,
        exit_edge: usize,
        body: Vec<Region>,
        /// `if (c) exit` at the top of the body, outside `body`.
        leading_exit: Option<LeadingExit>,
    },
}

/// The test of a leading exit: the If vertex and the condition values of
/// its edge out of the loop and of its edge into the rest of the body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LeadingExit {
    pub test: usize,
    pub exit_value: i64,
    pub stay_value: i64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NotNested;

enum Stop {
    Exit,
    EndBranch(usize),
    EndLoop(usize),
}

struct Walker<'g> {
    vertices: &'g [ControlFlowVertex],
    edges: &'g [ControlFlowEdge],
    by_id: HashMap<&'g str, usize>,
    out: Vec<Vec<usize>>,
    visited: Vec<bool>,
}

/// The region sequence from the Entry to the Exit.
pub fn nest(
    vertices: &[ControlFlowVertex],
    edges: &[ControlFlowEdge],
) -> Result<Vec<Region>, NotNested> {
    let mut by_id = HashMap::new();
    for (i, v) in vertices.iter().enumerate() {
        if by_id.insert(v.vertex_id(), i).is_some() {
            return Err(NotNested);
        }
    }
    let mut out = vec![Vec::new(); vertices.len()];
    for (k, e) in edges.iter().enumerate() {
        let s = *by_id.get(e.source.as_str()).ok_or(NotNested)?;
        by_id.get(e.target.as_str()).ok_or(NotNested)?;
        out[s].push(k);
    }
    let entries: Vec<usize> = (0..vertices.len())
        .filter(|&i| matches!(vertices[i], ControlFlowVertex::Entry(_)))
        .collect();
    let [entry] = entries.as_slice() else {
        return Err(NotNested);
    };
    let mut w = Walker {
        vertices,
        edges,
        by_id,
        out,
        visited: vec![false; vertices.len()],
    };
    let (regions, stop) = w.sequence(*entry, 0)?;
    match stop {
        Stop::Exit => {}
        _ => return Err(NotNested),
    }
    // Every vertex must belong to the nesting.
    if w.visited.iter().all(|&v| v) {
        Ok(regions)
    } else {
        Err(NotNested)
    }
}

impl Walker<'_> {
    fn target(&self, edge: usize) -> usize {
        self.by_id[self.edges[edge].target.as_str()]
    }

    fn single_successor(&self, v: usize) -> Result<usize, NotNested> {
        match self.out[v].as_slice() {
            [e] => Ok(self.target(*e)),
            _ => Err(NotNested),
        }
    }

    fn edge_on(&self, v: usize, value: i64) -> Result<usize, NotNested> {
        let mut found = self.out[v].iter().filter(|&&e| {
            self.edges[e].has_condition_value && self.edges[e].condition_value == value
        });
        match (found.next(), found.next()) {
            (Some(&e), None) => Ok(e),
            _ => Err(NotNested),
        }
    }

    fn visit(&mut self, v: usize) -> Result<(), NotNested> {
        if std::mem::replace(&mut self.visited[v], true) {
            return Err(NotNested);
        }
        Ok(())
    }

    fn sequence(&mut self, start: usize, depth: usize) -> Result<(Vec<Region>, Stop), NotNested> {
        if depth > 1000 {
            return Err(NotNested);
        }
        let mut regions = Vec::new();
        let mut v = start;
        loop {
            match &self.vertices[v] {
                ControlFlowVertex::Exit(_) => {
                    self.visit(v)?;
                    if !self.out[v].is_empty() {
                        return Err(NotNested);
                    }
                    return Ok((regions, Stop::Exit));
                }
                // Visited by the branch or loop that owns them.
                ControlFlowVertex::EndBranch(_) => return Ok((regions, Stop::EndBranch(v))),
                ControlFlowVertex::EndLoop(_) => return Ok((regions, Stop::EndLoop(v))),
                ControlFlowVertex::Entry(_) => {
                    self.visit(v)?;
                    v = self.single_successor(v)?;
                }
                ControlFlowVertex::BasicBlock(_) => {
                    self.visit(v)?;
                    regions.push(Region::Block(v));
                    v = self.single_successor(v)?;
                }
                ControlFlowVertex::If(_) | ControlFlowVertex::Branch(_) => {
                    self.visit(v)?;
                    if matches!(self.vertices[v], ControlFlowVertex::If(_)) {
                        let t = self.edge_on(v, 1)?;
                        let f = self.edge_on(v, 0)?;
                        if self.out[v].len() != 2 || t == f {
                            return Err(NotNested);
                        }
                    }
                    let mut arms: Vec<(usize, Vec<usize>)> = Vec::new();
                    for &e in &self.out[v] {
                        let t = self.target(e);
                        match arms.iter_mut().find(|(target, _)| *target == t) {
                            Some((_, es)) => es.push(e),
                            None => arms.push((t, vec![e])),
                        }
                    }
                    if arms.is_empty() {
                        return Err(NotNested);
                    }
                    let mut join = None;
                    let mut built = Vec::new();
                    for (target, es) in arms {
                        let (body, stop) = self.sequence(target, depth + 1)?;
                        let Stop::EndBranch(end) = stop else {
                            return Err(NotNested);
                        };
                        if *join.get_or_insert(end) != end {
                            return Err(NotNested);
                        }
                        built.push(Arm { edges: es, body });
                    }
                    let end = join.ok_or(NotNested)?;
                    self.visit(end)?;
                    regions.push(Region::Branch {
                        vertex: v,
                        arms: built,
                    });
                    v = self.single_successor(end)?;
                }
                ControlFlowVertex::ForLoop(_)
                | ControlFlowVertex::PreLoop(_)
                | ControlFlowVertex::PostLoop(_) => {
                    self.visit(v)?;
                    if self.out[v].len() != 2 {
                        return Err(NotNested);
                    }
                    let body_edge = self.edge_on(v, 1)?;
                    let exit_edge = self.edge_on(v, 0)?;
                    let after = self.target(exit_edge);
                    let mut start = self.target(body_edge);
                    let mut leading_exit = None;
                    let mut exit_from = None;
                    if let Some(found) = self.leading_exit(start, after) {
                        for &w in &found.visited {
                            self.visit(w)?;
                        }
                        leading_exit = Some(found.exit);
                        exit_from = Some(found.exit_from);
                        start = found.rest;
                    }
                    let (body, stop) = self.sequence(start, depth + 1)?;
                    let Stop::EndLoop(end) = stop else {
                        return Err(NotNested);
                    };
                    self.visit(end)?;
                    if self.single_successor(end)? != v {
                        return Err(NotNested);
                    }
                    regions.push(Region::Loop {
                        vertex: v,
                        body_edge,
                        exit_edge,
                        body,
                        leading_exit,
                    });
                    v = after;
                    // The label the exit's goto and the loop's end meet at.
                    if let (Some(from), ControlFlowVertex::Label(_)) =
                        (exit_from, &self.vertices[v])
                    {
                        let only_ours =
                            (0..self.edges.len())
                                .filter(|&e| self.target(e) == v)
                                .all(|e| {
                                    let s = self.by_id[self.edges[e].source.as_str()];
                                    s == from || e == exit_edge
                                });
                        if !only_ours {
                            return Err(NotNested);
                        }
                        self.visit(v)?;
                        v = self.single_successor(v)?;
                    }
                }
                ControlFlowVertex::Label(_) | ControlFlowVertex::Goto(_) => return Err(NotNested),
            }
        }
    }

    fn in_degree(&self, v: usize) -> usize {
        (0..self.edges.len())
            .filter(|&e| self.target(e) == v)
            .count()
    }

    fn is_empty_block(&self, v: usize) -> bool {
        matches!(&self.vertices[v], ControlFlowVertex::BasicBlock(b) if b.elements.is_empty())
    }

    /// A leading exit of the loop whose body starts at `start` and
    /// whose exit edge goes to `after`: empty blocks, then an If whose one
    /// arm reaches `after` through empty blocks and gotos and whose other
    /// arm reaches its EndBranch through empty blocks, every vertex on the
    /// way entered only from the one before. Nothing is marked visited.
    fn leading_exit(&self, start: usize, after: usize) -> Option<FoundExit> {
        let mut visited = Vec::new();
        let mut v = start;
        if self.in_degree(v) != 1 {
            return None;
        }
        while self.is_empty_block(v) {
            visited.push(v);
            v = self.single_successor(v).ok()?;
            if self.in_degree(v) != 1 {
                return None;
            }
        }
        if !matches!(self.vertices[v], ControlFlowVertex::If(_)) || self.out[v].len() != 2 {
            return None;
        }
        let test = v;
        visited.push(test);
        let (t, f) = (self.edge_on(test, 1).ok()?, self.edge_on(test, 0).ok()?);
        let (exit_edge, stay_edge, exit_value) = if self.reaches(self.target(t), after).is_some() {
            (t, f, 1)
        } else {
            (f, t, 0)
        };
        let chain = self.reaches(self.target(exit_edge), after)?;
        let exit_from = chain.last().copied().unwrap_or(test);
        visited.extend(chain);
        let mut w = self.target(stay_edge);
        loop {
            if self.in_degree(w) != 1 {
                return None;
            }
            if matches!(self.vertices[w], ControlFlowVertex::EndBranch(_)) {
                break;
            }
            if !self.is_empty_block(w) {
                return None;
            }
            visited.push(w);
            w = self.single_successor(w).ok()?;
        }
        visited.push(w);
        let rest = self.single_successor(w).ok()?;
        Some(FoundExit {
            exit: LeadingExit {
                test,
                exit_value,
                stay_value: 1 - exit_value,
            },
            visited,
            exit_from,
            rest,
        })
    }

    /// The vertices from `v` up to (not including) `after` when that path
    /// is made of empty blocks and gotos, each entered once (empty when
    /// `v` is `after`); `None` when the path goes elsewhere.
    fn reaches(&self, mut v: usize, after: usize) -> Option<Vec<usize>> {
        let mut chain = Vec::new();
        while v != after {
            let passable =
                self.is_empty_block(v) || matches!(self.vertices[v], ControlFlowVertex::Goto(_));
            if !passable || self.in_degree(v) != 1 || chain.len() > 64 {
                return None;
            }
            chain.push(v);
            v = self.single_successor(v).ok()?;
        }
        Some(chain)
    }
}

/// A leading exit found by `Walker::leading_exit`: the vertices it
/// covers, the last vertex of its path out (whose edge reaches the loop's
/// successor) and where the rest of the body starts.
struct FoundExit {
    exit: LeadingExit,
    visited: Vec<usize>,
    exit_from: usize,
    rest: usize,
}

/// For every vertex (by index), the innermost loop or branch vertex whose
/// body or arm holds it (`None` at the top level; a loop or branch vertex
/// itself is inside what encloses it).
pub fn enclosing(regions: &[Region], vertex_count: usize) -> Vec<Option<usize>> {
    fn walk(regions: &[Region], outer: Option<usize>, out: &mut [Option<usize>]) {
        for r in regions {
            match r {
                Region::Block(b) => out[*b] = outer,
                Region::Branch { vertex, arms } => {
                    out[*vertex] = outer;
                    for arm in arms {
                        walk(&arm.body, Some(*vertex), out);
                    }
                }
                Region::Loop {
                    vertex,
                    body,
                    leading_exit,
                    ..
                } => {
                    out[*vertex] = outer;
                    if let Some(exit) = leading_exit {
                        out[exit.test] = Some(*vertex);
                    }
                    walk(body, Some(*vertex), out);
                }
            }
        }
    }
    let mut out = vec![None; vertex_count];
    walk(regions, None, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{BasicBlock, ConditionVertex, ForLoop, PlainVertex};

    fn plain(id: &str) -> PlainVertex {
        PlainVertex {
            vertex_id: id.into(),
            ..PlainVertex::default()
        }
    }

    fn edge(source: &str, target: &str, value: Option<i64>) -> ControlFlowEdge {
        ControlFlowEdge {
            edge_id: format!("{source}-{target}").into(),
            source: source.into(),
            target: target.into(),
            has_condition_value: value.is_some(),
            condition_value: value.unwrap_or(1),
            ..ControlFlowEdge::default()
        }
    }

    #[test]
    fn a_branch_inside_a_loop_nests_and_every_vertex_knows_its_enclosing_construct() {
        // 0 Entry, 1 ForLoop, 2 If, 3 and 4 the arms, 5 EndBranch,
        // 6 EndLoop, 7 block after the loop, 8 Exit.
        let block = |id: &str| {
            ControlFlowVertex::BasicBlock(BasicBlock {
                vertex_id: id.into(),
                ..BasicBlock::default()
            })
        };
        let vertices = vec![
            ControlFlowVertex::Entry(plain("e")),
            ControlFlowVertex::ForLoop(Box::new(ForLoop {
                vertex_id: "l".into(),
                ..ForLoop::default()
            })),
            ControlFlowVertex::If(ConditionVertex {
                vertex_id: "i".into(),
                ..ConditionVertex::default()
            }),
            block("t"),
            block("f"),
            ControlFlowVertex::EndBranch(plain("eb")),
            ControlFlowVertex::EndLoop(plain("el")),
            block("after"),
            ControlFlowVertex::Exit(plain("x")),
        ];
        let edges = vec![
            edge("e", "l", None),
            edge("l", "i", Some(1)),
            edge("l", "after", Some(0)),
            edge("i", "t", Some(1)),
            edge("i", "f", Some(0)),
            edge("t", "eb", None),
            edge("f", "eb", None),
            edge("eb", "el", None),
            edge("el", "l", None),
            edge("after", "x", None),
        ];
        let regions = nest(&vertices, &edges).expect("nests");
        let inside = enclosing(&regions, vertices.len());
        assert_eq!(inside[1], None, "the loop is at the top level");
        assert_eq!(inside[2], Some(1), "the branch is in the loop");
        assert_eq!(inside[3], Some(2));
        assert_eq!(inside[4], Some(2));
        assert_eq!(inside[7], None);
        // A second edge into an arm from outside the branch does not nest.
        let mut tangled = edges.clone();
        tangled[2] = edge("l", "t", Some(0));
        assert_eq!(nest(&vertices, &tangled).err(), Some(NotNested));
    }
}
