//! Referential integrity of one XAIF graph: vertex ids unique, every edge
//! endpoint names a vertex of the same graph.
//!
//! While a graph is read, the cursor's mark stack records where each of
//! its vertices and edge ends was written (nested graphs push above and
//! pop back), so checking needs no allocation for small graphs and errors
//! still point at the offending attribute.

use super::cursor::{Cursor, Mark, Result};
use std::collections::HashSet;

/// Graphs up to this size are checked by linear search (no hashing).
const SMALL_GRAPH: usize = 16;

/// Checks the graph whose marks start at `base`; the caller pops the
/// marks (`c.marks.truncate(base)`) once the check has passed. `ids` and
/// `ends` list the vertices and edges in document order.
pub(crate) fn check_graph<'s>(
    c: &Cursor,
    base: usize,
    graph: &str,
    ids: impl Iterator<Item = &'s str> + Clone,
    ends: impl Iterator<Item = (&'s str, &'s str)>,
) -> Result<()> {
    let marks = &c.marks[base..];
    let vertex_offsets = marks.iter().filter_map(|m| match m {
        Mark::Vertex(o) => Some(*o),
        Mark::Edge(..) => None,
    });
    let edge_offsets = marks.iter().filter_map(|m| match m {
        Mark::Edge(s, t) => Some((*s, *t)),
        Mark::Vertex(_) => None,
    });
    let n = vertex_offsets.clone().count();
    if n <= SMALL_GRAPH {
        let mut seen: [&str; SMALL_GRAPH] = [""; SMALL_GRAPH];
        for (i, (id, off)) in ids.zip(vertex_offsets).enumerate() {
            if seen[..i].contains(&id) {
                return Err(duplicate(c, graph, id, off));
            }
            seen[i] = id;
        }
        let seen = &seen[..n];
        for ((src, tgt), (src_off, tgt_off)) in ends.zip(edge_offsets) {
            if !seen.contains(&src) {
                return Err(dangling(c, graph, "source", src, src_off));
            }
            if !seen.contains(&tgt) {
                return Err(dangling(c, graph, "target", tgt, tgt_off));
            }
        }
    } else {
        let mut seen: HashSet<&str> = HashSet::with_capacity(n);
        for (id, off) in ids.zip(vertex_offsets) {
            if !seen.insert(id) {
                return Err(duplicate(c, graph, id, off));
            }
        }
        for ((src, tgt), (src_off, tgt_off)) in ends.zip(edge_offsets) {
            if !seen.contains(src) {
                return Err(dangling(c, graph, "source", src, src_off));
            }
            if !seen.contains(tgt) {
                return Err(dangling(c, graph, "target", tgt, tgt_off));
            }
        }
    }
    Ok(())
}

fn duplicate(c: &Cursor, graph: &str, id: &str, off: usize) -> crate::XaifError {
    c.error_at(
        off,
        format!(
            "duplicate vertex_id \"{id}\" in {graph}: vertex ids must be unique within \
             one graph (XAIF schema, xaif_base.xsd: VertexType, and the identity \
             constraints rhsv_unique/egv_unique/cfgv_unique, which xmllint does not enforce \
             inside expressions because their selectors lack the namespace prefix), or its \
             edges could not tell the vertices apart"
        ),
    )
}

fn dangling(c: &Cursor, graph: &str, which: &str, id: &str, off: usize) -> crate::XaifError {
    c.error_at(
        off,
        format!(
            "edge {which} \"{id}\" is not a vertex of this {graph} (XAIF schema, \
             xaif_base.xsd: EdgeType, source and target are vertex ids of the same graph; \
             keyrefs rhs_keyref1/rhs_keyref2 for expressions)"
        ),
    )
}
