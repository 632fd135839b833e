//! Splicing the scalarisation's loop nests into a control flow graph: a
//! basic block holding an array-valued assignment becomes the block's
//! statements before it, the loop nest (shaped as a front end writes
//! loops), and a new block with the statements after it.

use xaif_schema::model::*;

use crate::scalarize_loops::LoopNest;

/// What a basic block becomes: statements and loop nests in order.
pub enum Piece {
    Statements(Vec<BasicBlockElement>),
    Nest(Box<LoopNest>),
}

/// Fresh vertex and edge ids for a graph (numbers above any numeric id,
/// never one in use).
struct FreshIds {
    vertex: u64,
    edge: u64,
    used_edges: std::collections::HashSet<String>,
}

impl FreshIds {
    fn new(cfg: &ControlFlowGraph) -> FreshIds {
        let max = |ids: &mut dyn Iterator<Item = &str>| {
            ids.filter_map(|s| s.parse::<u64>().ok()).max().unwrap_or(0)
        };
        FreshIds {
            vertex: max(&mut cfg.vertices.iter().map(|v| v.vertex_id())),
            edge: max(&mut cfg.edges.iter().map(|e| e.edge_id.as_str())),
            used_edges: cfg.edges.iter().map(|e| e.edge_id.to_string()).collect(),
        }
    }

    fn vertex(&mut self) -> String {
        self.vertex += 1;
        self.vertex.to_string()
    }

    fn edge(&mut self) -> String {
        loop {
            self.edge += 1;
            let id = self.edge.to_string();
            if self.used_edges.insert(id.clone()) {
                return id;
            }
        }
    }
}

fn edge(ids: &mut FreshIds, source: &str, target: &str, condition: Option<i64>) -> ControlFlowEdge {
    ControlFlowEdge {
        edge_id: ids.edge().into(),
        source: source.to_string().into(),
        target: target.to_string().into(),
        annotation: Default::default(),
        has_condition_value: condition.is_some(),
        condition_value: condition.unwrap_or(1),
    }
}

/// Replaces the basic block at `block` by `pieces`, shaped as a front end
/// writes loops: `ForLoop -1-> BasicBlock -> ... -> EndLoop -> ForLoop`,
/// `ForLoop -0-> BasicBlock`. The block keeps the first statements; its
/// successors follow the last statements.
pub fn splice(cfg: &mut ControlFlowGraph, block: usize, pieces: Vec<Piece>) {
    let mut ids = FreshIds::new(cfg);
    let ControlFlowVertex::BasicBlock(bb) = &cfg.vertices[block] else {
        unreachable!("pieces come from a basic block");
    };
    let block_id = bb.vertex_id.clone();
    let scope_id = bb.scope_id;
    let outgoing: Vec<usize> = (0..cfg.edges.len())
        .filter(|&k| cfg.edges[k].source == block_id)
        .collect();
    // The blocks in order (the first is the original one), then the rest.
    let mut blocks: Vec<(String, Vec<BasicBlockElement>)> =
        vec![(block_id.to_string(), Vec::new())];
    let mut others = Vec::new();
    let mut new_edges = Vec::new();
    let new_block = |ids: &mut FreshIds, blocks: &mut Vec<(String, Vec<BasicBlockElement>)>| {
        let id = ids.vertex();
        blocks.push((id.clone(), Vec::new()));
        id
    };
    for piece in pieces {
        match piece {
            Piece::Statements(s) => blocks.last_mut().expect("a block").1.extend(s),
            Piece::Nest(nest) => {
                let nest = *nest;
                let mut fors = Vec::new();
                for mut h in nest.headers {
                    let id = ids.vertex();
                    h.vertex_id = id.clone().into();
                    others.push(ControlFlowVertex::ForLoop(Box::new(h)));
                    let last = blocks.last().expect("a block").0.clone();
                    new_edges.push(edge(&mut ids, &last, &id, None));
                    let b = new_block(&mut ids, &mut blocks);
                    new_edges.push(edge(&mut ids, &id, &b, Some(1)));
                    fors.push(id);
                }
                blocks
                    .last_mut()
                    .expect("a block")
                    .1
                    .push(BasicBlockElement::Assignment(nest.body));
                for f in fors.into_iter().rev() {
                    let end = ids.vertex();
                    others.push(ControlFlowVertex::EndLoop(PlainVertex {
                        vertex_id: end.clone().into(),
                        annotation: Default::default(),
                    }));
                    let last = blocks.last().expect("a block").0.clone();
                    new_edges.push(edge(&mut ids, &last, &end, None));
                    new_edges.push(edge(&mut ids, &end, &f, None));
                    let b = new_block(&mut ids, &mut blocks);
                    new_edges.push(edge(&mut ids, &f, &b, Some(0)));
                }
            }
        }
    }
    let last_id = blocks.last().expect("a block").0.clone();
    for k in outgoing {
        cfg.edges[k].source = last_id.clone().into();
    }
    let mut blocks = blocks.into_iter();
    let (_, first) = blocks.next().expect("the original block");
    if let ControlFlowVertex::BasicBlock(bb) = &mut cfg.vertices[block] {
        bb.elements = first;
    }
    cfg.vertices.extend(blocks.map(|(vertex_id, elements)| {
        ControlFlowVertex::BasicBlock(BasicBlock {
            vertex_id: vertex_id.into(),
            annotation: Default::default(),
            scope_id,
            elements,
        })
    }));
    cfg.vertices.extend(others);
    cfg.edges.extend(new_edges);
}
