//! The linearized computational graph as the caller builds it.

use std::fmt::Write as _;

use super::label::Label;

/// A vertex of a [`LinearizedGraph`].  Ids at or above
/// `LinearizedGraph::vertex_count()` only occur in elimination steps: they
/// denote the auxiliary copy `v'` added for a non-maximal or collapsed
/// dependent `v` (see `docs/elimination.md`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct VertexId(pub u32);

impl std::fmt::Display for VertexId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0)
    }
}

#[derive(Clone, Debug, Default)]
struct VertexInfo {
    independent: bool,
    dependent: bool,
    name: Option<String>,
}

/// Errors while building a graph.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GraphError {
    #[error("vertex {0} does not exist")]
    UnknownVertex(VertexId),
    #[error("edge {0} -> {0} is a self loop")]
    SelfLoop(VertexId),
    #[error("vertex {0} is independent and cannot have an in-edge")]
    EdgeIntoIndependent(VertexId),
    #[error("vertex {0} already has in-edges and cannot become independent")]
    IndependentWithInEdges(VertexId),
}

/// A DAG whose edges carry local partial derivatives.
///
/// A vertex is independent (no in-edges), intermediate, or dependent; a
/// dependent may still have out-edges (non-maximal dependent) and an
/// independent may also be dependent (collapsed vertex, `y = x`).  Parallel
/// edges are allowed (`v = x*x`): they are summed before elimination.
#[derive(Clone, Debug, Default)]
pub struct LinearizedGraph {
    vertices: Vec<VertexInfo>,
    edges: Vec<(VertexId, VertexId, Label)>,
    has_in_edge: Vec<bool>,
}

impl LinearizedGraph {
    pub fn new() -> Self {
        Self::default()
    }

    /// A new intermediate vertex (mark it dependent with [`Self::mark_dependent`]).
    pub fn add_vertex(&mut self) -> VertexId {
        self.vertices.push(VertexInfo::default());
        self.has_in_edge.push(false);
        VertexId(self.vertices.len() as u32 - 1)
    }

    /// A new independent vertex.
    pub fn add_independent(&mut self) -> VertexId {
        let v = self.add_vertex();
        self.vertices[v.0 as usize].independent = true;
        v
    }

    /// A new vertex that is dependent (it may still get out-edges).
    pub fn add_dependent(&mut self) -> VertexId {
        let v = self.add_vertex();
        self.vertices[v.0 as usize].dependent = true;
        v
    }

    /// Make an existing vertex independent; it must have no in-edges.
    pub fn mark_independent(&mut self, v: VertexId) -> Result<(), GraphError> {
        self.check(v)?;
        if self.has_in_edge[v.0 as usize] {
            return Err(GraphError::IndependentWithInEdges(v));
        }
        self.vertices[v.0 as usize].independent = true;
        Ok(())
    }

    /// Make an existing vertex (of any kind) dependent.
    pub fn mark_dependent(&mut self, v: VertexId) -> Result<(), GraphError> {
        self.check(v)?;
        self.vertices[v.0 as usize].dependent = true;
        Ok(())
    }

    /// Give a vertex a name for DOT output and readable sequences.
    pub fn set_name(&mut self, v: VertexId, name: impl Into<String>) -> Result<(), GraphError> {
        self.check(v)?;
        self.vertices[v.0 as usize].name = Some(name.into());
        Ok(())
    }

    /// Add the edge `src -> dst` labelled with `∂dst/∂src`.
    pub fn add_edge(
        &mut self,
        src: VertexId,
        dst: VertexId,
        label: Label,
    ) -> Result<(), GraphError> {
        self.check(src)?;
        self.check(dst)?;
        if src == dst {
            return Err(GraphError::SelfLoop(src));
        }
        if self.vertices[dst.0 as usize].independent {
            return Err(GraphError::EdgeIntoIndependent(dst));
        }
        self.has_in_edge[dst.0 as usize] = true;
        self.edges.push((src, dst, label));
        Ok(())
    }

    fn check(&self, v: VertexId) -> Result<(), GraphError> {
        if (v.0 as usize) < self.vertices.len() {
            Ok(())
        } else {
            Err(GraphError::UnknownVertex(v))
        }
    }

    pub fn vertex_count(&self) -> usize {
        self.vertices.len()
    }

    pub fn edge_count(&self) -> usize {
        self.edges.len()
    }

    pub fn edges(&self) -> &[(VertexId, VertexId, Label)] {
        &self.edges
    }

    pub fn is_independent(&self, v: VertexId) -> bool {
        self.vertices[v.0 as usize].independent
    }

    pub fn is_dependent(&self, v: VertexId) -> bool {
        self.vertices[v.0 as usize].dependent
    }

    pub fn name(&self, v: VertexId) -> Option<&str> {
        self.vertices
            .get(v.0 as usize)
            .and_then(|i| i.name.as_deref())
    }

    /// Display name: the given name or the id.
    pub fn display_name(&self, v: VertexId) -> String {
        match self.name(v) {
            Some(n) => n.to_string(),
            None if (v.0 as usize) < self.vertices.len() => v.0.to_string(),
            // auxiliary copy of a dependent: shown as the primed dependent
            None => format!("{}'", v.0),
        }
    }

    pub fn independents(&self) -> Vec<VertexId> {
        self.ids().filter(|v| self.is_independent(*v)).collect()
    }

    pub fn dependents(&self) -> Vec<VertexId> {
        self.ids().filter(|v| self.is_dependent(*v)).collect()
    }

    fn ids(&self) -> impl Iterator<Item = VertexId> {
        (0..self.vertices.len() as u32).map(VertexId)
    }

    /// Graphviz DOT: independents as boxes at the top, dependents double circles.
    pub fn to_dot(&self) -> String {
        let mut out = String::from("digraph linearized {\n  rankdir=TB;\n");
        for v in self.ids() {
            let info = &self.vertices[v.0 as usize];
            let shape = match (info.independent, info.dependent) {
                (true, true) => "doubleoctagon",
                (true, false) => "box",
                (false, true) => "doublecircle",
                (false, false) => "circle",
            };
            let _ = writeln!(
                out,
                "  v{} [label=\"{}\", shape={shape}];",
                v.0,
                dot_escape(&self.display_name(v))
            );
        }
        for (s, d, l) in &self.edges {
            let _ = writeln!(
                out,
                "  v{} -> v{} [label=\"{}\"];",
                s.0,
                d.0,
                dot_escape(&label_text(l))
            );
        }
        out.push_str("}\n");
        out
    }
}

pub(crate) fn label_text(l: &Label) -> String {
    match l {
        Label::Value(v) => format!("{v:.4}"),
        Label::Symbol(s) => format!("e{s}"),
        Label::One => "1".into(),
        Label::MinusOne => "-1".into(),
    }
}

pub(crate) fn dot_escape(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}
