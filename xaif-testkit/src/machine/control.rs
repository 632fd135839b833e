//! Control flow: a graph from its Entry to its Exit.

use std::collections::HashMap;
use xaif_schema::model::*;

use super::Machine;

impl Machine {
    /// Runs a control flow graph from its Entry to its Exit (a graph
    /// without an Entry, a module's empty body, does nothing).
    pub fn run(&mut self, vertices: &[ControlFlowVertex], edges: &[ControlFlowEdge]) {
        let by_id: HashMap<&str, &ControlFlowVertex> =
            vertices.iter().map(|v| (v.vertex_id(), v)).collect();
        let out = |id: &str| -> Vec<&ControlFlowEdge> {
            edges.iter().filter(|e| e.source == id).collect()
        };
        // Parallel edges to the same vertex are one way on.
        let single = |id: &str| -> String {
            let o = out(id);
            assert!(
                !o.is_empty() && o.iter().all(|e| e.target == o[0].target),
                "vertex {id} must have one successor"
            );
            o[0].target.to_string()
        };
        let on = |id: &str, value: i64| -> String {
            out(id)
                .into_iter()
                .find(|e| e.has_condition_value && e.condition_value == value)
                .or_else(|| out(id).into_iter().find(|e| !e.has_condition_value))
                .unwrap_or_else(|| panic!("no edge for {value} out of {id}"))
                .target
                .to_string()
        };
        let Some(entry) = vertices
            .iter()
            .find(|v| matches!(v, ControlFlowVertex::Entry(_)))
        else {
            return;
        };
        let mut cur = entry.vertex_id().to_string();
        let mut prev = String::new();
        loop {
            self.steps += 1;
            assert!(self.steps < 10_000_000, "endless loop");
            let v = by_id[cur.as_str()];
            // Coming back from the loop's own EndLoop?
            let from_end = matches!(
                by_id.get(prev.as_str()),
                Some(ControlFlowVertex::EndLoop(_))
            ) && out(&prev).first().is_some_and(|e| e.target == cur);
            let next = match v {
                ControlFlowVertex::Exit(_) => return,
                ControlFlowVertex::Entry(_)
                | ControlFlowVertex::EndBranch(_)
                | ControlFlowVertex::EndLoop(_)
                | ControlFlowVertex::Label(_)
                | ControlFlowVertex::Goto(_) => single(&cur),
                ControlFlowVertex::BasicBlock(b) => {
                    for el in &b.elements {
                        self.element(el);
                    }
                    single(&cur)
                }
                ControlFlowVertex::If(c) => {
                    let t = self.eval(c.condition.as_ref().unwrap()) != 0.0;
                    on(&cur, t as i64)
                }
                ControlFlowVertex::Branch(c) => {
                    let k = self.eval(c.condition.as_ref().unwrap());
                    on(&cur, k as i64)
                }
                ControlFlowVertex::ForLoop(f) => {
                    if from_end {
                        self.assign(f.update.as_ref().unwrap());
                    } else {
                        self.assign(f.initialization.as_ref().unwrap());
                    }
                    let t = self.eval(f.condition.as_ref().unwrap()) != 0.0;
                    on(&cur, t as i64)
                }
                ControlFlowVertex::PreLoop(c) => {
                    let t = self.eval(c.condition.as_ref().unwrap()) != 0.0;
                    on(&cur, t as i64)
                }
                ControlFlowVertex::PostLoop(c) => {
                    let t = !from_end || self.eval(c.condition.as_ref().unwrap()) != 0.0;
                    on(&cur, t as i64)
                }
            };
            prev = cur;
            cur = next;
        }
    }
}
