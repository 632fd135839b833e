//! Vertex elimination (paper 000, section "Elimination Methods"): connect
//! every predecessor of `j` with every successor of `j`, the new label being
//! `c_kj * c_ji` (fill-in) or added to an existing `c_ki` (absorption); then
//! remove `j` with its incident edges.

use super::label::Labels;
use super::work::WorkGraph;

impl WorkGraph {
    pub fn eliminate_vertex(&mut self, labels: &mut Labels, j: u32) {
        let preds = self.pred[j as usize].clone();
        let succs = self.succ[j as usize].clone();
        for &s in &succs {
            for &p in &preds {
                self.add_product(labels, p, j, s);
            }
        }
        self.remove_vertex(j);
        let mut touched = preds;
        touched.extend(succs);
        self.remove_isolated(touched);
    }

    /// Multiplications vertex elimination of `j` performs (all products).
    pub fn vertex_markowitz(&self, j: u32) -> i64 {
        (self.pred[j as usize].len() * self.succ[j as usize].len()) as i64
    }

    /// Net change in the number of edges: fill-ins minus the removed edges.
    pub fn vertex_relative_markowitz(&self, j: u32) -> i64 {
        let (p, s) = (&self.pred[j as usize], &self.succ[j as usize]);
        self.missing_edges(p, s) as i64 - (p.len() + s.len()) as i64
    }
}
