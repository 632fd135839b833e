//! The call graph's vertices by unit: each unit's control flow graph (a
//! passive or input unit) or replacement list (an adjoint unit), found by
//! unit tag (`unit:TAG`) or by subroutine name, and the graphs a unit's
//! code is in (one, or one per replacement).

use std::borrow::Cow;
use std::collections::HashMap;

use super::{folded, unit_tag};
use crate::model::{
    CallGraphVertex, ControlFlowEdge, ControlFlowGraph, ControlFlowVertex, ReplacementList,
};

/// One call graph vertex as a unit: its tag, subroutine name, scope and
/// the graphs of its code.
#[derive(Clone, Copy)]
pub struct UnitGraph<'a> {
    pub vertex: &'a CallGraphVertex,
    /// `unit:TAG`, if annotated.
    pub tag: Option<&'a str>,
    /// The subroutine's symbol.
    pub name: &'a str,
    /// The scope of the unit's own symbols.
    pub scope: u64,
}

impl<'a> UnitGraph<'a> {
    fn new(vertex: &'a CallGraphVertex) -> Self {
        let (annotation, name, scope) = match vertex {
            CallGraphVertex::ControlFlowGraph(c) => {
                (&c.annotation, &c.symbol_id, c.controlflowgraph_scope_id)
            }
            CallGraphVertex::ReplacementList(r) => {
                (&r.annotation, &r.symbol_id, r.controlflowgraph_scope_id)
            }
        };
        UnitGraph {
            vertex,
            tag: unit_tag(annotation),
            name,
            scope,
        }
    }

    /// The graphs holding the unit's code, as (vertices, edges): the
    /// control flow graph, or every replacement in document order.
    pub fn parts(&self) -> Vec<(&'a [ControlFlowVertex], &'a [ControlFlowEdge])> {
        match self.vertex {
            CallGraphVertex::ControlFlowGraph(c) => vec![(&c.vertices, &c.edges)],
            CallGraphVertex::ReplacementList(r) => r
                .replacements
                .iter()
                .map(|p| (p.vertices.as_slice(), p.edges.as_slice()))
                .collect(),
        }
    }
}

/// Control flow graphs and replacement lists by unit tag and by name.
pub struct UnitIndex<'a> {
    graphs: Vec<UnitGraph<'a>>,
    cfgs_by_unit: HashMap<&'a str, &'a ControlFlowGraph>,
    cfgs_by_name: HashMap<Cow<'a, str>, &'a ControlFlowGraph>,
    replacements_by_unit: HashMap<&'a str, &'a ReplacementList>,
    replacements_by_name: HashMap<Cow<'a, str>, &'a ReplacementList>,
}

impl<'a> UnitIndex<'a> {
    /// Indexes the vertices of a call graph (a later vertex of the same
    /// tag or name wins).
    pub fn new(vertices: &'a [CallGraphVertex]) -> Self {
        let mut index = UnitIndex {
            graphs: Vec::with_capacity(vertices.len()),
            cfgs_by_unit: HashMap::new(),
            cfgs_by_name: HashMap::new(),
            replacements_by_unit: HashMap::new(),
            replacements_by_name: HashMap::new(),
        };
        for v in vertices {
            let graph = UnitGraph::new(v);
            match v {
                CallGraphVertex::ControlFlowGraph(c) => {
                    if let Some(tag) = graph.tag {
                        index.cfgs_by_unit.insert(tag, c);
                    }
                    index.cfgs_by_name.insert(folded(&c.symbol_id), c);
                }
                CallGraphVertex::ReplacementList(r) => {
                    if let Some(tag) = graph.tag {
                        index.replacements_by_unit.insert(tag, r);
                    }
                    index.replacements_by_name.insert(folded(&r.symbol_id), r);
                }
            }
            index.graphs.push(graph);
        }
        index
    }

    /// Every vertex of the call graph as a unit, in document order.
    pub fn graphs(&self) -> impl Iterator<Item = UnitGraph<'a>> + '_ {
        self.graphs.iter().copied()
    }

    pub fn cfg_of_unit(&self, tag: &str) -> Option<&'a ControlFlowGraph> {
        self.cfgs_by_unit.get(tag).copied()
    }

    pub fn cfg_named(&self, name: &str) -> Option<&'a ControlFlowGraph> {
        self.cfgs_by_name.get(folded(name).as_ref()).copied()
    }

    pub fn replacements_of_unit(&self, tag: &str) -> Option<&'a ReplacementList> {
        self.replacements_by_unit.get(tag).copied()
    }

    pub fn replacement_list_named(&self, name: &str) -> Option<&'a ReplacementList> {
        self.replacements_by_name
            .get(folded(name).as_ref())
            .copied()
    }

    /// Unit tags of control flow graphs, then of replacement lists.
    pub fn tags(&self) -> impl Iterator<Item = &'a str> + '_ {
        self.graphs.iter().filter_map(|g| g.tag)
    }
}
