//! Referential integrity of one XAIF graph: vertex ids unique, every edge
//! endpoint names a vertex of the same graph.

use super::cursor::{Cursor, Result};
use std::collections::HashSet;

/// The ids and positions gathered while reading one graph.
#[derive(Default)]
pub(crate) struct GraphRefs<'s> {
    /// (vertex id, offset of the vertex element)
    pub vertices: Vec<(&'s str, usize)>,
    /// (source, offset of `source`, target, offset of `target`)
    pub edges: Vec<(&'s str, usize, &'s str, usize)>,
}

/// Graphs up to this size are checked by linear search (no hashing).
const SMALL_GRAPH: usize = 16;

impl<'s> GraphRefs<'s> {
    pub fn check(&self, c: &Cursor, graph: &str) -> Result<()> {
        if self.vertices.len() <= SMALL_GRAPH {
            for (i, (id, off)) in self.vertices.iter().enumerate() {
                if self.vertices[..i].iter().any(|(other, _)| other == id) {
                    return Err(duplicate(c, graph, id, *off));
                }
            }
            for &(src, src_off, tgt, tgt_off) in &self.edges {
                for (end, off, which) in [(src, src_off, "source"), (tgt, tgt_off, "target")] {
                    if !self.vertices.iter().any(|(id, _)| *id == end) {
                        return Err(dangling(c, graph, which, end, off));
                    }
                }
            }
        } else {
            let mut ids: HashSet<&str> = HashSet::with_capacity(self.vertices.len());
            for &(id, off) in &self.vertices {
                if !ids.insert(id) {
                    return Err(duplicate(c, graph, id, off));
                }
            }
            for &(src, src_off, tgt, tgt_off) in &self.edges {
                for (end, off, which) in [(src, src_off, "source"), (tgt, tgt_off, "target")] {
                    if !ids.contains(end) {
                        return Err(dangling(c, graph, which, end, off));
                    }
                }
            }
        }
        Ok(())
    }
}

fn duplicate(c: &Cursor, graph: &str, id: &str, off: usize) -> crate::XaifError {
    c.error_at(off, format!("duplicate vertex_id \"{id}\" in {graph}"))
}

fn dangling(c: &Cursor, graph: &str, which: &str, id: &str, off: usize) -> crate::XaifError {
    c.error_at(
        off,
        format!("edge {which} \"{id}\" is not a vertex of this {graph}"),
    )
}
