//! A control flow graph (of a subroutine or of a template placeholder) as
//! vertices with their out-edges, the view every emitter walks.

use std::collections::HashMap;

use xaif_schema::{ControlFlowEdge, ControlFlowVertex};

/// Vertices by id and out-edges in document order.
pub struct CfgView<'c> {
    pub vertices: Vec<&'c ControlFlowVertex>,
    pub by_id: HashMap<&'c str, &'c ControlFlowVertex>,
    pub out: HashMap<&'c str, Vec<&'c ControlFlowEdge>>,
}

impl<'c> CfgView<'c> {
    pub fn new(vertices: &'c [ControlFlowVertex], edges: &'c [ControlFlowEdge]) -> Self {
        let by_id = vertices.iter().map(|v| (v.vertex_id(), v)).collect();
        let mut out: HashMap<&str, Vec<&ControlFlowEdge>> = HashMap::new();
        for e in edges {
            out.entry(e.source.as_str()).or_default().push(e);
        }
        CfgView {
            vertices: vertices.iter().collect(),
            by_id,
            out,
        }
    }

    pub fn entry(&self) -> Option<&'c ControlFlowVertex> {
        self.vertices
            .iter()
            .copied()
            .find(|v| matches!(v, ControlFlowVertex::Entry(_)))
    }

    pub fn out_edges(&self, id: &str) -> &[&'c ControlFlowEdge] {
        self.out.get(id).map(|v| v.as_slice()).unwrap_or(&[])
    }

    /// The target of the only out-edge.
    pub fn single_successor(&self, id: &str) -> Option<&'c str> {
        match self.out_edges(id) {
            [e] => Some(e.target.as_str()),
            _ => None,
        }
    }

    /// The target of the out-edge with the given condition value.
    pub fn successor_on(&self, id: &str, value: i64) -> Option<&'c str> {
        self.out_edges(id)
            .iter()
            .find(|e| e.has_condition_value && e.condition_value == value)
            .map(|e| e.target.as_str())
    }
}
