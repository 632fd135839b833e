//! Call graphs for tests: one subroutine `head` with a basic block of
//! assignments, or a structured body (branches, `select case`, counted and
//! `while` loops, calls of a second subroutine).

use xaif_schema::model::*;

pub use crate::notation::GLOBALS;
use crate::notation::{current_scope, expr, in_scope, var};

/// Active real scalars of the test programs.
pub const ACTIVE: &[&str] = &["x", "y", "z", "a", "b"];
/// Passive real scalars.
pub const PASSIVE: &[&str] = &["p", "q"];
/// Integer scalars.
pub const INTEGER: &[&str] = &["i", "j", "k", "n", "m"];
/// The active real vector `v(1:VECTOR_LEN)`.
pub const VECTOR_LEN: i64 = 4;
/// Its elements as the interpreter names their storage.
pub const VECTOR: &[&str] = &["v(1)", "v(2)", "v(3)", "v(4)"];

/// Every active storage location, in a fixed order.
pub fn active_locations() -> Vec<String> {
    let mut out: Vec<String> = ACTIVE
        .iter()
        .chain(GLOBALS)
        .map(|s| s.to_string())
        .collect();
    for k in 1..=VECTOR_LEN {
        out.push(format!("v({k})"));
    }
    out
}

/// A statement of a test program.
#[derive(Debug)]
pub enum S {
    /// `lhs = rhs`.
    Set(&'static str, &'static str),
    /// `call name(args)`, arguments as variable references.
    Call(&'static str, Vec<&'static str>),
    /// `if (cond) then ... else ... end if`.
    If(&'static str, Vec<S>, Vec<S>),
    /// `select case (expr)`: arms with their case values (empty: default).
    Select(&'static str, Vec<(Vec<i64>, Vec<S>)>),
    /// `do var = lo, hi ... end do`.
    Do(&'static str, &'static str, &'static str, Vec<S>),
    /// `do while (cond) ... end do`.
    While(&'static str, Vec<S>),
}

/// A call graph with one subroutine `head` whose one basic block holds the
/// assignments `(lhs, rhs)`.
pub fn program(assignments: &[(&str, &str)]) -> CallGraph {
    let mut b = CfgBuilder::new();
    let elements = assignments
        .iter()
        .map(|(l, r)| BasicBlockElement::Assignment(b.assignment(l, r)))
        .collect();
    let plain = |id: &str| PlainVertex {
        vertex_id: id.into(),
        annotation: Default::default(),
    };
    let vertices = vec![
        ControlFlowVertex::Entry(plain("1")),
        ControlFlowVertex::BasicBlock(BasicBlock {
            vertex_id: "2".into(),
            annotation: Default::default(),
            scope_id: 2,
            elements,
        }),
        ControlFlowVertex::Exit(plain("3")),
    ];
    let edge = |id: &str, s: &str, t: &str| ControlFlowEdge {
        edge_id: id.into(),
        source: s.into(),
        target: t.into(),
        ..ControlFlowEdge::default()
    };
    let edges = vec![edge("1", "1", "2"), edge("2", "2", "3")];
    program_with(vertices, edges, true)
}

/// The elements of the first basic block of the first graph.
pub fn block_elements(cg: &CallGraph) -> &[BasicBlockElement] {
    for v in &cg.vertices {
        if let CallGraphVertex::ControlFlowGraph(cfg) = v {
            for w in &cfg.vertices {
                if let ControlFlowVertex::BasicBlock(bb) = w {
                    return &bb.elements;
                }
            }
        }
    }
    panic!("no basic block")
}

/// Builds a control flow graph vertex by vertex (ids `n1`, `n2`, ...;
/// edges `e1`, ...; statements `s1`, ...).
pub struct CfgBuilder {
    pub vertices: Vec<ControlFlowVertex>,
    pub edges: Vec<ControlFlowEdge>,
    statements: usize,
}

impl CfgBuilder {
    pub fn new() -> Self {
        CfgBuilder {
            vertices: Vec::new(),
            edges: Vec::new(),
            statements: 0,
        }
    }

    pub fn vertex(&mut self, v: ControlFlowVertex) -> String {
        let id = v.vertex_id().to_string();
        self.vertices.push(v);
        id
    }

    pub fn id(&self) -> String {
        format!("n{}", self.vertices.len() + 1)
    }

    pub fn plain(&mut self, make: fn(PlainVertex) -> ControlFlowVertex) -> String {
        let id = self.id();
        self.vertex(make(PlainVertex {
            vertex_id: id.into(),
            annotation: Default::default(),
        }))
    }

    pub fn edge(&mut self, s: &str, t: &str, cond: Option<i64>) {
        let edge_id = format!("e{}", self.edges.len() + 1);
        self.edges.push(ControlFlowEdge {
            edge_id: edge_id.into(),
            source: s.into(),
            target: t.into(),
            annotation: Default::default(),
            has_condition_value: cond.is_some(),
            condition_value: cond.unwrap_or(1),
        });
    }

    pub fn assignment(&mut self, lhs: &str, rhs: &str) -> Assignment {
        self.statements += 1;
        Assignment {
            statement_id: format!("s{}", self.statements).into(),
            do_chain: 0,
            line_number: self.statements as u64,
            lhs: AssignmentLhs {
                reference: var(lhs),
                live: true,
            },
            rhs: expr(rhs),
        }
    }

    pub fn call(&mut self, name: &str, args: &[&str]) -> SubroutineCall {
        self.statements += 1;
        SubroutineCall {
            statement_id: format!("s{}", self.statements).into(),
            symbol_id: Some(name.to_string().into()),
            scope_id: Some(1),
            active: ActiveUse::True,
            line_number: self.statements as u64,
            formal_arg_count: args.len() as u64,
            arguments: args
                .iter()
                .enumerate()
                .map(|(k, a)| Argument {
                    position: k as u64 + 1,
                    annotation: Default::default(),
                    value: ArgumentValue::Variable(var(a)),
                })
                .collect(),
        }
    }

    pub fn block(&mut self, sets: &[(&str, &str)]) -> String {
        let elements = sets
            .iter()
            .map(|(l, r)| BasicBlockElement::Assignment(self.assignment(l, r)))
            .collect();
        let id = self.id();
        self.vertex(ControlFlowVertex::BasicBlock(BasicBlock {
            vertex_id: id.into(),
            annotation: Default::default(),
            scope_id: current_scope(),
            elements,
        }))
    }

    /// Emits `stmts` after `from` (pending edge source with its condition);
    /// returns the last vertex (the new pending source).
    fn sequence(&mut self, stmts: &[S], mut from: (String, Option<i64>)) -> (String, Option<i64>) {
        let mut k = 0;
        while k < stmts.len() {
            match &stmts[k] {
                S::Set(..) | S::Call(..) => {
                    let mut elements = Vec::new();
                    loop {
                        match stmts.get(k) {
                            Some(S::Set(l, r)) => {
                                elements.push(BasicBlockElement::Assignment(self.assignment(l, r)))
                            }
                            Some(S::Call(name, args)) => elements
                                .push(BasicBlockElement::SubroutineCall(self.call(name, args))),
                            _ => break,
                        }
                        k += 1;
                    }
                    let id = self.id();
                    let b = self.vertex(ControlFlowVertex::BasicBlock(BasicBlock {
                        vertex_id: id.into(),
                        annotation: Default::default(),
                        scope_id: current_scope(),
                        elements,
                    }));
                    self.edge(&from.0, &b, from.1);
                    from = (b, None);
                    continue;
                }
                S::If(cond, then, other) => {
                    let id = self.id();
                    let v = self.vertex(ControlFlowVertex::If(ConditionVertex {
                        vertex_id: id.into(),
                        annotation: Default::default(),
                        line_number: 0,
                        condition: Some(expr(cond)),
                    }));
                    self.edge(&from.0, &v, from.1);
                    let t = self.sequence(then, (v.clone(), Some(1)));
                    let f = self.sequence(other, (v.clone(), Some(0)));
                    let end = self.plain(ControlFlowVertex::EndBranch);
                    self.edge(&t.0, &end, t.1);
                    self.edge(&f.0, &end, f.1);
                    from = (end, None);
                }
                S::Select(e, arms) => {
                    let id = self.id();
                    let v = self.vertex(ControlFlowVertex::Branch(ConditionVertex {
                        vertex_id: id.into(),
                        annotation: Default::default(),
                        line_number: 0,
                        condition: Some(expr(e)),
                    }));
                    self.edge(&from.0, &v, from.1);
                    let mut ends = Vec::new();
                    for (values, body) in arms {
                        // One edge per case value, all into the arm.
                        let first = values.first().copied();
                        let last = self.sequence(body, (v.clone(), first));
                        ends.push(last);
                        if values.len() > 1 {
                            let target = self
                                .edges
                                .iter()
                                .rev()
                                .find(|ed| ed.source == v && ed.condition_value == values[0])
                                .map(|ed| ed.target.clone())
                                .expect("arm edge");
                            for &val in &values[1..] {
                                self.edge(&v, &target, Some(val));
                            }
                        }
                    }
                    let end = self.plain(ControlFlowVertex::EndBranch);
                    for (s, c) in ends {
                        self.edge(&s, &end, c);
                    }
                    from = (end, None);
                }
                S::Do(i, lo, hi, body) => {
                    let id = self.id();
                    let init = self.assignment(i, lo);
                    let update = self.assignment(i, &format!("(iadd {i} 1)"));
                    let v = self.vertex(ControlFlowVertex::ForLoop(Box::new(ForLoop {
                        vertex_id: id.into(),
                        annotation: Default::default(),
                        line_number: 0,
                        reversal: ForLoopReversal::Anonymous,
                        initialization: Some(init),
                        condition: Some(expr(&format!("(le {i} {hi})"))),
                        update: Some(update),
                    })));
                    self.edge(&from.0, &v, from.1);
                    let last = self.sequence(body, (v.clone(), Some(1)));
                    let end = self.plain(ControlFlowVertex::EndLoop);
                    self.edge(&last.0, &end, last.1);
                    self.edge(&end, &v, None);
                    from = (v, Some(0));
                }
                S::While(cond, body) => {
                    let id = self.id();
                    let v = self.vertex(ControlFlowVertex::PreLoop(ConditionVertex {
                        vertex_id: id.into(),
                        annotation: Default::default(),
                        line_number: 0,
                        condition: Some(expr(cond)),
                    }));
                    self.edge(&from.0, &v, from.1);
                    let last = self.sequence(body, (v.clone(), Some(1)));
                    let end = self.plain(ControlFlowVertex::EndLoop);
                    self.edge(&last.0, &end, last.1);
                    self.edge(&end, &v, None);
                    from = (v, Some(0));
                }
            }
            k += 1;
        }
        from
    }
}

impl Default for CfgBuilder {
    fn default() -> Self {
        Self::new()
    }
}

/// The structured control flow graph of `stmts`.
pub fn structured_graph(stmts: &[S]) -> (Vec<ControlFlowVertex>, Vec<ControlFlowEdge>) {
    let mut b = CfgBuilder::new();
    let entry = b.plain(ControlFlowVertex::Entry);
    let last = b.sequence(stmts, (entry, None));
    let exit = b.plain(ControlFlowVertex::Exit);
    b.edge(&last.0, &exit, last.1);
    (b.vertices, b.edges)
}

/// A structured program: one subroutine `head` with body `stmts`.
pub fn structured_program(stmts: &[S]) -> CallGraph {
    let (vertices, edges) = structured_graph(stmts);
    program_with(vertices, edges, true)
}

/// `head` (body `stmts`) calling `name(formals...)` (body `callee`, in
/// scope 3): the formals and `locals` are active reals of the callee.
pub fn program_with_callee(
    stmts: &[S],
    name: &str,
    formals: &[&str],
    locals: &[&str],
    callee: &[S],
) -> CallGraph {
    let mut cg = structured_program(stmts);
    let (vertices, edges) = in_scope(3, || structured_graph(callee));
    let table = SymbolTable {
        symbols: formals
            .iter()
            .chain(locals)
            .map(|n| symbol(n, SymbolType::Real, true))
            .collect(),
    };
    cg.scope_hierarchy.scopes.push(Scope {
        vertex_id: "3".into(),
        annotation: format!("unit:{name}").into(),
        symbol_tables: vec![table],
    });
    cg.scope_hierarchy.edges.push(Edge {
        edge_id: "2".into(),
        source: "3".into(),
        target: "1".into(),
        annotation: Default::default(),
    });
    cg.scope_hierarchy.scopes[0].symbol_tables[0]
        .symbols
        .push(Symbol {
            symbol_id: name.into(),
            kind: SymbolKind::Subroutine,
            type_: SymbolType::Void,
            ..Symbol::default()
        });
    cg.vertices
        .push(CallGraphVertex::ControlFlowGraph(ControlFlowGraph {
            vertex_id: "2".into(),
            annotation: format!("unit:{name}").into(),
            symbol_id: name.into(),
            scope_id: 1,
            controlflowgraph_scope_id: 3,
            active: true,
            structured: true,
            argument_list: Some(
                formals
                    .iter()
                    .enumerate()
                    .map(|(k, f)| ArgumentSymbolReference {
                        position: k as u64 + 1,
                        symbol_id: f.to_string().into(),
                        scope_id: 3,
                        ..ArgumentSymbolReference::default()
                    })
                    .collect(),
            ),
            read: Some(
                formals
                    .iter()
                    .chain(GLOBALS)
                    .map(|n| in_scope(3, || var(n)))
                    .collect(),
            ),
            vertices,
            edges,
            ..ControlFlowGraph::default()
        }));
    cg.edges.push(Edge {
        edge_id: "1".into(),
        source: "1".into(),
        target: "2".into(),
        annotation: Default::default(),
    });
    cg
}

fn symbol(name: &str, type_: SymbolType, active: bool) -> Symbol {
    Symbol {
        symbol_id: name.into(),
        type_,
        active,
        ..Symbol::default()
    }
}

/// A call graph around one control flow graph.
pub fn program_with(
    vertices: Vec<ControlFlowVertex>,
    edges: Vec<ControlFlowEdge>,
    structured: bool,
) -> CallGraph {
    let mut local = SymbolTable::default();
    for n in ACTIVE {
        local.symbols.push(symbol(n, SymbolType::Real, true));
    }
    for n in PASSIVE {
        local.symbols.push(symbol(n, SymbolType::Real, false));
    }
    for n in INTEGER {
        local.symbols.push(symbol(n, SymbolType::Integer, false));
    }
    local.symbols.push(Symbol {
        shape: SymbolShape::Vector,
        dimension_bounds: vec![DimensionBounds {
            lower: 1,
            upper: VECTOR_LEN,
        }],
        ..symbol("v", SymbolType::Real, true)
    });
    let mut global = SymbolTable {
        symbols: vec![Symbol {
            symbol_id: "head".into(),
            kind: SymbolKind::Subroutine,
            type_: SymbolType::Void,
            ..Symbol::default()
        }],
    };
    for n in GLOBALS {
        global.symbols.push(symbol(n, SymbolType::Real, true));
    }
    let cfg = ControlFlowGraph {
        vertex_id: "1".into(),
        annotation: "unit:head".into(),
        symbol_id: "head".into(),
        scope_id: 1,
        controlflowgraph_scope_id: 2,
        active: true,
        structured,
        vertices,
        edges,
        ..ControlFlowGraph::default()
    };
    CallGraph {
        program_name: Some("head".into()),
        prefix: DEFAULT_PREFIX.into(),
        scope_hierarchy: ScopeHierarchy {
            scopes: vec![
                Scope {
                    vertex_id: "1".into(),
                    annotation: "global".into(),
                    symbol_tables: vec![global],
                },
                Scope {
                    vertex_id: "2".into(),
                    annotation: "unit:head".into(),
                    symbol_tables: vec![local],
                },
            ],
            edges: vec![Edge {
                edge_id: "1".into(),
                source: "2".into(),
                target: "1".into(),
                annotation: Default::default(),
            }],
        },
        alias_set_map: AliasSetMap {
            sets: vec![AliasSet::default()],
        },
        duud_set_map: StmtIdSetMap {
            sets: vec![StmtIdSet::default()],
        },
        do_set_map: StmtIdSetMap {
            sets: vec![StmtIdSet::default()],
        },
        vertices: vec![CallGraphVertex::ControlFlowGraph(cfg)],
        edges: Vec::new(),
    }
}
