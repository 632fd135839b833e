//! Control flow graphs of the canonical statements, one per subprogram, in
//! the vertex kinds of XAIF (docs/ARCHITECTURE.md, "Control flow edges").

use crate::ast::*;
use std::collections::HashMap;

pub type NodeId = usize;

#[derive(Debug, Clone, PartialEq)]
pub enum NodeKind {
    Entry,
    Exit,
    /// Assignments, calls and opaque statements, in order.
    Block(Vec<Stmt>),
    If(Expr),
    /// Select case on integer constants.
    Branch(Expr),
    EndBranch,
    ForLoop(DoControl),
    PreLoop(Expr),
    EndLoop,
    Label(String),
    Goto,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    pub kind: NodeKind,
    pub span: Span,
    /// Statement ids of what the vertex evaluates: the condition (If,
    /// Branch, PreLoop) or initialisation, condition and update (ForLoop).
    pub ids: Vec<usize>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CfgEdge {
    pub from: NodeId,
    pub to: NodeId,
    /// `Some(1)`/`Some(0)` for true/false (loop body/exit), `Some(v)` for a
    /// case value, `None` for plain edges and the default case.
    pub cond: Option<i64>,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct Cfg {
    pub nodes: Vec<Node>,
    pub edges: Vec<CfgEdge>,
    pub structured: bool,
}

impl Cfg {
    pub fn successors(&self, n: NodeId) -> impl Iterator<Item = &CfgEdge> {
        self.edges.iter().filter(move |e| e.from == n)
    }
}

struct LoopCtx {
    construct: Option<String>,
    end: NodeId,
    /// Label vertex after the loop, created when an `exit` needs it.
    exit: Option<NodeId>,
}

struct Builder {
    cfg: Cfg,
    labels: HashMap<String, NodeId>,
    targets: std::collections::HashSet<String>,
    loops: Vec<LoopCtx>,
    exit: NodeId,
    /// Per node: does an edge leave it already?
    has_out: Vec<bool>,
}

/// Builds the control flow graph of a canonical subprogram body.
pub fn build(body: &[Stmt], span: Span) -> FrontResult<Cfg> {
    let mut targets = std::collections::HashSet::new();
    collect_targets(body, &mut targets);
    let mut b = Builder {
        cfg: Cfg {
            structured: true,
            ..Cfg::default()
        },
        labels: HashMap::new(),
        targets,
        loops: Vec::new(),
        exit: 0,
        has_out: Vec::new(),
    };
    let entry = b.node(NodeKind::Entry, span);
    b.exit = b.node(NodeKind::Exit, span);
    let end = b.seq(body, Some(entry))?;
    if let Some(e) = end {
        b.edge(e, b.exit, None);
    }
    // Every goto target must label a statement of this body.
    for (l, n) in &b.labels {
        let placed = b.has_out[*n];
        if !placed {
            return Err(FrontError::new(span, format!("goto to label {l}, which labels no reachable statement of this subprogram body")));
        }
    }
    // Put Exit last, as the reference examples do.
    let mut cfg = b.cfg;
    let exit = 1;
    let last = cfg.nodes.len() - 1;
    if exit != last {
        let node = cfg.nodes.remove(exit);
        cfg.nodes.push(node);
        for e in cfg.edges.iter_mut() {
            for x in [&mut e.from, &mut e.to] {
                if *x == exit {
                    *x = last;
                } else if *x > exit {
                    *x -= 1;
                }
            }
        }
    }
    Ok(cfg)
}

fn collect_targets(stmts: &[Stmt], out: &mut std::collections::HashSet<String>) {
    for s in stmts {
        match &s.kind {
            StmtKind::Goto(l) => {
                out.insert(l.clone());
            }
            StmtKind::If { arms, otherwise } => {
                arms.iter().for_each(|(_, b)| collect_targets(b, out));
                if let Some(b) = otherwise {
                    collect_targets(b, out);
                }
            }
            StmtKind::Do { body, .. } | StmtKind::DoWhile { body, .. } => {
                collect_targets(body, out)
            }
            StmtKind::Select { cases, .. } => {
                cases.iter().for_each(|c| collect_targets(&c.body, out))
            }
            _ => {}
        }
    }
}

impl Builder {
    fn node(&mut self, kind: NodeKind, span: Span) -> NodeId {
        self.has_out.push(false);
        self.cfg.nodes.push(Node {
            kind,
            span,
            ids: Vec::new(),
        });
        self.cfg.nodes.len() - 1
    }

    fn edge(&mut self, from: NodeId, to: NodeId, cond: Option<i64>) {
        self.has_out[from] = true;
        self.cfg.edges.push(CfgEdge { from, to, cond });
    }

    fn label_node(&mut self, l: &str, span: Span) -> NodeId {
        if let Some(n) = self.labels.get(l) {
            return *n;
        }
        let n = self.node(NodeKind::Label(l.to_string()), span);
        self.labels.insert(l.to_string(), n);
        n
    }

    /// Appends a simple statement to the block control is in (opening one
    /// if needed).
    fn simple(&mut self, s: &Stmt, cur: NodeId) -> NodeId {
        if let NodeKind::Block(stmts) = &mut self.cfg.nodes[cur].kind {
            // Only extend a block control has not left yet.
            if !self.has_out[cur] {
                stmts.push(s.clone());
                return cur;
            }
        }
        let b = self.node(NodeKind::Block(vec![s.clone()]), s.span);
        self.edge(cur, b, None);
        b
    }

    /// A branch body: always starts with its own basic block.
    fn branch(
        &mut self,
        stmts: &[Stmt],
        from: NodeId,
        cond: Option<i64>,
        span: Span,
    ) -> FrontResult<Option<NodeId>> {
        let b = self.node(NodeKind::Block(Vec::new()), span);
        self.edge(from, b, cond);
        self.seq(stmts, Some(b))
    }

    /// Builds `stmts` with control arriving from `cur` (None: unreachable).
    /// Returns the node control leaves from, or None after a jump.
    fn seq(&mut self, stmts: &[Stmt], mut cur: Option<NodeId>) -> FrontResult<Option<NodeId>> {
        for s in stmts {
            if let Some(l) = &s.label {
                if self.targets.contains(l) {
                    let n = self.label_node(l, s.span);
                    self.cfg.structured = false;
                    if let Some(c) = cur {
                        self.edge(c, n, None);
                    }
                    cur = Some(n);
                }
            }
            let Some(c) = cur else {
                // Unreachable code after a jump: nothing reaches it.
                continue;
            };
            cur = self.stmt(s, c)?;
        }
        Ok(cur)
    }

    fn stmt(&mut self, s: &Stmt, cur: NodeId) -> FrontResult<Option<NodeId>> {
        let span = s.span;
        Ok(match &s.kind {
            StmtKind::Assign { .. } | StmtKind::Call { .. } | StmtKind::Opaque { .. } => {
                Some(self.simple(s, cur))
            }
            StmtKind::Continue => Some(cur),
            StmtKind::If { arms, otherwise } => {
                Some(self.if_chain(arms, otherwise.as_deref(), cur, span)?)
            }
            StmtKind::Do {
                construct,
                control,
                body,
            } => {
                let head = match control {
                    Some(c) => self.node(NodeKind::ForLoop(c.clone()), span),
                    None => self.node(
                        NodeKind::PreLoop(Expr::Lit(Literal::Logical(true), span)),
                        span,
                    ),
                };
                Some(self.loop_(head, construct.clone(), body, cur, span)?)
            }
            StmtKind::DoWhile {
                construct,
                cond,
                body,
            } => {
                let head = self.node(NodeKind::PreLoop(cond.clone()), span);
                Some(self.loop_(head, construct.clone(), body, cur, span)?)
            }
            StmtKind::Select { selector, cases } => {
                let br = self.node(NodeKind::Branch(selector.clone()), span);
                self.edge(cur, br, None);
                let end = self.node(NodeKind::EndBranch, span);
                let mut has_default = false;
                for c in cases {
                    let cond =
                        match &c.values {
                            None => {
                                has_default = true;
                                None
                            }
                            Some(v) => Some(v[0].const_int().ok_or_else(|| {
                                FrontError::new(span, "internal error: case value")
                            })?),
                        };
                    if let Some(x) = self.branch(&c.body, br, cond, span)? {
                        self.edge(x, end, None);
                    }
                }
                if !has_default {
                    let b = self.node(NodeKind::Block(Vec::new()), span);
                    self.edge(br, b, None);
                    self.edge(b, end, None);
                }
                Some(end)
            }
            StmtKind::Goto(l) => {
                self.cfg.structured = false;
                let g = self.node(NodeKind::Goto, span);
                self.edge(cur, g, None);
                let t = self.label_node(l, span);
                self.edge(g, t, None);
                None
            }
            StmtKind::Return => {
                self.cfg.structured = false;
                let g = self.node(NodeKind::Goto, span);
                self.edge(cur, g, None);
                let exit = self.exit;
                self.edge(g, exit, None);
                None
            }
            StmtKind::Where { .. } | StmtKind::Forall { .. } => {
                return Err(FrontError::new(
                    span,
                    "internal error: where or forall left after canonicalisation",
                ))
            }
            StmtKind::Exit(name) | StmtKind::Cycle(name) => {
                let is_exit = matches!(s.kind, StmtKind::Exit(_));
                let k = match name {
                    None => self.loops.len().checked_sub(1),
                    Some(n) => self
                        .loops
                        .iter()
                        .rposition(|l| l.construct.as_deref() == Some(n.as_str())),
                }
                .ok_or_else(|| {
                    FrontError::new(
                        span,
                        format!(
                            "{} outside a matching do loop",
                            if is_exit { "exit" } else { "cycle" }
                        ),
                    )
                })?;
                self.cfg.structured = false;
                let g = self.node(NodeKind::Goto, span);
                self.edge(cur, g, None);
                let target = if is_exit {
                    match self.loops[k].exit {
                        Some(t) => t,
                        None => {
                            let t = self.node(NodeKind::Label(String::new()), span);
                            self.loops[k].exit = Some(t);
                            t
                        }
                    }
                } else {
                    self.loops[k].end
                };
                self.edge(g, target, None);
                None
            }
        })
    }

    fn if_chain(
        &mut self,
        arms: &[(Expr, Vec<Stmt>)],
        otherwise: Option<&[Stmt]>,
        cur: NodeId,
        span: Span,
    ) -> FrontResult<NodeId> {
        let (cond, body) = &arms[0];
        let iff = self.node(NodeKind::If(cond.clone()), span);
        self.edge(cur, iff, None);
        let end = self.node(NodeKind::EndBranch, span);
        if let Some(x) = self.branch(body, iff, Some(1), span)? {
            self.edge(x, end, None);
        }
        if arms.len() > 1 {
            // else if: a nested if in the false branch.
            let b = self.node(NodeKind::Block(Vec::new()), span);
            self.edge(iff, b, Some(0));
            let inner_end = self.if_chain(&arms[1..], otherwise, b, span)?;
            self.edge(inner_end, end, None);
        } else if let Some(x) = self.branch(otherwise.unwrap_or(&[]), iff, Some(0), span)? {
            self.edge(x, end, None);
        }
        Ok(end)
    }

    fn loop_(
        &mut self,
        head: NodeId,
        construct: Option<String>,
        body: &[Stmt],
        cur: NodeId,
        span: Span,
    ) -> FrontResult<NodeId> {
        self.edge(cur, head, None);
        let end = self.node(NodeKind::EndLoop, span);
        self.loops.push(LoopCtx {
            construct,
            end,
            exit: None,
        });
        let b = self.node(NodeKind::Block(Vec::new()), span);
        self.edge(head, b, Some(1));
        let last = self.seq(body, Some(b))?;
        if let Some(x) = last {
            self.edge(x, end, None);
        }
        self.edge(end, head, None);
        let ctx = self.loops.pop().expect("pushed");
        let after = self.node(NodeKind::Block(Vec::new()), span);
        match ctx.exit {
            Some(t) => {
                self.edge(head, t, Some(0));
                self.edge(t, after, None);
            }
            None => self.edge(head, after, Some(0)),
        }
        Ok(after)
    }
}

/// Gives the condition and loop-control parts of the vertices program-wide
/// statement ids (after [`number_statements`]).
pub fn number_vertices(cfg: &mut Cfg, next: &mut usize) {
    for n in cfg.nodes.iter_mut() {
        let count = match n.kind {
            NodeKind::If(_) | NodeKind::Branch(_) | NodeKind::PreLoop(_) => 1,
            NodeKind::ForLoop(_) => 3,
            _ => 0,
        };
        n.ids = (0..count)
            .map(|_| {
                *next += 1;
                *next
            })
            .collect();
    }
}

/// Gives every assignment, call and opaque statement a program-wide id.
pub fn number_statements(stmts: &mut [Stmt], next: &mut usize) {
    for s in stmts {
        match &mut s.kind {
            StmtKind::Assign { .. } | StmtKind::Call { .. } | StmtKind::Opaque { .. } => {
                *next += 1;
                s.id = *next;
            }
            StmtKind::If { arms, otherwise } => {
                for (_, b) in arms {
                    number_statements(b, next);
                }
                if let Some(b) = otherwise {
                    number_statements(b, next);
                }
            }
            StmtKind::Do { body, .. } | StmtKind::DoWhile { body, .. } => {
                number_statements(body, next)
            }
            StmtKind::Select { cases, .. } => cases
                .iter_mut()
                .for_each(|c| number_statements(&mut c.body, next)),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::parse_file;

    fn cfg_of(src: &str) -> Cfg {
        let f = parse_file(src, 0).unwrap();
        build(&f.units[0].body, Span::default()).unwrap()
    }

    fn kinds(c: &Cfg) -> Vec<&'static str> {
        c.nodes
            .iter()
            .map(|n| match n.kind {
                NodeKind::Entry => "Entry",
                NodeKind::Exit => "Exit",
                NodeKind::Block(_) => "BB",
                NodeKind::If(_) => "If",
                NodeKind::Branch(_) => "Branch",
                NodeKind::EndBranch => "EndBranch",
                NodeKind::ForLoop(_) => "For",
                NodeKind::PreLoop(_) => "Pre",
                NodeKind::EndLoop => "EndLoop",
                NodeKind::Label(_) => "Label",
                NodeKind::Goto => "Goto",
            })
            .collect()
    }

    #[test]
    fn straight_line_is_one_block() {
        let c = cfg_of("subroutine s\n x = 1\n y = 2\nend\n");
        assert_eq!(kinds(&c), ["Entry", "BB", "Exit"]);
        assert!(c.structured);
    }

    #[test]
    fn if_else_joins_in_end_branch() {
        let c =
            cfg_of("subroutine s\n if (x > 0) then\n y = 1\n else\n y = 2\n end if\n z = 3\nend\n");
        assert_eq!(
            kinds(&c),
            ["Entry", "If", "EndBranch", "BB", "BB", "BB", "Exit"]
        );
        let conds: Vec<_> = c.successors(1).map(|e| e.cond).collect();
        assert_eq!(conds, [Some(1), Some(0)]);
    }

    #[test]
    fn loop_with_exit_is_unstructured() {
        let c = cfg_of("subroutine s\n do i = 1, 3\n if (i > 2) exit\n x = i\n end do\nend\n");
        assert!(!c.structured);
        let ends: Vec<_> = c
            .edges
            .iter()
            .filter(|e| matches!(c.nodes[e.from].kind, NodeKind::EndLoop))
            .collect();
        assert_eq!(ends.len(), 1);
        assert!(matches!(c.nodes[ends[0].to].kind, NodeKind::ForLoop(_)));
    }

    #[test]
    fn goto_to_missing_label_is_an_error() {
        let f = parse_file("subroutine s\n goto 10\nend\n", 0).unwrap();
        assert!(build(&f.units[0].body, Span::default()).is_err());
    }
}
