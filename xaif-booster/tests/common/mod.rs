//! Test support: build XAIF expressions from a small prefix notation, an
//! interpreter that evaluates XAIF expressions numerically (intrinsics by
//! name, written here independently of the catalogue), and an executor for
//! transformed basic blocks (assignments and derivative propagators).

#![allow(dead_code)]

use std::collections::HashMap;
use xaif_schema::model::*;

/// Prefix notation: `(mul (sin x) x)`, variables by name, numbers as
/// constants (`3` integer, `2.5d0` double).
pub fn parse_expression(text: &str) -> Expression {
    let tokens: Vec<String> = text
        .replace('(', " ( ")
        .replace(')', " ) ")
        .split_whitespace()
        .map(str::to_string)
        .collect();
    let mut pos = 0;
    let mut expr = Expression::default();
    build(&tokens, &mut pos, &mut expr);
    assert_eq!(pos, tokens.len(), "trailing tokens in {text}");
    expr
}

fn new_id(expr: &Expression) -> String {
    (expr.vertices.len() + 1).to_string()
}

fn build(tokens: &[String], pos: &mut usize, expr: &mut Expression) -> String {
    let t = tokens[*pos].clone();
    *pos += 1;
    if t == "(" {
        let op = tokens[*pos].clone();
        *pos += 1;
        let mut args = Vec::new();
        while tokens[*pos] != ")" {
            args.push(build(tokens, pos, expr));
        }
        *pos += 1;
        let id = new_id(expr);
        let (name, r_type) = intrinsic_name(&op);
        expr.vertices.push(ExpressionVertex::Intrinsic(Intrinsic {
            vertex_id: id.clone(),
            annotation: String::new(),
            name: name.to_string(),
            type_: "inlinable".into(),
            r_type,
            r_shape: SymbolShape::Scalar,
        }));
        for (k, a) in args.iter().enumerate() {
            let edge_id = (expr.edges.len() + 1).to_string();
            expr.edges.push(ExpressionEdge {
                edge_id,
                source: a.clone(),
                target: id.clone(),
                position: k as i64 + 1,
                annotation: String::new(),
            });
        }
        id
    } else if t.starts_with(|c: char| c.is_ascii_digit() || c == '-') {
        let id = new_id(expr);
        let type_ = if t.contains('.') || t.contains('d') {
            ConstantType::Double
        } else {
            ConstantType::Integer
        };
        expr.vertices.push(ExpressionVertex::Constant(Constant {
            vertex_id: id.clone(),
            annotation: String::new(),
            type_,
            fe_type: String::new(),
            value: t,
        }));
        id
    } else {
        let id = new_id(expr);
        let mut r = var_ref(&t);
        r.vertex_id = id.clone();
        expr.vertices.push(ExpressionVertex::VariableReference(r));
        id
    }
}

fn intrinsic_name(op: &str) -> (&'static str, SymbolType) {
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
        "tan" => ("tan_scal", real),
        "asin" => ("arcsin_scal", real),
        "acos" => ("arccos_scal", real),
        "atan" => ("arctan_scal", real),
        "atan2" => ("arctan2_scal_scal", real),
        "sinh" => ("sinh_scal", real),
        "cosh" => ("cosh_scal", real),
        "tanh" => ("tanh_scal", real),
        "exp" => ("exp_scal", real),
        "log" => ("ln_scal", real),
        "log10" => ("log10_scal", real),
        "sqrt" => ("sqrt_scal", real),
        "abs" => ("abs_scal", real),
        "sign" => ("sign_scal_scal", real),
        "min" => ("min_scal_scal", real),
        "max" => ("max_scal_scal", real),
        "mod" => ("mod_scal_scal", real),
        "int" => ("int_scal", SymbolType::Integer),
        "nint" => ("nint_scal", SymbolType::Integer),
        "aint" => ("aint_scal", real),
        "anint" => ("anint_scal", real),
        "floor" => ("floor_scal", SymbolType::Integer),
        "ceiling" => ("ceiling_scal", SymbolType::Integer),
        "real" => ("real_scal", real),
        // An inquiry, typed real on purpose: the catalogue's integer
        // return type must decide that it carries no derivative.
        "size" => ("size", real),
        other => panic!("unknown operator {other}"),
    }
}

/// A reference to a variable of the test scope (scope 2): `x`, or an
/// element of the vector `v` as `v[n]` or `v[2]`.
pub fn var_ref(name: &str) -> VariableReference {
    if let Some((array, index)) = name.strip_suffix(']').and_then(|n| n.split_once('[')) {
        let mut r = var_ref(array);
        r.vertices
            .push(VariableReferenceVertex::ArrayElementReference(
                ArrayElementReference {
                    vertex_id: "2".into(),
                    annotation: String::new(),
                    index_triplets: vec![IndexTriplet {
                        index: Some(parse_expression(index)),
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
            scope_id: 2,
            properties: Vec::new(),
        })],
        ..VariableReference::default()
    }
}

/// Active real scalars of the test program.
pub const ACTIVE: &[&str] = &["x", "y", "z", "a", "b"];
/// Passive real scalars.
pub const PASSIVE: &[&str] = &["p", "q"];
/// Integer scalars.
pub const INTEGER: &[&str] = &["n", "m"];
/// Active real vector `v(1:4)`: its elements as the interpreter names them.
pub const VECTOR: &[&str] = &["v(1)", "v(2)", "v(3)", "v(4)"];

fn symbol(name: &str, type_: SymbolType, active: bool) -> Symbol {
    Symbol {
        symbol_id: name.into(),
        type_,
        active,
        ..Symbol::default()
    }
}

/// A call graph with one subroutine `head` whose one basic block holds the
/// assignments `(lhs, rhs)`.
pub fn program(assignments: &[(&str, &str)]) -> CallGraph {
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
        dimension_bounds: vec![DimensionBounds { lower: 1, upper: 4 }],
        ..symbol("v", SymbolType::Real, true)
    });
    let global = SymbolTable {
        symbols: vec![Symbol {
            symbol_id: "head".into(),
            kind: SymbolKind::Subroutine,
            type_: SymbolType::Void,
            ..Symbol::default()
        }],
    };
    let elements = assignments
        .iter()
        .enumerate()
        .map(|(k, (lhs, rhs))| {
            BasicBlockElement::Assignment(Assignment {
                statement_id: format!("s{}", k + 1),
                do_chain: 0,
                line_number: k as u64 + 1,
                lhs: AssignmentLhs {
                    reference: var_ref(lhs),
                    live: true,
                },
                rhs: parse_expression(rhs),
            })
        })
        .collect();
    let cfg = ControlFlowGraph {
        vertex_id: "1".into(),
        annotation: "unit:head".into(),
        symbol_id: "head".into(),
        scope_id: 1,
        controlflowgraph_scope_id: 2,
        active: true,
        structured: true,
        vertices: vec![
            ControlFlowVertex::Entry(PlainVertex {
                vertex_id: "1".into(),
                annotation: String::new(),
            }),
            ControlFlowVertex::BasicBlock(BasicBlock {
                vertex_id: "2".into(),
                annotation: String::new(),
                scope_id: 2,
                elements,
            }),
            ControlFlowVertex::Exit(PlainVertex {
                vertex_id: "3".into(),
                annotation: String::new(),
            }),
        ],
        edges: vec![
            ControlFlowEdge {
                edge_id: "1".into(),
                source: "1".into(),
                target: "2".into(),
                ..ControlFlowEdge::default()
            },
            ControlFlowEdge {
                edge_id: "2".into(),
                source: "2".into(),
                target: "3".into(),
                ..ControlFlowEdge::default()
            },
        ],
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
        // Key 0 ("no information") must exist in each map for the schema.
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

/// The elements of the one basic block of a `program`.
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

/// The storage a reference denotes: `x`, or `v(2)` with the subscript
/// evaluated in `vars`.
pub fn location(r: &VariableReference, vars: &HashMap<String, f64>) -> String {
    let mut name = None;
    for v in &r.vertices {
        match v {
            VariableReferenceVertex::SymbolReference(s) => name = Some(s.symbol_id.clone()),
            VariableReferenceVertex::ArrayElementReference(a) => {
                let index = eval(a.index_triplets[0].index.as_ref().unwrap(), vars, &[]);
                return format!("{}({})", name.expect("symbol before subscript"), index);
            }
        }
    }
    name.expect("reference without symbol")
}

/// Values of the intrinsics, written from their mathematical definitions.
pub fn apply_intrinsic(name: &str, a: &[f64]) -> f64 {
    let sgn = |v: f64| if v >= 0.0 { 1.0 } else { -1.0 };
    match (name, a) {
        ("add_scal_scal", [x, y]) => x + y,
        ("sub_scal_scal", [x, y]) => x - y,
        ("mul_scal_scal", [x, y]) => x * y,
        ("div_scal_scal", [x, y]) => x / y,
        ("minus_scal", [x]) => -x,
        ("pow_scal_scal", [x, y]) => {
            if y.fract() == 0.0 && y.abs() < 1e9 {
                x.powi(*y as i32)
            } else {
                x.powf(*y)
            }
        }
        ("sin_scal", [x]) => x.sin(),
        ("cos_scal", [x]) => x.cos(),
        ("tan_scal", [x]) => x.tan(),
        ("arcsin_scal", [x]) => x.asin(),
        ("arccos_scal", [x]) => x.acos(),
        ("arctan_scal", [x]) => x.atan(),
        ("arctan2_scal_scal", [x, y]) => x.atan2(*y),
        ("sinh_scal", [x]) => x.sinh(),
        ("cosh_scal", [x]) => x.cosh(),
        ("tanh_scal", [x]) => x.tanh(),
        ("exp_scal", [x]) => x.exp(),
        ("ln_scal", [x]) => x.ln(),
        ("log10_scal", [x]) => x.log10(),
        ("sqrt_scal", [x]) => x.sqrt(),
        ("abs_scal", [x]) => x.abs(),
        ("sign_scal_scal", [x, y]) => x.abs() * sgn(*y),
        ("min_scal_scal", [x, y]) => {
            if x <= y {
                *x
            } else {
                *y
            }
        }
        ("max_scal_scal", [x, y]) => {
            if x >= y {
                *x
            } else {
                *y
            }
        }
        ("mod_scal_scal", [x, y]) => x - (x / y).trunc() * y,
        ("dim_scal_scal", [x, y]) => (x - y).max(0.0),
        ("modulo_scal_scal", [x, y]) => x - (x / y).floor() * y,
        ("hypot_scal_scal", [x, y]) => x.hypot(*y),
        ("int_scal" | "aint_scal", [x]) => x.trunc(),
        ("nint_scal" | "anint_scal", [x]) => x.round(),
        ("floor_scal", [x]) => x.floor(),
        ("ceiling_scal", [x]) => x.ceil(),
        ("real_scal", [x]) => *x,
        // Tests bind a whole array's name to its size.
        ("size", [x]) => *x,
        _ => panic!("interpreter: unknown intrinsic {name}/{}", a.len()),
    }
}

/// Numeric value of a Fortran literal.
pub fn literal_value(c: &Constant) -> f64 {
    let t = c.value.split('_').next().unwrap().replace(['d', 'D'], "e");
    t.parse()
        .unwrap_or_else(|_| panic!("bad literal {}", c.value))
}

/// Evaluates an expression; `vars` by symbol name, `args` for catalogue
/// argument references (index 0 is argument 1).
pub fn eval(expr: &Expression, vars: &HashMap<String, f64>, args: &[f64]) -> f64 {
    let index: HashMap<&str, usize> = expr
        .vertices
        .iter()
        .enumerate()
        .map(|(i, v)| (v.vertex_id(), i))
        .collect();
    let mut arg_lists: Vec<Vec<(i64, usize)>> = vec![Vec::new(); expr.vertices.len()];
    let mut has_user = vec![false; expr.vertices.len()];
    for e in &expr.edges {
        let s = index[e.source.as_str()];
        let t = index[e.target.as_str()];
        arg_lists[t].push((e.position, s));
        has_user[s] = true;
    }
    let roots: Vec<usize> = (0..expr.vertices.len()).filter(|&i| !has_user[i]).collect();
    assert_eq!(roots.len(), 1, "expression must have one root");
    fn go(
        v: usize,
        expr: &Expression,
        arg_lists: &mut [Vec<(i64, usize)>],
        vars: &HashMap<String, f64>,
        args: &[f64],
    ) -> f64 {
        arg_lists[v].sort();
        let list: Vec<usize> = arg_lists[v].iter().map(|&(_, s)| s).collect();
        let values: Vec<f64> = list
            .iter()
            .map(|&a| go(a, expr, arg_lists, vars, args))
            .collect();
        match &expr.vertices[v] {
            ExpressionVertex::VariableReference(r) => {
                let n = location(r, vars);
                *vars.get(&n).unwrap_or_else(|| panic!("unset variable {n}"))
            }
            ExpressionVertex::Constant(c) => literal_value(c),
            ExpressionVertex::Intrinsic(i) => apply_intrinsic(&i.name, &values),
            ExpressionVertex::ArgumentReference(a) => args[a.argument as usize - 1],
            other => panic!("interpreter: cannot evaluate {other:?}"),
        }
    }
    go(roots[0], expr, &mut arg_lists, vars, args)
}

/// Values and derivatives of the program variables.
#[derive(Clone, Debug, Default)]
pub struct State {
    pub v: HashMap<String, f64>,
    pub d: HashMap<String, f64>,
}

/// Runs transformed basic block elements: assignments update values,
/// propagator entries update derivatives, each entry evaluating its right
/// side before storing (as one Fortran assignment does).
pub fn execute(elements: &[BasicBlockElement], state: &mut State) {
    for el in elements {
        match el {
            BasicBlockElement::Assignment(a) => {
                let value = eval(&a.rhs, &state.v, &[]);
                let target = location(&a.lhs.reference, &state.v);
                state.v.insert(target, value);
            }
            BasicBlockElement::DerivativePropagator(p) => {
                for e in &p.entries {
                    let d = |r: &VariableReference, s: &State| {
                        *s.d.get(&location(r, &s.v)).unwrap_or(&0.0)
                    };
                    let (tgt, value) = match e {
                        PropagatorEntry::SetDeriv { tgt, src } => (tgt, d(src, state)),
                        PropagatorEntry::SetNegDeriv { tgt, src } => (tgt, -d(src, state)),
                        PropagatorEntry::IncDeriv { tgt, src } => {
                            (tgt, d(tgt, state) + d(src, state))
                        }
                        PropagatorEntry::DecDeriv { tgt, src } => {
                            (tgt, d(tgt, state) - d(src, state))
                        }
                        PropagatorEntry::Sax { ax, y } => (
                            y,
                            ax.iter()
                                .map(|t| eval(&t.a, &state.v, &[]) * d(&t.x, state))
                                .sum(),
                        ),
                        PropagatorEntry::Saxpy { ax, y } => (
                            y,
                            d(y, state)
                                + ax.iter()
                                    .map(|t| eval(&t.a, &state.v, &[]) * d(&t.x, state))
                                    .sum::<f64>(),
                        ),
                        PropagatorEntry::ZeroDeriv(y) => (y, 0.0),
                    };
                    let target = location(tgt, &state.v);
                    state.d.insert(target, value);
                }
            }
            _ => {}
        }
    }
}

/// Runs only the original assignments (values), skipping booster output.
pub fn execute_original(assignments: &[(&str, &str)], vars: &mut HashMap<String, f64>) {
    for (lhs, rhs) in assignments {
        let value = eval(&parse_expression(rhs), vars, &[]);
        let target = location(&var_ref(lhs), vars);
        vars.insert(target, value);
    }
}
