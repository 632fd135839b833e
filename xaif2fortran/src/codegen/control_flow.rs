//! The choice between structured and goto-based lowering of a control
//! flow graph (of a subroutine or of a template placeholder).

use xaif_schema::{ControlFlowEdge, ControlFlowVertex};

use super::cfg_view::CfgView;
use super::UnitGen;
use crate::error::Result;

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
                Err(super::structured::Fallback::Diagnostic(d)) => return Err(d),
                Err(super::structured::Fallback::NotNested) => {
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
