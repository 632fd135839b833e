//! A control flow graph (of a subroutine or of a template placeholder) as
//! vertices with their out-edges, and the choice between structured and
//! goto-based lowering.

use std::collections::HashMap;

use xaif_schema::{ControlFlowEdge, ControlFlowVertex};

use crate::codegen::UnitGen;
use crate::error::Result;

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

impl UnitGen<'_, '_> {
    /// Emits a control flow graph: nested Fortran when it is structured,
    /// labels and gotos otherwise (or when the nesting does not match).
    pub fn control_flow(
        &mut self,
        vertices: &[ControlFlowVertex],
        edges: &[ControlFlowEdge],
        structured: bool,
        what: &str,
    ) -> Result<()> {
        let view = CfgView::new(vertices, edges);
        let Some(entry) = view.entry() else {
            return Err(self
                .env
                .xaif
                .error(what, format!("control flow graph of {what} has no Entry")));
        };
        // Graphs marked unstructured only because of exit / cycle / early
        // return edges (Goto and Label vertices included) often still nest;
        // the structured emitter checks the nesting itself and falls back
        // to gotos when it does not hold. `structured` is only a hint.
        let _ = structured;
        {
            self.region_budget = 4 * vertices.len() + 16;
            let saved = (self.lines.len(), self.extra_decls.len(), self.indent);
            let formats = self.emitted_formats.clone();
            self.loop_depths.clear();
            match self.structured(&view, entry.vertex_id()) {
                Ok(()) => return Ok(()),
                Err(crate::structured::Fallback::Diagnostic(d)) => return Err(d),
                Err(crate::structured::Fallback::NotNested) => {
                    self.lines.truncate(saved.0);
                    self.extra_decls.truncate(saved.1);
                    self.indent = saved.2;
                    self.emitted_formats = formats;
                }
            }
        }
        self.unstructured(&view, entry.vertex_id(), what)
    }
}
