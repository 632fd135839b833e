//! Edge elimination (paper 000; paper 001 section 3.1).
//!
//! Front elimination of `(i,j)` connects `i` with every successor `k` of `j`
//! (`c_ki += c_kj * c_ji`) and removes `(i,j)`; `j` becomes isolated once
//! its last in-edge is gone.  Back elimination of `(j,k)` connects every
//! predecessor `i` of `j` with `k` and removes `(j,k)`; `j` becomes isolated
//! once its last out-edge is gone.  Isolated intermediates are removed.
//! Front elimination needs `j` intermediate, back elimination needs `j`
//! (the source) intermediate.

use super::label::Labels;
use super::work::WorkGraph;

impl WorkGraph {
    pub fn can_front_eliminate(&self, i: u32, j: u32) -> bool {
        self.is_intermediate(j) && self.has_edge(i, j)
    }

    pub fn can_back_eliminate(&self, j: u32, k: u32) -> bool {
        self.is_intermediate(j) && self.has_edge(j, k)
    }

    pub fn front_eliminate(&mut self, labels: &mut Labels, i: u32, j: u32) {
        let succs = self.succ[j as usize].clone();
        for &k in &succs {
            self.add_product(labels, i, j, k);
        }
        self.remove_edge(i, j);
        self.remove_isolated(vec![j, i]);
    }

    pub fn back_eliminate(&mut self, labels: &mut Labels, j: u32, k: u32) {
        let preds = self.pred[j as usize].clone();
        for &i in &preds {
            self.add_product(labels, i, j, k);
        }
        self.remove_edge(j, k);
        self.remove_isolated(vec![j, k]);
    }

    /// Net edge change of front-eliminating `(i,j)`: fill-ins, minus the edge
    /// itself, minus `j`'s out-edges if `j` becomes isolated.
    pub fn front_relative_markowitz(&self, i: u32, j: u32) -> i64 {
        let succs = &self.succ[j as usize];
        let fill = self.missing_edges(&[i], succs) as i64;
        let isolated = if self.pred[j as usize].len() == 1 {
            succs.len() as i64
        } else {
            0
        };
        fill - 1 - isolated
    }

    pub fn back_relative_markowitz(&self, j: u32, k: u32) -> i64 {
        let preds = &self.pred[j as usize];
        let fill = self.missing_edges(preds, &[k]) as i64;
        let isolated = if self.succ[j as usize].len() == 1 {
            preds.len() as i64
        } else {
            0
        };
        fill - 1 - isolated
    }
}
