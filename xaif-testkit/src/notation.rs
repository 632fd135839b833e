//! XAIF expressions and variable references from a prefix notation:
//! `(mul (sin x) x)`, `(gt x 0.5d0)`, `v[i]`, `v[(add i 1)]`. Numbers are
//! constants (`3` integer, `2.5d0` double); other words are variables.

use std::cell::Cell;
use xaif_schema::model::*;

/// Active real scalars of the global scope (module variables): `var`
/// puts their references in the global scope.
pub const GLOBALS: &[&str] = &["gw"];

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

/// The scope references are currently built in.
pub fn current_scope() -> u64 {
    SCOPE.with(|s| s.get())
}

/// The expression written `text` in prefix notation.
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
        edge_id: edge_id.into(),
        source: source.into(),
        target: target.into(),
        position,
        annotation: Default::default(),
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
                vertex_id: id.clone().into(),
                annotation: Default::default(),
                name,
            }),
            None => {
                let (name, r_type) = intrinsic(&op);
                ExpressionVertex::Intrinsic(Intrinsic {
                    vertex_id: id.clone().into(),
                    annotation: Default::default(),
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
            vertex_id: id.clone().into(),
            annotation: Default::default(),
            type_,
            fe_type: Default::default(),
            value: t.into(),
        }));
        id
    } else {
        let id = next_id(e);
        let mut r = var(&t);
        r.vertex_id = id.clone().into();
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

/// Catalogue name and result type of an operator of the notation.
fn intrinsic(op: &str) -> (&'static str, SymbolType) {
    let real = SymbolType::Real;
    let integer = SymbolType::Integer;
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
        "erf" => ("erf_scal", real),
        "erfc" => ("erfc_scal", real),
        "exp" => ("exp_scal", real),
        "log" => ("ln_scal", real),
        "log10" => ("log10_scal", real),
        "sqrt" => ("sqrt_scal", real),
        "abs" => ("abs_scal", real),
        "sign" => ("sign_scal_scal", real),
        "min" => ("min_scal_scal", real),
        "max" => ("max_scal_scal", real),
        "mod" => ("mod_scal_scal", real),
        "int" => ("int_scal", integer),
        "nint" => ("nint_scal", integer),
        "aint" => ("aint_scal", real),
        "anint" => ("anint_scal", real),
        "floor" => ("floor_scal", integer),
        "ceiling" => ("ceiling_scal", integer),
        "real" => ("real_scal", real),
        "iadd" => ("add_scal_scal", integer),
        "isub" => ("sub_scal_scal", integer),
        "lbound" => ("lbound", integer),
        "ubound" => ("ubound", integer),
        // An inquiry, typed real on purpose: the catalogue's integer
        // return type must decide that it carries no derivative.
        "size" => ("size", real),
        other => panic!("unknown operator {other}"),
    }
}

/// A reference to `x` or to an element `v[i]` / `v[(add i 1)]` of a
/// vector, in the current scope (`in_scope`); the names of `GLOBALS` are
/// in the global scope 1.
pub fn var(name: &str) -> VariableReference {
    if let Some((array, index)) = name.strip_suffix(']').and_then(|n| n.split_once('[')) {
        let mut r = var(array);
        r.vertices
            .push(VariableReferenceVertex::ArrayElementReference(
                ArrayElementReference {
                    vertex_id: "2".into(),
                    annotation: Default::default(),
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
            annotation: Default::default(),
        });
        return r;
    }
    VariableReference {
        vertex_id: "1".into(),
        vertices: vec![VariableReferenceVertex::SymbolReference(SymbolReference {
            vertex_id: "1".into(),
            annotation: Default::default(),
            symbol_id: name.to_string().into(),
            scope_id: if GLOBALS.contains(&name) {
                1
            } else {
                current_scope()
            },
            properties: Vec::new(),
        })],
        ..VariableReference::default()
    }
}
