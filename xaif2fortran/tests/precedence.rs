//! Expression unparsing against gfortran: random operator trees over
//! constants are unparsed, compiled and evaluated, and compared with the
//! value of the tree computed here. A missing or misplaced parenthesis
//! changes the value (or fails to compile).

use std::process::Command;

use xaif2fortran::expr::Env;
use xaif2fortran::symbols::XaifIndex;
use xaif2fortran::{Mode, XaifLocator};
use xaif_schema::{
    CallGraph, Constant, ConstantType, Expression, ExpressionEdge, ExpressionVertex, Intrinsic,
    SymbolShape, SymbolType,
};

/// A tiny deterministic generator (no external crates needed).
struct Lcg(u64);
impl Lcg {
    fn next(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) % n
    }
}

enum Tree {
    Const(f64, String),
    Int(i32),
    Neg(Box<Tree>),
    Bin(&'static str, Box<Tree>, Box<Tree>),
    Pow(Box<Tree>, Box<Tree>),
    Call(&'static str, Box<Tree>),
}

fn gen(r: &mut Lcg, depth: u32) -> Tree {
    let leaf = depth == 0 || r.next(4) == 0;
    if leaf {
        let vals = [
            (1.5, "1.5d0"),
            (0.75, "0.75d0"),
            (2.0, "2.0d0"),
            (-1.25, "-1.25d0"),
            (3.0, "3.0d0"),
        ];
        let (v, t) = vals[r.next(vals.len() as u64) as usize];
        return Tree::Const(v, t.to_string());
    }
    match r.next(6) {
        0 => Tree::Neg(Box::new(gen(r, depth - 1))),
        1 => {
            let e = [2, 3, -2][r.next(3) as usize];
            let exp = if e < 0 {
                Tree::Neg(Box::new(Tree::Int(-e)))
            } else {
                Tree::Int(e)
            };
            Tree::Pow(Box::new(gen(r, depth - 1)), Box::new(exp))
        }
        2 => Tree::Call(
            ["sin", "cos", "exp"][r.next(3) as usize],
            Box::new(gen(r, depth - 1)),
        ),
        _ => {
            let op = ["+", "-", "*", "/"][r.next(4) as usize];
            Tree::Bin(op, Box::new(gen(r, depth - 1)), Box::new(gen(r, depth - 1)))
        }
    }
}

fn value(t: &Tree) -> f64 {
    match t {
        Tree::Const(v, _) => *v,
        Tree::Int(i) => *i as f64,
        Tree::Neg(a) => -value(a),
        Tree::Bin("+", a, b) => value(a) + value(b),
        Tree::Bin("-", a, b) => value(a) - value(b),
        Tree::Bin("*", a, b) => value(a) * value(b),
        Tree::Bin(_, a, b) => value(a) / value(b),
        Tree::Pow(a, b) => value(a).powi(int_value(b)),
        Tree::Call("sin", a) => value(a).sin(),
        Tree::Call("cos", a) => value(a).cos(),
        Tree::Call(_, a) => value(a).exp(),
    }
}

fn int_value(t: &Tree) -> i32 {
    match t {
        Tree::Int(i) => *i,
        Tree::Neg(a) => -int_value(a),
        _ => unreachable!(),
    }
}

/// Builds the XAIF expression graph of a tree; returns the root id.
fn build(t: &Tree, e: &mut Expression) -> String {
    let id = (e.vertices.len() + 1).to_string();
    let intrinsic = |name: &str, e: &mut Expression| {
        e.vertices.push(ExpressionVertex::Intrinsic(Intrinsic {
            vertex_id: id.clone().into(),
            annotation: Default::default(),
            name: name.to_string().into(),
            type_: "inlinable".into(),
            r_type: SymbolType::Real,
            r_shape: SymbolShape::Scalar,
        }));
    };
    let args: Vec<&Tree> = match t {
        Tree::Const(_, text) => {
            e.vertices.push(ExpressionVertex::Constant(Constant {
                vertex_id: id.clone().into(),
                annotation: Default::default(),
                type_: ConstantType::Double,
                fe_type: Default::default(),
                value: text.clone().into(),
            }));
            vec![]
        }
        Tree::Int(i) => {
            e.vertices.push(ExpressionVertex::Constant(Constant {
                vertex_id: id.clone().into(),
                annotation: Default::default(),
                type_: ConstantType::Integer,
                fe_type: Default::default(),
                value: i.to_string().into(),
            }));
            vec![]
        }
        Tree::Neg(a) => {
            intrinsic("minus_scal", e);
            vec![a]
        }
        Tree::Bin(op, a, b) => {
            let name = match *op {
                "+" => "add_scal_scal",
                "-" => "sub_scal_scal",
                "*" => "mul_scal_scal",
                _ => "div_scal_scal",
            };
            intrinsic(name, e);
            vec![a, b]
        }
        Tree::Pow(a, b) => {
            intrinsic("pow_scal_scal", e);
            vec![a, b]
        }
        Tree::Call(f, a) => {
            intrinsic(&format!("{f}_scal"), e);
            vec![a]
        }
    };
    for (k, a) in args.into_iter().enumerate() {
        let src = build(a, e);
        e.edges.push(ExpressionEdge {
            edge_id: (e.edges.len() + 1).to_string().into(),
            source: src.into(),
            target: id.clone().into(),
            position: k as i64 + 1,
            annotation: Default::default(),
        });
    }
    id
}

#[test]
fn random_expressions_evaluate_the_same_in_gfortran() {
    let cg = CallGraph::default();
    let xaif = XaifLocator::new("test.xaif", None);
    let index = XaifIndex::new(&cg, &xaif).unwrap();
    let env = Env::new(&index, &xaif, Mode::Tangent);
    let mut r = Lcg(42);
    let mut expected = Vec::new();
    let mut program = String::from("program p\n  implicit none\n");
    while expected.len() < 300 {
        let t = gen(&mut r, 5);
        let v = value(&t);
        if !v.is_finite() || v.abs() > 1e12 || v.abs() < 1e-6 {
            continue;
        }
        let mut e = Expression::default();
        build(&t, &mut e);
        let text = env.expression(&e).unwrap();
        program.push_str(&format!("  print '(es25.17)', {text}\n"));
        expected.push((v, text));
    }
    program.push_str("end program p\n");
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("p.f90"), &program).unwrap();
    let c = Command::new("gfortran")
        .current_dir(dir.path())
        .args(["-ffree-line-length-none", "p.f90", "-o", "p"])
        .output()
        .unwrap();
    assert!(
        c.status.success(),
        "{}\n{program}",
        String::from_utf8_lossy(&c.stderr)
    );
    let run = Command::new(dir.path().join("p")).output().unwrap();
    let out = String::from_utf8_lossy(&run.stdout);
    let got: Vec<f64> = out.lines().map(|l| l.trim().parse().unwrap()).collect();
    assert_eq!(got.len(), expected.len());
    for ((v, text), g) in expected.iter().zip(&got) {
        assert!(
            (v - g).abs() <= 1e-12 * v.abs().max(1.0),
            "{text}: expected {v}, gfortran computed {g}"
        );
    }
}

fn constant(id: &str, value: &str, type_: ConstantType) -> ExpressionVertex {
    ExpressionVertex::Constant(Constant {
        vertex_id: id.into(),
        annotation: Default::default(),
        type_,
        fe_type: Default::default(),
        value: value.into(),
    })
}

fn boolean(id: &str, name: xaif_schema::BooleanOp) -> ExpressionVertex {
    ExpressionVertex::BooleanOperation(xaif_schema::BooleanOperation {
        vertex_id: id.into(),
        annotation: Default::default(),
        name,
    })
}

fn edge(n: usize, source: &str, target: &str, position: i64) -> ExpressionEdge {
    ExpressionEdge {
        edge_id: n.to_string().into(),
        source: source.into(),
        target: target.into(),
        position,
        annotation: Default::default(),
    }
}

#[test]
fn logical_equality_is_eqv_and_compiles() {
    use xaif_schema::BooleanOp::*;
    let cg = CallGraph::default();
    let xaif = XaifLocator::new("test.xaif", None);
    let index = XaifIndex::new(&cg, &xaif).unwrap();
    let env = Env::new(&index, &xaif, Mode::Tangent);
    // (1 < 2) /= (.not. .false. .and. 3 >= 4): .true. .neqv. .false.
    let e = Expression {
        vertices: vec![
            boolean("1", NotEqual),
            boolean("2", LessThan),
            constant("3", "1", ConstantType::Integer),
            constant("4", "2", ConstantType::Integer),
            boolean("5", And),
            boolean("6", Not),
            constant("7", ".false.", ConstantType::Bool),
            boolean("8", GreaterOrEqual),
            constant("9", "3", ConstantType::Integer),
            constant("10", "4", ConstantType::Integer),
        ],
        edges: vec![
            edge(1, "2", "1", 1),
            edge(2, "5", "1", 2),
            edge(3, "3", "2", 1),
            edge(4, "4", "2", 2),
            edge(5, "6", "5", 1),
            edge(6, "8", "5", 2),
            edge(7, "7", "6", 1),
            edge(8, "9", "8", 1),
            edge(9, "10", "8", 2),
        ],
    };
    let text = env.expression(&e).unwrap();
    assert!(text.contains(".neqv."), "{text}");
    let dir = tempfile::tempdir().unwrap();
    let program = format!("program p\n  print *, {text}\nend program p\n");
    std::fs::write(dir.path().join("p.f90"), &program).unwrap();
    let c = Command::new("gfortran")
        .current_dir(dir.path())
        .args(["p.f90", "-o", "p"])
        .output()
        .unwrap();
    assert!(
        c.status.success(),
        "{}\n{program}",
        String::from_utf8_lossy(&c.stderr)
    );
    let run = Command::new(dir.path().join("p")).output().unwrap();
    assert_eq!(
        String::from_utf8_lossy(&run.stdout).trim(),
        "T",
        "{program}"
    );
}
