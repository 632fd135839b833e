//! Test support for the adjoint: a small language of structured programs
//! turned into XAIF control flow graphs, and an interpreter that runs
//! XAIF control flow graphs numerically (assignments, derivative
//! propagators, tape pushes and pops, If/Branch/ForLoop/PreLoop/PostLoop,
//! labels and gotos).

#![allow(dead_code)]

use std::cell::Cell;
use std::collections::HashMap;
use xaif_schema::model::*;

thread_local! {
    /// The scope that `var` and `expr` put their symbol references in.
    static SCOPE: Cell<u64> = const { Cell::new(2) };
}

/// Runs `f` with references built in scope `scope`.
pub fn in_scope<T>(scope: u64, f: impl FnOnce() -> T) -> T {
    let old = SCOPE.with(|s| s.replace(scope));
    let out = f();
    SCOPE.with(|s| s.set(old));
    out
}

// ---------------------------------------------------------------------------
// Expressions in prefix notation
// ---------------------------------------------------------------------------

/// `(mul (sin x) x)`, `(gt x 0.5d0)`, `v[i]`, `v[(add i 1)]`; numbers are
/// constants (`3` integer, `2.5d0` double).
pub fn expr(text: &str) -> Expression {
    let spaced = text.replace('(', " ( ").replace(')', " ) ");
    let tokens = tokenize(&spaced);
    let mut pos = 0;
    let mut e = Expression::default();
    build(&tokens, &mut pos, &mut e);
    assert_eq!(pos, tokens.len(), "trailing tokens in {text}");
    e
}

/// Splits on whitespace, keeping `name[...]` (with nested parentheses) as
/// one token.
fn tokenize(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut depth = 0;
    for ch in text.chars() {
        match ch {
            '[' => {
                depth += 1;
                cur.push(ch);
            }
            ']' => {
                depth -= 1;
                cur.push(ch);
            }
            c if c.is_whitespace() && depth == 0 => {
                if !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                }
            }
            c => cur.push(c),
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

fn next_id(e: &Expression) -> String {
    (e.vertices.len() + 1).to_string()
}

fn add_edge(e: &mut Expression, source: &str, target: &str, position: i64) {
    let edge_id = (e.edges.len() + 1).to_string();
    e.edges.push(ExpressionEdge {
        edge_id,
        source: source.into(),
        target: target.into(),
        position,
        annotation: String::new(),
    });
}

fn build(tokens: &[String], pos: &mut usize, e: &mut Expression) -> String {
    let t = tokens[*pos].clone();
    *pos += 1;
    if t == "(" {
        let op = tokens[*pos].clone();
        *pos += 1;
        let mut args = Vec::new();
        while tokens[*pos] != ")" {
            args.push(build(tokens, pos, e));
        }
        *pos += 1;
        let id = next_id(e);
        let vertex = match boolean_op(&op) {
            Some(name) => ExpressionVertex::BooleanOperation(BooleanOperation {
                vertex_id: id.clone(),
                annotation: String::new(),
                name,
            }),
            None => {
                let (name, r_type) = intrinsic(&op);
                ExpressionVertex::Intrinsic(Intrinsic {
                    vertex_id: id.clone(),
                    annotation: String::new(),
                    name: name.into(),
                    type_: "inlinable".into(),
                    r_type,
                    r_shape: SymbolShape::Scalar,
                })
            }
        };
        e.vertices.push(vertex);
        for (k, a) in args.iter().enumerate() {
            add_edge(e, a, &id, k as i64 + 1);
        }
        id
    } else if t.starts_with(|c: char| c.is_ascii_digit() || c == '-') {
        let id = next_id(e);
        let type_ = if t.contains('.') || t.contains('d') {
            ConstantType::Double
        } else {
            ConstantType::Integer
        };
        e.vertices.push(ExpressionVertex::Constant(Constant {
            vertex_id: id.clone(),
            annotation: String::new(),
            type_,
            fe_type: String::new(),
            value: t,
        }));
        id
    } else {
        let id = next_id(e);
        let mut r = var(&t);
        r.vertex_id = id.clone();
        e.vertices.push(ExpressionVertex::VariableReference(r));
        id
    }
}

fn boolean_op(op: &str) -> Option<BooleanOp> {
    Some(match op {
        "lt" => BooleanOp::LessThan,
        "le" => BooleanOp::LessOrEqual,
        "gt" => BooleanOp::GreaterThan,
        "ge" => BooleanOp::GreaterOrEqual,
        "eq" => BooleanOp::Equal,
        "ne" => BooleanOp::NotEqual,
        "and" => BooleanOp::And,
        "or" => BooleanOp::Or,
        "not" => BooleanOp::Not,
        _ => return None,
    })
}

fn intrinsic(op: &str) -> (&'static str, SymbolType) {
    let real = SymbolType::Real;
    match op {
        "add" => ("add_scal_scal", real),
        "sub" => ("sub_scal_scal", real),
        "mul" => ("mul_scal_scal", real),
        "div" => ("div_scal_scal", real),
        "neg" => ("minus_scal", real),
        "pow" => ("pow_scal_scal", real),
        "sin" => ("sin_scal", real),
        "cos" => ("cos_scal", real),
        "exp" => ("exp_scal", real),
        "log" => ("ln_scal", real),
        "sqrt" => ("sqrt_scal", real),
        "tanh" => ("tanh_scal", real),
        "iadd" => ("add_scal_scal", SymbolType::Integer),
        "isub" => ("sub_scal_scal", SymbolType::Integer),
        "lbound" => ("lbound", SymbolType::Integer),
        "ubound" => ("ubound", SymbolType::Integer),
        "size" => ("size", SymbolType::Integer),
        other => panic!("unknown operator {other}"),
    }
}

/// A reference to `x` or to an element `v[i]` / `v[(add i 1)]` of a vector.
pub fn var(name: &str) -> VariableReference {
    if let Some((array, index)) = name.strip_suffix(']').and_then(|n| n.split_once('[')) {
        let mut r = var(array);
        r.vertices
            .push(VariableReferenceVertex::ArrayElementReference(
                ArrayElementReference {
                    vertex_id: "2".into(),
                    annotation: String::new(),
                    index_triplets: vec![IndexTriplet {
                        index: Some(expr(index)),
                        bound: None,
                        stride: None,
                    }],
                },
            ));
        r.edges.push(Edge {
            edge_id: "1".into(),
            source: "1".into(),
            target: "2".into(),
            annotation: String::new(),
        });
        return r;
    }
    VariableReference {
        vertex_id: "1".into(),
        vertices: vec![VariableReferenceVertex::SymbolReference(SymbolReference {
            vertex_id: "1".into(),
            annotation: String::new(),
            symbol_id: name.to_string(),
            scope_id: if GLOBALS.contains(&name) {
                1
            } else {
                SCOPE.with(|s| s.get())
            },
            properties: Vec::new(),
        })],
        ..VariableReference::default()
    }
}

// ---------------------------------------------------------------------------
// Structured programs
// ---------------------------------------------------------------------------

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

/// Active real scalars, passive reals, integers, and the active vector
/// `v(1:4)`.
pub const ACTIVE: &[&str] = &["x", "y", "z", "a", "b"];
pub const PASSIVE: &[&str] = &["p", "q"];
pub const INTEGER: &[&str] = &["i", "j", "k", "n", "m"];
pub const VECTOR_LEN: i64 = 4;
/// Active real scalars of the global scope (module variables).
pub const GLOBALS: &[&str] = &["gw"];

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
            vertex_id: id,
            annotation: String::new(),
        }))
    }

    pub fn edge(&mut self, s: &str, t: &str, cond: Option<i64>) {
        let edge_id = format!("e{}", self.edges.len() + 1);
        self.edges.push(ControlFlowEdge {
            edge_id,
            source: s.into(),
            target: t.into(),
            annotation: String::new(),
            has_condition_value: cond.is_some(),
            condition_value: cond.unwrap_or(1),
        });
    }

    pub fn assignment(&mut self, lhs: &str, rhs: &str) -> Assignment {
        self.statements += 1;
        Assignment {
            statement_id: format!("s{}", self.statements),
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
            statement_id: format!("s{}", self.statements),
            symbol_id: Some(name.to_string()),
            scope_id: Some(1),
            active: ActiveUse::True,
            line_number: self.statements as u64,
            formal_arg_count: args.len() as u64,
            arguments: args
                .iter()
                .enumerate()
                .map(|(k, a)| Argument {
                    position: k as u64 + 1,
                    annotation: String::new(),
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
            vertex_id: id,
            annotation: String::new(),
            scope_id: SCOPE.with(|s| s.get()),
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
                        vertex_id: id,
                        annotation: String::new(),
                        scope_id: SCOPE.with(|s| s.get()),
                        elements,
                    }));
                    self.edge(&from.0, &b, from.1);
                    from = (b, None);
                    continue;
                }
                S::If(cond, then, other) => {
                    let id = self.id();
                    let v = self.vertex(ControlFlowVertex::If(ConditionVertex {
                        vertex_id: id,
                        annotation: String::new(),
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
                        vertex_id: id,
                        annotation: String::new(),
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
                    let v = self.vertex(ControlFlowVertex::ForLoop(ForLoop {
                        vertex_id: id,
                        annotation: String::new(),
                        line_number: 0,
                        reversal: ForLoopReversal::Anonymous,
                        initialization: Some(init),
                        condition: Some(expr(&format!("(le {i} {hi})"))),
                        update: Some(update),
                    }));
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
                        vertex_id: id,
                        annotation: String::new(),
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
        annotation: format!("unit:{name}"),
        symbol_tables: vec![table],
    });
    cg.scope_hierarchy.edges.push(Edge {
        edge_id: "2".into(),
        source: "3".into(),
        target: "1".into(),
        annotation: String::new(),
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
            annotation: format!("unit:{name}"),
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
                        symbol_id: f.to_string(),
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
        annotation: String::new(),
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
                annotation: String::new(),
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

// ---------------------------------------------------------------------------
// Interpreter
// ---------------------------------------------------------------------------

/// Values and derivatives (adjoints) by storage location, and the tapes.
#[derive(Clone, Debug, Default)]
pub struct Machine {
    pub v: HashMap<String, f64>,
    pub d: HashMap<String, f64>,
    pub real_tape: Vec<f64>,
    pub int_tape: Vec<i64>,
    /// Basic blocks executed (guards against endless loops).
    pub steps: usize,
    /// The code a call runs, by subroutine name (the section of the mode
    /// being simulated: split mode runs callees in the caller's mode).
    pub subroutines: HashMap<String, Callee>,
    pub frame: Frame,
    pub calls: usize,
    /// Joint mode: every subroutine's (plain, tape, adjoint) sections. A
    /// call in a forward sweep checkpoints its arguments and runs the
    /// callee's plain section; a call in a reverse sweep restores them and
    /// runs the callee's tape then adjoint sections.
    pub joint: Option<HashMap<String, [Callee; 3]>>,
    /// Whether the code running is a reverse sweep (joint mode).
    pub in_reverse: bool,
    /// The checkpoint stack (`cp_store_*`, argument checkpoints).
    pub checkpoints: Vec<f64>,
    /// Array snapshots pushed and not yet popped (element, value).
    pub snapshots: Vec<Vec<(i64, f64)>>,
}

/// A subroutine as the interpreter calls it.
#[derive(Clone, Debug, Default)]
pub struct Callee {
    pub formals: Vec<String>,
    pub vertices: Vec<ControlFlowVertex>,
    pub edges: Vec<ControlFlowEdge>,
}

/// Name resolution inside a call: formals are bound to the actual
/// argument's storage (by reference), other names are the callee's own.
#[derive(Clone, Debug, Default)]
pub struct Frame {
    prefix: String,
    bindings: HashMap<String, String>,
}

impl Machine {
    fn resolve(&self, name: &str) -> String {
        match self.frame.bindings.get(name) {
            Some(actual) => actual.clone(),
            None => format!("{}{name}", self.frame.prefix),
        }
    }

    pub fn location(&self, r: &VariableReference) -> String {
        let mut name = None;
        for v in &r.vertices {
            match v {
                VariableReferenceVertex::SymbolReference(s) => {
                    name = Some(if s.scope_id == 1 {
                        // Global scope: the same storage in every frame.
                        s.symbol_id.clone()
                    } else {
                        self.resolve(&s.symbol_id)
                    })
                }
                VariableReferenceVertex::ArrayElementReference(a) => {
                    let index = self.eval(a.index_triplets[0].index.as_ref().unwrap());
                    assert_eq!(index.fract(), 0.0, "non-integer subscript");
                    return format!("{}({})", name.expect("symbol"), index as i64);
                }
            }
        }
        name.expect("reference without symbol")
    }

    pub fn read(&self, r: &VariableReference) -> f64 {
        let n = self.location(r);
        *self
            .v
            .get(&n)
            .unwrap_or_else(|| panic!("read of unset variable {n}"))
    }

    fn deriv(&self, r: &VariableReference) -> f64 {
        *self.d.get(&self.location(r)).unwrap_or(&0.0)
    }

    pub fn eval(&self, e: &Expression) -> f64 {
        let index: HashMap<&str, usize> = e
            .vertices
            .iter()
            .enumerate()
            .map(|(i, v)| (v.vertex_id(), i))
            .collect();
        let mut args: Vec<Vec<(i64, usize)>> = vec![Vec::new(); e.vertices.len()];
        let mut used = vec![false; e.vertices.len()];
        for ed in &e.edges {
            let s = index[ed.source.as_str()];
            let t = index[ed.target.as_str()];
            args[t].push((ed.position, s));
            used[s] = true;
        }
        for a in &mut args {
            a.sort();
        }
        let roots: Vec<usize> = (0..e.vertices.len()).filter(|&i| !used[i]).collect();
        assert_eq!(roots.len(), 1, "expression with {} roots", roots.len());
        self.eval_vertex(e, &args, roots[0])
    }

    fn eval_vertex(&self, e: &Expression, args: &[Vec<(i64, usize)>], v: usize) -> f64 {
        // Bound inquiries on the one array, `v(1:VECTOR_LEN)`: its
        // argument is the whole array, not a value.
        if let ExpressionVertex::Intrinsic(i) = &e.vertices[v] {
            let bound = match i.name.as_str() {
                "lbound" => Some(1.0),
                "ubound" | "size" => Some(VECTOR_LEN as f64),
                _ => None,
            };
            if let Some(b) = bound {
                let array = &e.vertices[args[v][0].1];
                assert!(
                    matches!(array, ExpressionVertex::VariableReference(r)
                        if r.vertices.len() == 1),
                    "bound inquiry on something else than a whole array"
                );
                return b;
            }
        }
        let a: Vec<f64> = args[v]
            .iter()
            .map(|&(_, s)| self.eval_vertex(e, args, s))
            .collect();
        let truth = |b: bool| if b { 1.0 } else { 0.0 };
        match &e.vertices[v] {
            ExpressionVertex::VariableReference(r) => self.read(r),
            ExpressionVertex::Constant(c) => {
                let t = c.value.split('_').next().unwrap().replace(['d', 'D'], "e");
                t.parse()
                    .unwrap_or_else(|_| panic!("bad literal {}", c.value))
            }
            ExpressionVertex::BooleanOperation(b) => match (b.name, a.as_slice()) {
                (BooleanOp::LessThan, [x, y]) => truth(x < y),
                (BooleanOp::LessOrEqual, [x, y]) => truth(x <= y),
                (BooleanOp::GreaterThan, [x, y]) => truth(x > y),
                (BooleanOp::GreaterOrEqual, [x, y]) => truth(x >= y),
                (BooleanOp::Equal, [x, y]) => truth(x == y),
                (BooleanOp::NotEqual, [x, y]) => truth(x != y),
                (BooleanOp::And, [x, y]) => truth(*x != 0.0 && *y != 0.0),
                (BooleanOp::Or, [x, y]) => truth(*x != 0.0 || *y != 0.0),
                (BooleanOp::Not, [x]) => truth(*x == 0.0),
                (op, _) => panic!("bad boolean operation {op:?}"),
            },
            ExpressionVertex::Intrinsic(i) => match (i.name.as_str(), a.as_slice()) {
                ("add_scal_scal", [x, y]) => x + y,
                ("sub_scal_scal", [x, y]) => x - y,
                ("mul_scal_scal", [x, y]) => x * y,
                ("div_scal_scal", [x, y]) => x / y,
                ("minus_scal", [x]) => -x,
                ("pow_scal_scal", [x, y]) => {
                    if y.fract() == 0.0 {
                        x.powi(*y as i32)
                    } else {
                        x.powf(*y)
                    }
                }
                ("sin_scal", [x]) => x.sin(),
                ("cos_scal", [x]) => x.cos(),
                ("exp_scal", [x]) => x.exp(),
                ("ln_scal", [x]) => x.ln(),
                ("sqrt_scal", [x]) => x.sqrt(),
                ("tanh_scal", [x]) => x.tanh(),
                (name, _) => panic!("interpreter: unknown intrinsic {name}"),
            },
            other => panic!("interpreter: cannot evaluate {other:?}"),
        }
    }

    fn assign(&mut self, a: &Assignment) {
        let value = self.eval(&a.rhs);
        let target = self.location(&a.lhs.reference);
        self.v.insert(target, value);
    }

    fn set_deriv(&mut self, r: &VariableReference, value: f64) {
        let n = self.location(r);
        self.d.insert(n, value);
    }

    fn element(&mut self, el: &BasicBlockElement) {
        match el {
            BasicBlockElement::Assignment(a) => self.assign(a),
            BasicBlockElement::DerivativePropagator(p) => {
                for e in &p.entries {
                    match e {
                        PropagatorEntry::SetDeriv { tgt, src } => {
                            let x = self.deriv(src);
                            self.set_deriv(tgt, x)
                        }
                        PropagatorEntry::SetNegDeriv { tgt, src } => {
                            let x = -self.deriv(src);
                            self.set_deriv(tgt, x)
                        }
                        PropagatorEntry::IncDeriv { tgt, src } => {
                            let x = self.deriv(tgt) + self.deriv(src);
                            self.set_deriv(tgt, x)
                        }
                        PropagatorEntry::DecDeriv { tgt, src } => {
                            let x = self.deriv(tgt) - self.deriv(src);
                            self.set_deriv(tgt, x)
                        }
                        PropagatorEntry::Sax { ax, y } => {
                            let x: f64 =
                                ax.iter().map(|t| self.eval(&t.a) * self.deriv(&t.x)).sum();
                            self.set_deriv(y, x)
                        }
                        PropagatorEntry::Saxpy { ax, y } => {
                            let x: f64 = self.deriv(y)
                                + ax.iter()
                                    .map(|t| self.eval(&t.a) * self.deriv(&t.x))
                                    .sum::<f64>();
                            self.set_deriv(y, x)
                        }
                        PropagatorEntry::ZeroDeriv(y) => self.set_deriv(y, 0.0),
                    }
                }
            }
            BasicBlockElement::InlinableSubroutineCall(c) => {
                assert_eq!(c.arguments.len(), 1, "tape calls take one argument");
                let value = |m: &Machine| match &c.arguments[0].value {
                    ArgumentValue::Variable(r) => m.read(r),
                    ArgumentValue::Constant(k) => k.value.parse::<f64>().expect("constant"),
                };
                let target = || match &c.arguments[0].value {
                    ArgumentValue::Variable(r) => r.clone(),
                    ArgumentValue::Constant(_) => panic!("pop into a constant"),
                };
                match c.subroutine_name.as_str() {
                    name if name.starts_with("cp_store_") => {
                        assert!(name.ends_with("_scalar"), "test checkpoints are scalars");
                        let x = value(self);
                        self.checkpoints.push(x)
                    }
                    name if name.starts_with("cp_restore_") => {
                        let x = self.checkpoints.pop().expect("checkpoint underflow");
                        let n = self.location(&target());
                        self.v.insert(n, x);
                    }
                    "push_real" => {
                        let x = value(self);
                        self.real_tape.push(x)
                    }
                    "push_int" => {
                        let x = value(self);
                        assert_eq!(x.fract(), 0.0, "push_int of a non-integer");
                        self.int_tape.push(x as i64)
                    }
                    "pop_real" => {
                        let x = self.real_tape.pop().expect("real tape underflow");
                        let n = self.location(&target());
                        self.v.insert(n, x);
                    }
                    "pop_int" => {
                        let x = self.int_tape.pop().expect("integer tape underflow");
                        let n = self.location(&target());
                        self.v.insert(n, x as f64);
                    }
                    // Array snapshots (`array_snapshots.rs`): every element of
                    // the array, on a stack of their own (the order of
                    // pushes and pops is checked against it), popped into
                    // the copy's elements at the same subscripts.
                    "oad_snap_push" => {
                        let base = self.location(&target());
                        let prefix = format!("{base}(");
                        let mut elements: Vec<(i64, f64)> = self
                            .v
                            .iter()
                            .filter_map(|(k, x)| {
                                let i = k.strip_prefix(&prefix)?.strip_suffix(')')?;
                                Some((i.parse().ok()?, *x))
                            })
                            .collect();
                        elements.sort_by_key(|(i, _)| *i);
                        assert!(!elements.is_empty(), "snapshot of unset array {base}");
                        self.snapshots.push(elements)
                    }
                    "oad_snap_pop" => {
                        let elements = self.snapshots.pop().expect("snapshot underflow");
                        let base = self.location(&target());
                        for (i, x) in elements {
                            self.v.insert(format!("{base}({i})"), x);
                        }
                    }
                    other => panic!("unknown inlinable call {other}"),
                }
            }
            BasicBlockElement::Marker(_) => {}
            BasicBlockElement::SubroutineCall(c) => self.call(c),
        }
    }

    /// Runs the callee with its formals bound to the actual arguments.
    fn call(&mut self, c: &SubroutineCall) {
        let name = c.symbol_id.clone().expect("callee name");
        if let Some(joint) = &self.joint {
            let [plain, tape, adjoint] = joint
                .get(&name)
                .unwrap_or_else(|| panic!("no code for subroutine {name}"))
                .clone();
            let reverse = self.in_reverse;
            let actuals: Vec<String> = c
                .arguments
                .iter()
                .map(|a| match &a.value {
                    ArgumentValue::Variable(r) => self.location(r),
                    ArgumentValue::Constant(_) => panic!("constant actual in a joint test"),
                })
                .collect();
            if !reverse {
                for n in &actuals {
                    let x = self.v[n];
                    self.checkpoints.push(x);
                }
                self.invoke(c, &name, &plain);
            } else {
                for n in actuals.iter().rev() {
                    let x = self.checkpoints.pop().expect("argument checkpoint");
                    self.v.insert(n.clone(), x);
                }
                self.in_reverse = false;
                self.invoke(c, &name, &tape);
                self.in_reverse = true;
                self.invoke(c, &name, &adjoint);
            }
            self.in_reverse = reverse;
            return;
        }
        let callee = self
            .subroutines
            .get(&name)
            .unwrap_or_else(|| panic!("no code for subroutine {name}"))
            .clone();
        self.invoke(c, &name, &callee);
    }

    /// Runs `callee` with its formals bound to the actual arguments of `c`.
    fn invoke(&mut self, c: &SubroutineCall, name: &str, callee: &Callee) {
        self.calls += 1;
        let mut bindings = HashMap::new();
        for arg in &c.arguments {
            let formal = callee.formals[arg.position as usize - 1].clone();
            let actual = match &arg.value {
                ArgumentValue::Variable(r) => self.location(r),
                ArgumentValue::Constant(k) => {
                    let n = format!("const#{}", self.calls);
                    self.v
                        .insert(n.clone(), k.value.parse().expect("numeric constant"));
                    n
                }
            };
            bindings.insert(formal, actual);
        }
        let frame = Frame {
            prefix: format!("{name}#{}:", self.calls),
            bindings,
        };
        let saved = std::mem::replace(&mut self.frame, frame);
        self.run(&callee.vertices, &callee.edges);
        self.frame = saved;
    }

    /// Runs a control flow graph from its Entry to its Exit.
    pub fn run(&mut self, vertices: &[ControlFlowVertex], edges: &[ControlFlowEdge]) {
        let by_id: HashMap<&str, &ControlFlowVertex> =
            vertices.iter().map(|v| (v.vertex_id(), v)).collect();
        let out = |id: &str| -> Vec<&ControlFlowEdge> {
            edges.iter().filter(|e| e.source == id).collect()
        };
        let single = |id: &str| -> String {
            let o = out(id);
            assert_eq!(o.len(), 1, "vertex {id} must have one successor");
            o[0].target.clone()
        };
        let on = |id: &str, value: i64| -> String {
            out(id)
                .into_iter()
                .find(|e| e.has_condition_value && e.condition_value == value)
                .or_else(|| out(id).into_iter().find(|e| !e.has_condition_value))
                .unwrap_or_else(|| panic!("no edge for {value} out of {id}"))
                .target
                .clone()
        };
        let mut cur = vertices
            .iter()
            .find(|v| matches!(v, ControlFlowVertex::Entry(_)))
            .expect("entry")
            .vertex_id()
            .to_string();
        let mut prev = String::new();
        loop {
            self.steps += 1;
            assert!(self.steps < 1_000_000, "endless loop");
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
