//! petgraph views of XAIF graphs: the vertices and edges of a model graph
//! as a `petgraph::Graph` (weights borrow from the model), with the map
//! from vertex id to node index.

use crate::model::*;
use petgraph::graph::{DiGraph, NodeIndex};
use std::collections::HashMap;
use std::fmt;

/// A borrowed graph view.
pub struct GraphView<'a, V, E> {
    pub graph: DiGraph<&'a V, &'a E>,
    /// vertex id → node index.
    pub index: HashMap<&'a str, NodeIndex>,
}

impl<'a, V, E> GraphView<'a, V, E> {
    /// The node of a vertex id.
    pub fn node(&self, vertex_id: &str) -> Option<NodeIndex> {
        self.index.get(vertex_id).copied()
    }
}

/// A model graph that cannot be viewed: an edge names a vertex that is
/// not there, or two vertices share an id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GraphError {
    MissingVertex { edge_id: String, vertex_id: String },
    DuplicateVertex { vertex_id: String },
}

impl fmt::Display for GraphError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GraphError::MissingVertex { edge_id, vertex_id } => {
                write!(
                    f,
                    "edge {edge_id} names vertex {vertex_id}, which does not exist"
                )
            }
            GraphError::DuplicateVertex { vertex_id } => {
                write!(f, "two vertices have the id {vertex_id}")
            }
        }
    }
}

impl std::error::Error for GraphError {}

fn build<'a, V, E>(
    vertices: &'a [V],
    vertex_id: impl Fn(&'a V) -> &'a str,
    edges: &'a [E],
    ends: impl Fn(&'a E) -> (&'a str, &'a str, &'a str),
) -> Result<GraphView<'a, V, E>, GraphError> {
    let mut graph = DiGraph::with_capacity(vertices.len(), edges.len());
    let mut index = HashMap::with_capacity(vertices.len());
    for v in vertices {
        let id = vertex_id(v);
        let n = graph.add_node(v);
        if index.insert(id, n).is_some() {
            return Err(GraphError::DuplicateVertex {
                vertex_id: id.to_string(),
            });
        }
    }
    for e in edges {
        let (edge_id, source, target) = ends(e);
        let lookup = |id: &str| {
            index
                .get(id)
                .copied()
                .ok_or_else(|| GraphError::MissingVertex {
                    edge_id: edge_id.to_string(),
                    vertex_id: id.to_string(),
                })
        };
        let (s, t) = (lookup(source)?, lookup(target)?);
        graph.add_edge(s, t, e);
    }
    Ok(GraphView { graph, index })
}

/// The call graph: subroutines (and replacement lists), caller → callee.
pub fn call_graph(cg: &CallGraph) -> Result<GraphView<'_, CallGraphVertex, Edge>, GraphError> {
    build(
        &cg.vertices,
        |v| match v {
            CallGraphVertex::ControlFlowGraph(g) => &g.vertex_id,
            CallGraphVertex::ReplacementList(r) => &r.vertex_id,
        },
        &cg.edges,
        |e| (&e.edge_id, &e.source, &e.target),
    )
}

/// A control flow graph.
pub fn control_flow_graph(
    g: &ControlFlowGraph,
) -> Result<GraphView<'_, ControlFlowVertex, ControlFlowEdge>, GraphError> {
    flow_graph(&g.vertices, &g.edges)
}

/// The control flow graph of a replacement.
pub fn replacement_graph(
    r: &Replacement,
) -> Result<GraphView<'_, ControlFlowVertex, ControlFlowEdge>, GraphError> {
    flow_graph(&r.vertices, &r.edges)
}

fn flow_graph<'a>(
    vertices: &'a [ControlFlowVertex],
    edges: &'a [ControlFlowEdge],
) -> Result<GraphView<'a, ControlFlowVertex, ControlFlowEdge>, GraphError> {
    build(
        vertices,
        |v| v.vertex_id(),
        edges,
        |e| (&e.edge_id, &e.source, &e.target),
    )
}

/// An expression DAG; edges go from argument to operation.
pub fn expression_graph(
    x: &Expression,
) -> Result<GraphView<'_, ExpressionVertex, ExpressionEdge>, GraphError> {
    build(
        &x.vertices,
        |v| v.vertex_id(),
        &x.edges,
        |e| (&e.edge_id, &e.source, &e.target),
    )
}

/// The scope tree; edges go from a scope to its parent.
pub fn scope_hierarchy(h: &ScopeHierarchy) -> Result<GraphView<'_, Scope, Edge>, GraphError> {
    build(
        &h.scopes,
        |s| &s.vertex_id,
        &h.edges,
        |e| (&e.edge_id, &e.source, &e.target),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use petgraph::Direction;

    fn var(id: &str) -> ExpressionVertex {
        ExpressionVertex::VariableReference(VariableReference {
            vertex_id: id.into(),
            ..Default::default()
        })
    }

    fn op(id: &str, name: &str) -> ExpressionVertex {
        ExpressionVertex::Intrinsic(Intrinsic {
            vertex_id: id.into(),
            annotation: Default::default(),
            name: name.into(),
            type_: "inlinable".into(),
            r_type: SymbolType::Real,
            r_shape: SymbolShape::Scalar,
        })
    }

    fn edge(id: &str, s: &str, t: &str, position: i64) -> ExpressionEdge {
        ExpressionEdge {
            edge_id: id.into(),
            source: s.into(),
            target: t.into(),
            position,
            annotation: Default::default(),
        }
    }

    #[test]
    fn expression_view_maps_ids_to_nodes_and_keeps_edges() {
        // sin(x) * y
        let x = Expression {
            vertices: vec![
                var("1"),
                op("2", "sin_scal"),
                var("3"),
                op("4", "mul_scal_scal"),
            ],
            edges: vec![
                edge("1", "1", "2", 1),
                edge("2", "2", "4", 1),
                edge("3", "3", "4", 2),
            ],
        };
        let v = expression_graph(&x).unwrap();
        assert_eq!(v.graph.node_count(), 4);
        assert_eq!(v.graph.edge_count(), 3);
        let mul = v.node("4").unwrap();
        let args: Vec<i64> = v
            .graph
            .edges_directed(mul, Direction::Incoming)
            .map(|e| e.weight().position)
            .collect();
        assert_eq!(args.len(), 2);
        assert!(args.contains(&1) && args.contains(&2));
        let roots: Vec<_> = v.graph.externals(Direction::Outgoing).collect();
        assert_eq!(roots, vec![mul]);
    }

    #[test]
    fn dangling_and_duplicate_ids_are_reported() {
        let x = Expression {
            vertices: vec![var("1")],
            edges: vec![edge("7", "1", "9", 1)],
        };
        assert_eq!(
            expression_graph(&x).err(),
            Some(GraphError::MissingVertex {
                edge_id: "7".into(),
                vertex_id: "9".into()
            })
        );
        let y = Expression {
            vertices: vec![var("1"), var("1")],
            edges: vec![],
        };
        assert!(matches!(
            expression_graph(&y),
            Err(GraphError::DuplicateVertex { .. })
        ));
    }
}
