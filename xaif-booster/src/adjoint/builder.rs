//! Building a control flow graph statement by statement: statements go
//! into the open basic block; a control vertex closes it. Edges that wait
//! for their target ("pending") are connected to the next vertex added.

use xaif_schema::model::{
    BasicBlock, BasicBlockElement, ControlFlowEdge, ControlFlowVertex, PlainVertex,
};

/// An edge whose source is known and whose target is the next vertex.
#[derive(Debug, Clone)]
pub struct PendingEdge {
    pub source: String,
    /// `Some(v)`: the edge carries condition value `v`.
    pub condition: Option<i64>,
}

pub struct GraphBuilder {
    pub vertices: Vec<ControlFlowVertex>,
    pub edges: Vec<ControlFlowEdge>,
    pending: Vec<PendingEdge>,
    /// Index in `vertices` of the basic block receiving statements.
    open_block: Option<usize>,
    scope_id: u64,
    next_id: usize,
}

impl GraphBuilder {
    pub fn new(scope_id: u64) -> GraphBuilder {
        GraphBuilder {
            vertices: Vec::new(),
            edges: Vec::new(),
            pending: Vec::new(),
            open_block: None,
            scope_id,
            next_id: 0,
        }
    }

    pub fn fresh_id(&mut self) -> String {
        self.next_id += 1;
        format!("v{}", self.next_id)
    }

    fn close_block(&mut self) {
        if let Some(b) = self.open_block.take() {
            let id = self.vertices[b].vertex_id().to_string();
            self.pending = vec![PendingEdge {
                source: id,
                condition: None,
            }];
        }
    }

    /// Adds a vertex (its id already set) after the pending edges; it becomes
    /// the source of the next pending edge.
    pub fn add(&mut self, vertex: ControlFlowVertex) -> String {
        self.close_block();
        let id = vertex.vertex_id().to_string();
        for p in std::mem::take(&mut self.pending) {
            self.edge(&p.source, &id, p.condition);
        }
        self.vertices.push(vertex);
        // By default the next vertex follows this one.
        self.pending = vec![PendingEdge {
            source: id.clone(),
            condition: None,
        }];
        id
    }

    /// Adds a vertex without content of the given kind.
    pub fn add_plain(&mut self, make: fn(PlainVertex) -> ControlFlowVertex) -> String {
        let id = self.fresh_id();
        self.add(make(PlainVertex {
            vertex_id: id.into(),
            annotation: Default::default(),
        }))
    }

    pub fn edge(&mut self, source: &str, target: &str, condition: Option<i64>) {
        let edge_id = format!("e{}", self.edges.len() + 1);
        self.edges.push(ControlFlowEdge {
            edge_id: edge_id.into(),
            source: source.to_string().into(),
            target: target.to_string().into(),
            annotation: Default::default(),
            has_condition_value: condition.is_some(),
            condition_value: condition.unwrap_or(1),
        });
    }

    /// Appends a statement to the open basic block (opening one if needed).
    pub fn statement(&mut self, element: BasicBlockElement) {
        let b = match self.open_block {
            Some(b) => b,
            None => {
                let id = self.fresh_id();
                self.add(ControlFlowVertex::BasicBlock(BasicBlock {
                    vertex_id: id.into(),
                    annotation: Default::default(),
                    scope_id: self.scope_id,
                    elements: Vec::new(),
                }));
                let b = self.vertices.len() - 1;
                self.open_block = Some(b);
                b
            }
        };
        if let ControlFlowVertex::BasicBlock(bb) = &mut self.vertices[b] {
            bb.elements.push(element);
        }
    }

    pub fn statements(&mut self, elements: impl IntoIterator<Item = BasicBlockElement>) {
        for e in elements {
            self.statement(e);
        }
    }

    /// The edges waiting for a target (closing the open block first).
    pub fn take_pending(&mut self) -> Vec<PendingEdge> {
        self.close_block();
        std::mem::take(&mut self.pending)
    }

    pub fn set_pending(&mut self, pending: Vec<PendingEdge>) {
        self.open_block = None;
        self.pending = pending;
    }

    /// Inserts a whole graph (one Entry, one Exit) at the current point:
    /// its vertices but the Entry and Exit, their ids prefixed with
    /// `prefix` (which must make them unique in this graph); the pending
    /// edges lead to the Entry's successor, and the edges into its Exit
    /// become the pending edges.
    pub fn splice(
        &mut self,
        vertices: &[ControlFlowVertex],
        edges: &[ControlFlowEdge],
        prefix: &str,
    ) {
        self.close_block();
        let id_of = |pick: fn(&ControlFlowVertex) -> bool| {
            vertices
                .iter()
                .find(|v| pick(v))
                .map(|v| v.vertex_id().to_string())
        };
        let entry = id_of(|v| matches!(v, ControlFlowVertex::Entry(_)));
        let exit = id_of(|v| matches!(v, ControlFlowVertex::Exit(_)));
        let rename = |id: &str| format!("{prefix}{id}");
        for v in vertices {
            if matches!(v, ControlFlowVertex::Entry(_) | ControlFlowVertex::Exit(_)) {
                continue;
            }
            let mut v = v.clone();
            let id = rename(v.vertex_id());
            set_vertex_id(&mut v, id);
            self.vertices.push(v);
        }
        let before = std::mem::take(&mut self.pending);
        let mut after = Vec::new();
        for e in edges {
            let condition = e.has_condition_value.then_some(e.condition_value);
            let from_entry = entry.as_deref() == Some(e.source.as_str());
            let to_exit = exit.as_deref() == Some(e.target.as_str());
            match (from_entry, to_exit) {
                (true, true) => after.extend(before.iter().cloned()),
                (true, false) => {
                    for p in &before {
                        self.edge(&p.source, &rename(&e.target), p.condition);
                    }
                }
                (false, true) => after.push(PendingEdge {
                    source: rename(&e.source),
                    condition,
                }),
                (false, false) => self.edge(&rename(&e.source), &rename(&e.target), condition),
            }
        }
        self.pending = after;
    }
}

/// Gives a vertex of any kind a new id.
pub fn set_vertex_id(v: &mut ControlFlowVertex, id: String) {
    match v {
        ControlFlowVertex::Entry(p)
        | ControlFlowVertex::Exit(p)
        | ControlFlowVertex::EndBranch(p)
        | ControlFlowVertex::EndLoop(p)
        | ControlFlowVertex::Label(p)
        | ControlFlowVertex::Goto(p) => p.vertex_id = id.into(),
        ControlFlowVertex::BasicBlock(bb) => bb.vertex_id = id.into(),
        ControlFlowVertex::If(c)
        | ControlFlowVertex::Branch(c)
        | ControlFlowVertex::PreLoop(c)
        | ControlFlowVertex::PostLoop(c) => c.vertex_id = id.into(),
        ControlFlowVertex::ForLoop(f) => f.vertex_id = id.into(),
    }
}
