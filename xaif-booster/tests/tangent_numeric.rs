//! Tangent mode checked numerically: the transformed basic block is run by
//! the test interpreter with a seeded direction, and the propagated
//! derivatives are compared with central finite differences of the original
//! statements (1e-7) and with exact hand derivatives (1e-12).

use std::collections::HashMap;

use xaif_booster::block_accumulate::EliminationChoice;
use xaif_booster::catalogue::Catalogue;
use xaif_booster::elimination::{Chain, Method};
use xaif_booster::tangent::{transform_tangent, Preaccumulation, TangentOptions};
use xaif_schema::model::*;
use xaif_testkit::*;

fn options() -> TangentOptions {
    TangentOptions {
        preaccumulation: Preaccumulation::Statement,
        elimination: EliminationChoice::Best(vec![Method::Vertex]),
        dot_dir: None,
        report_optimum: false,
    }
}

fn block_options(elimination: EliminationChoice) -> TangentOptions {
    TangentOptions {
        preaccumulation: Preaccumulation::BasicBlock,
        elimination,
        dot_dir: None,
        report_optimum: false,
    }
}

/// Statement-level preaccumulation and basic-block preaccumulation with
/// several elimination methods and heuristics.
fn all_options() -> Vec<TangentOptions> {
    let chain = |s: &str| s.parse::<Chain>().unwrap();
    vec![
        options(),
        block_options(EliminationChoice::One(
            Method::Vertex,
            chain("markowitz,reverse"),
        )),
        block_options(EliminationChoice::One(Method::Vertex, chain("forward"))),
        block_options(EliminationChoice::One(
            Method::Edge,
            chain("relative-markowitz,forward"),
        )),
        block_options(EliminationChoice::One(
            Method::Face,
            chain("markowitz,forward"),
        )),
        block_options(EliminationChoice::Best(vec![
            Method::Vertex,
            Method::Edge,
            Method::Face,
        ])),
        TangentOptions {
            preaccumulation: Preaccumulation::Auto,
            ..block_options(EliminationChoice::One(
                Method::Vertex,
                chain("markowitz,reverse"),
            ))
        },
    ]
}

fn transformed_with(assignments: &[(&str, &str)], options: &TangentOptions) -> CallGraph {
    let mut cg = program(assignments);
    let catalogue = Catalogue::builtin().expect("built-in catalogue");
    transform_tangent(&mut cg, &catalogue, options).expect("tangent transformation");
    cg
}

fn transformed(assignments: &[(&str, &str)]) -> CallGraph {
    transformed_with(assignments, &options())
}

fn point_map(point: &[(&str, f64)]) -> HashMap<String, f64> {
    let mut vars: HashMap<String, f64> = point.iter().map(|(n, v)| (n.to_string(), *v)).collect();
    for n in ACTIVE.iter().chain(PASSIVE) {
        vars.entry(n.to_string()).or_insert(0.5);
    }
    for n in INTEGER {
        vars.entry(n.to_string()).or_insert(3.0);
    }
    for (k, n) in VECTOR.iter().enumerate() {
        vars.entry(n.to_string()).or_insert(0.3 + 0.25 * k as f64);
    }
    vars
}

/// Derivative of `output` after the block with respect to the input
/// value of `input`, by the generated tangent code.
fn tangent_derivative(
    cg: &CallGraph,
    point: &HashMap<String, f64>,
    input: &str,
    output: &str,
) -> f64 {
    let mut state = State {
        v: point.clone(),
        d: ACTIVE
            .iter()
            .chain(VECTOR)
            .map(|n| (n.to_string(), 0.0))
            .collect(),
    };
    state.d.insert(input.to_string(), 1.0);
    execute(block_elements(cg), &mut state);
    state.d[output]
}

fn finite_difference(
    assignments: &[(&str, &str)],
    point: &HashMap<String, f64>,
    input: &str,
    output: &str,
) -> f64 {
    let x0 = point[input];
    let h = 1e-6 * x0.abs().max(1.0);
    let run = |x: f64| {
        let mut vars = point.clone();
        vars.insert(input.to_string(), x);
        execute_original(assignments, &mut vars);
        vars[output]
    };
    (run(x0 + h) - run(x0 - h)) / (2.0 * h)
}

fn close(got: f64, want: f64, tol: f64) -> bool {
    (got - want).abs() <= tol * want.abs().max(1.0)
}

/// Checks every active input against finite differences, and the given
/// exact derivatives `(input, value)` to 1e-12.
fn check(assignments: &[(&str, &str)], output: &str, point: &[(&str, f64)], exact: &[(&str, f64)]) {
    for opts in all_options() {
        check_with(assignments, output, point, exact, &opts);
    }
}

fn check_with(
    assignments: &[(&str, &str)],
    output: &str,
    point: &[(&str, f64)],
    exact: &[(&str, f64)],
    opts: &TangentOptions,
) {
    let cg = transformed_with(assignments, opts);
    let mode = format!("{:?} {:?}", opts.preaccumulation, opts.elimination);
    let point = point_map(point);
    // The transformed block must compute the same values.
    let mut plain = point.clone();
    execute_original(assignments, &mut plain);
    let mut state = State {
        v: point.clone(),
        d: HashMap::new(),
    };
    execute(block_elements(&cg), &mut state);
    assert!(
        close(state.v[output], plain[output], 1e-15),
        "{mode}: value changed"
    );
    for input in ACTIVE.iter().chain(VECTOR) {
        let got = tangent_derivative(&cg, &point, input, output);
        let fd = finite_difference(assignments, &point, input, output);
        assert!(
            close(got, fd, 1e-7),
            "{mode} {assignments:?}: d{output}/d{input}: tangent {got}, finite difference {fd}"
        );
    }
    for (input, want) in exact {
        let got = tangent_derivative(&cg, &point, input, output);
        assert!(
            close(got, *want, 1e-12),
            "{mode} {assignments:?}: d{output}/d{input}: tangent {got}, exact {want}"
        );
    }
}

#[test]
fn sin_times_x() {
    let x: f64 = 0.7;
    check(
        &[("y", "(mul (sin x) x)")],
        "y",
        &[("x", x)],
        &[("x", x.cos() * x + x.sin())],
    );
}

#[test]
fn integer_power() {
    let x: f64 = 1.3;
    check(
        &[("y", "(pow x 3)")],
        "y",
        &[("x", x)],
        &[("x", 3.0 * x * x)],
    );
}

#[test]
fn integer_variable_exponent_carries_no_derivative() {
    let x: f64 = 1.3;
    check(
        &[("y", "(pow x n)")],
        "y",
        &[("x", x), ("n", 4.0)],
        &[("x", 4.0 * x.powi(3))],
    );
}

#[test]
fn real_power_both_arguments() {
    let (x, a): (f64, f64) = (1.7, 2.3);
    check(
        &[("y", "(pow x a)")],
        "y",
        &[("x", x), ("a", a)],
        &[("x", a * x.powf(a - 1.0)), ("a", x.powf(a) * x.ln())],
    );
}

#[test]
fn exp_over_b() {
    let (a, b): (f64, f64) = (0.4, 1.9);
    check(
        &[("y", "(div (exp a) b)")],
        "y",
        &[("a", a), ("b", b)],
        &[("a", a.exp() / b), ("b", -a.exp() / (b * b))],
    );
}

#[test]
fn sqrt_of_square_plus_one() {
    let x: f64 = -0.8;
    check(
        &[("y", "(sqrt (add (mul x x) 1))")],
        "y",
        &[("x", x)],
        &[("x", x / (x * x + 1.0).sqrt())],
    );
}

#[test]
fn overwriting_square() {
    let x: f64 = 1.1;
    check(&[("x", "(mul x x)")], "x", &[("x", x)], &[("x", 2.0 * x)]);
}

#[test]
fn overwriting_x_sin_x() {
    let x: f64 = 0.9;
    check(
        &[("x", "(mul x (sin x))")],
        "x",
        &[("x", x)],
        &[("x", x.sin() + x * x.cos())],
    );
}

#[test]
fn overwrite_with_minus_one_coefficient() {
    check(
        &[("y", "(sub x y)")],
        "y",
        &[("x", 0.3), ("y", 0.4)],
        &[("x", 1.0), ("y", -1.0)],
    );
    check(
        &[("y", "(add y x)")],
        "y",
        &[("x", 0.3), ("y", 0.4)],
        &[("x", 1.0), ("y", 1.0)],
    );
    check(&[("y", "(mul 2 y)")], "y", &[("y", 0.4)], &[("y", 2.0)]);
}

#[test]
fn abs_away_from_and_at_kink() {
    check(&[("y", "(abs x)")], "y", &[("x", -2.0)], &[("x", -1.0)]);
    // At zero the catalogue takes the derivative of sign(1,x): +1.
    let cg = transformed(&[("y", "(abs x)")]);
    let d = tangent_derivative(&cg, &point_map(&[("x", 0.0)]), "x", "y");
    assert_eq!(d, 1.0);
}

#[test]
fn max_and_min_ties_pick_first_argument() {
    check(
        &[("y", "(max x z)")],
        "y",
        &[("x", 0.2), ("z", 0.9)],
        &[("x", 0.0), ("z", 1.0)],
    );
    check(
        &[("y", "(min x z)")],
        "y",
        &[("x", 0.2), ("z", 0.9)],
        &[("x", 1.0), ("z", 0.0)],
    );
    for f in ["(max x z)", "(min x z)"] {
        let cg = transformed(&[("y", f)]);
        let p = point_map(&[("x", 0.5), ("z", 0.5)]);
        assert_eq!(tangent_derivative(&cg, &p, "x", "y"), 1.0, "{f} at a tie");
        assert_eq!(tangent_derivative(&cg, &p, "z", "y"), 0.0, "{f} at a tie");
    }
}

#[test]
fn atan2_both_arguments() {
    let (x, z): (f64, f64) = (0.6, -1.4);
    let r = x * x + z * z;
    check(
        &[("y", "(atan2 x z)")],
        "y",
        &[("x", x), ("z", z)],
        &[("x", z / r), ("z", -x / r)],
    );
}

#[test]
fn sign_and_mod() {
    check(
        &[("y", "(sign x z)")],
        "y",
        &[("x", -0.6), ("z", 1.4)],
        &[("x", -1.0), ("z", 0.0)],
    );
    let (x, z): (f64, f64) = (2.5, 0.7);
    check(
        &[("y", "(mod x z)")],
        "y",
        &[("x", x), ("z", z)],
        &[("x", 1.0), ("z", -(x / z).trunc())],
    );
}

#[test]
fn elementary_functions() {
    let x: f64 = 0.35;
    let cases: &[(&str, f64)] = &[
        ("(tan x)", 1.0 / (x.cos() * x.cos())),
        ("(asin x)", 1.0 / (1.0 - x * x).sqrt()),
        ("(acos x)", -1.0 / (1.0 - x * x).sqrt()),
        ("(atan x)", 1.0 / (1.0 + x * x)),
        ("(sinh x)", x.cosh()),
        ("(cosh x)", x.sinh()),
        ("(tanh x)", 1.0 - x.tanh() * x.tanh()),
        ("(log x)", 1.0 / x),
        ("(log10 x)", 1.0 / (x * 10f64.ln())),
        ("(cos x)", -x.sin()),
        ("(neg x)", -1.0),
        ("(real x)", 1.0),
        ("(exp (mul 2 x))", 2.0 * (2.0 * x).exp()),
    ];
    for (f, want) in cases {
        check(&[("y", f)], "y", &[("x", x)], &[("x", *want)]);
    }
}

#[test]
fn piecewise_constant_intrinsics_have_zero_derivative() {
    for f in [
        "(aint x)",
        "(anint x)",
        "(mul z (aint x))",
        "(mul z (real (int x)))",
    ] {
        let cg = transformed(&[("y", f)]);
        let p = point_map(&[("x", 2.3), ("z", 1.5)]);
        assert_eq!(tangent_derivative(&cg, &p, "x", "y"), 0.0, "{f}");
    }
    check(
        &[("y", "(mul z (aint x))")],
        "y",
        &[("x", 2.3), ("z", 1.5)],
        &[("z", 2.0)],
    );
}

#[test]
fn passive_factor_and_passive_value() {
    check(
        &[("y", "(mul p x)")],
        "y",
        &[("p", 3.5), ("x", 0.2)],
        &[("x", 3.5)],
    );
    // An active variable receiving a passive value loses its derivative.
    let cg = transformed(&[("y", "(mul p q)")]);
    let mut state = State {
        v: point_map(&[]),
        d: [("y".to_string(), 5.0)].into_iter().collect(),
    };
    execute(block_elements(&cg), &mut state);
    assert_eq!(state.d["y"], 0.0);
}

#[test]
fn constant_coefficients_fold() {
    check(
        &[("y", "(add x (mul 2 x))")],
        "y",
        &[("x", 0.2)],
        &[("x", 3.0)],
    );
    check(
        &[("y", "(sub (mul 3 a) (mul 5 (neg b)))")],
        "y",
        &[],
        &[("a", 3.0), ("b", 5.0)],
    );
}

#[test]
fn several_statements_in_one_block() {
    let stmts = [
        ("z", "(mul x y)"),
        ("y", "(add z (sin z))"),
        ("a", "(mul y (exp x))"),
        ("x", "(div a (add 1 (mul z z)))"),
    ];
    for out in ["z", "y", "a", "x"] {
        check(&stmts, out, &[("x", 0.3), ("y", -0.7)], &[]);
    }
}

#[test]
fn shared_subexpression_is_differentiated_once() {
    // y = s*s with s = sin(x) one shared vertex of the expression DAG.
    let mut cg = program(&[("y", "(mul (sin x) 1)")]);
    for v in &mut cg.vertices {
        let CallGraphVertex::ControlFlowGraph(cfg) = v else {
            continue;
        };
        for w in &mut cfg.vertices {
            let ControlFlowVertex::BasicBlock(bb) = w else {
                continue;
            };
            let BasicBlockElement::Assignment(a) = &mut bb.elements[0] else {
                continue;
            };
            // Vertices: 1 x, 2 sin, 3 constant 1, 4 mul; reroute the constant edge to sin.
            a.rhs.vertices.retain(|v| v.vertex_id() != "3");
            for e in &mut a.rhs.edges {
                if e.source == "3" {
                    e.source = "2".into();
                }
            }
        }
    }
    let catalogue = Catalogue::builtin().unwrap();
    transform_tangent(&mut cg, &catalogue, &options()).unwrap();
    let x: f64 = 0.8;
    let d = tangent_derivative(&cg, &point_map(&[("x", x)]), "x", "y");
    let want = 2.0 * x.sin() * x.cos();
    assert!(close(d, want, 1e-12), "{d} vs {want}");
    // One cos(x) partial for the sin vertex, not two.
    let partials = block_elements(&cg)
        .iter()
        .filter(|e| {
            matches!(e, BasicBlockElement::Assignment(a) if a.rhs.vertices.iter().any(
            |v| matches!(v, ExpressionVertex::Intrinsic(i) if i.name == "cos_scal")))
        })
        .count();
    assert_eq!(partials, 1);
}

fn propagator_entries(cg: &CallGraph) -> Vec<PropagatorEntry> {
    block_elements(cg)
        .iter()
        .filter_map(|e| match e {
            BasicBlockElement::DerivativePropagator(p) => Some(p.entries.clone()),
            _ => None,
        })
        .flatten()
        .collect()
}

#[test]
fn sums_use_copies_not_multiplications_by_one() {
    let cg = transformed(&[("y", "(sub (add a b) x)")]);
    let entries = propagator_entries(&cg);
    assert!(matches!(entries[0], PropagatorEntry::SetDeriv { .. }));
    assert!(matches!(entries[1], PropagatorEntry::IncDeriv { .. }));
    assert!(matches!(entries[2], PropagatorEntry::DecDeriv { .. }));
    assert_eq!(entries.len(), 3);
    // No temporaries either: all partials are constants.
    assert_eq!(block_elements(&cg).len(), 2);
    let cg = transformed(&[("y", "x")]);
    assert!(matches!(
        propagator_entries(&cg)[..],
        [PropagatorEntry::SetDeriv { .. }]
    ));
    let cg = transformed(&[("y", "(neg x)")]);
    assert!(matches!(
        propagator_entries(&cg)[..],
        [PropagatorEntry::SetNegDeriv { .. }]
    ));
}

#[test]
fn passive_statements_are_untouched() {
    let stmts = [("p", "(mul q q)"), ("n", "(add n 1)")];
    let before = program(&stmts);
    let after = transformed(&stmts);
    assert_eq!(before, after);
}

#[test]
fn temporaries_are_declared_in_the_subroutine_scope() {
    let cg = transformed(&[("y", "(mul (sin x) (cos z))"), ("z", "(exp (mul x y))")]);
    let local = &cg.scope_hierarchy.scopes[1].symbol_tables[0].symbols;
    let temps: Vec<&Symbol> = local.iter().filter(|s| s.temp).collect();
    assert!(!temps.is_empty());
    for t in &temps {
        assert!(!t.active && t.type_ == SymbolType::Real && t.shape == SymbolShape::Scalar);
        assert!(t.symbol_id.starts_with("oad_"));
    }
    // Every temporary written by the block is declared.
    for e in block_elements(&cg) {
        if let BasicBlockElement::Assignment(a) = e {
            let VariableReferenceVertex::SymbolReference(s) = &a.lhs.reference.vertices[0] else {
                panic!()
            };
            assert!(
                local.iter().any(|x| x.symbol_id == s.symbol_id),
                "{} undeclared",
                s.symbol_id
            );
        }
    }
}

#[test]
fn unknown_intrinsic_with_active_argument_is_rejected() {
    let mut cg = program(&[("y", "(sin x)")]);
    for v in &mut cg.vertices {
        let CallGraphVertex::ControlFlowGraph(cfg) = v else {
            continue;
        };
        for w in &mut cfg.vertices {
            let ControlFlowVertex::BasicBlock(bb) = w else {
                continue;
            };
            let BasicBlockElement::Assignment(a) = &mut bb.elements[0] else {
                continue;
            };
            for v in &mut a.rhs.vertices {
                if let ExpressionVertex::Intrinsic(i) = v {
                    i.name = "gamma_scal".into();
                }
            }
        }
    }
    let err = transform_tangent(&mut cg, &Catalogue::builtin().unwrap(), &options()).unwrap_err();
    assert_eq!(err.statement_id.as_deref(), Some("s1"));
    assert!(err.message.contains("gamma_scal"), "{}", err.message);
}

fn propagator_count(cg: &CallGraph) -> usize {
    block_elements(cg)
        .iter()
        .filter(|e| matches!(e, BasicBlockElement::DerivativePropagator(_)))
        .count()
}

#[test]
fn block_mode_flattens_a_chain_into_one_graph() {
    let stmts = [
        ("z", "(mul x y)"),
        ("a", "(sin z)"),
        ("b", "(mul a (exp z))"),
        ("y", "(add b (mul a x))"),
    ];
    let best = block_options(EliminationChoice::Best(vec![Method::Vertex, Method::Edge]));
    let cg = transformed_with(&stmts, &best);
    assert_eq!(propagator_count(&cg), 1);
    for out in ["z", "a", "b", "y"] {
        check(&stmts, out, &[("x", 0.3), ("y", -0.7)], &[]);
    }
    // Exact: y = sin(xy)*exp(xy) + sin(xy)*x with y0 the input y.
    let (x, y0): (f64, f64) = (0.3, -0.7);
    let z = x * y0;
    let dy_dz = z.cos() * z.exp() + z.sin() * z.exp() + z.cos() * x;
    check(
        &stmts,
        "y",
        &[("x", x), ("y", y0)],
        &[("x", dy_dz * y0 + z.sin()), ("y", dy_dz * x)],
    );
}

#[test]
fn block_mode_reassignment_and_swap() {
    // Overwritten values, non-maximal dependents, and a swap through a
    // temporary: every row must read the derivatives on entry.
    let cases: &[&[(&str, &str)]] = &[
        &[("y", "(sin x)"), ("y", "(mul y x)"), ("x", "(mul y y)")],
        &[("z", "x"), ("x", "y"), ("y", "z")],
        &[
            ("a", "(mul x 2)"),
            ("b", "(add a x)"),
            ("a", "(mul b b)"),
            ("x", "(sub a b)"),
        ],
        &[("x", "(mul x x)"), ("x", "(mul x x)"), ("y", "(div y x)")],
        &[("y", "x"), ("z", "y")],
        &[("y", "(mul p q)"), ("z", "(add y x)")],
    ];
    for stmts in cases {
        for out in ["x", "y", "z", "a", "b"] {
            check(stmts, out, &[("x", 0.6), ("y", 1.3), ("z", -0.4)], &[]);
        }
    }
}

#[test]
fn array_elements_that_may_alias() {
    // v[n] and v[m] are the same element when n = m: the flattening must
    // not identify or separate them wrongly, and the propagator must read
    // derivatives before writing the aliased element.
    let cases: &[&[(&str, &str)]] = &[
        &[("v[n]", "(mul v[m] x)"), ("y", "(mul v[m] v[n])")],
        &[
            ("v[n]", "(sin v[m])"),
            ("v[m]", "(mul v[n] 2)"),
            ("y", "(add v[n] v[m])"),
        ],
        &[("v[n]", "(mul v[n] v[m])"), ("v[m]", "(add v[m] v[n])")],
        &[("v[1]", "(mul v[n] y)"), ("y", "(mul v[1] v[n])")],
    ];
    for stmts in cases {
        for (n, m) in [(2.0, 2.0), (2.0, 3.0)] {
            for out in ["y", "v(1)", "v(2)", "v(3)"] {
                check(
                    stmts,
                    out,
                    &[("n", n), ("m", m), ("x", 0.7), ("y", 1.1)],
                    &[],
                );
            }
        }
    }
}

#[test]
fn catalogue_override_changes_the_derivative() {
    // A catalogue whose sin partial is 2*cos(a): the derivative must double,
    // so the partials really come from the catalogue data.
    let text = xaif_booster::catalogue::BUILTIN_CATALOGUE;
    let start = text
        .find("<xaifii:InlinableIntrinsic name=\"sin_scal\"")
        .unwrap();
    let end = start + text[start..].find("</xaifii:InlinableIntrinsic>").unwrap();
    let entry = &text[start..end];
    let doubled = entry.replace(
        "<xaif:Intrinsic vertex_id=\"1\" name=\"cos_scal\" rType=\"real\"/>\n      <xaifii:ArgumentReference vertex_id=\"2\" argument=\"1\"/>\n      <xaif:ExpressionEdge edge_id=\"1\" source=\"2\" target=\"1\" position=\"1\"/>",
        "<xaif:Intrinsic vertex_id=\"1\" name=\"mul_scal_scal\" rType=\"real\"/>\n      <xaif:Constant vertex_id=\"2\" type=\"integer\" value=\"2\"/>\n      <xaif:Intrinsic vertex_id=\"3\" name=\"cos_scal\" rType=\"real\"/>\n      <xaifii:ArgumentReference vertex_id=\"4\" argument=\"1\"/>\n      <xaif:ExpressionEdge edge_id=\"1\" source=\"2\" target=\"1\" position=\"1\"/>\n      <xaif:ExpressionEdge edge_id=\"2\" source=\"3\" target=\"1\" position=\"2\"/>\n      <xaif:ExpressionEdge edge_id=\"3\" source=\"4\" target=\"3\" position=\"1\"/>",
    );
    assert_ne!(doubled, entry, "the test must find the sin partial");
    let modified = format!("{}{}{}", &text[..start], doubled, &text[end..]);
    let catalogue = Catalogue::parse(&modified, "modified.xaif").unwrap();
    let mut cg = program(&[("y", "(sin x)")]);
    transform_tangent(&mut cg, &catalogue, &options()).unwrap();
    let x: f64 = 0.4;
    let d = tangent_derivative(&cg, &point_map(&[("x", x)]), "x", "y");
    assert!(close(d, 2.0 * x.cos(), 1e-12), "{d}");
}

#[test]
fn malformed_catalogue_partials_are_rejected() {
    let text = xaif_booster::catalogue::BUILTIN_CATALOGUE;
    let bad = text.replacen("argument=\"2\"", "argument=\"7\"", 1);
    let err = Catalogue::parse(&bad, "bad.xaif").err().expect("rejected");
    assert!(err.to_string().starts_with("bad.xaif:"), "{err}");
}

/// Every integer constant anywhere in the block's expressions.
fn integer_constants(cg: &CallGraph) -> Vec<String> {
    fn from_expr(e: &Expression, out: &mut Vec<String>) {
        for v in &e.vertices {
            if let ExpressionVertex::Constant(c) = v {
                if c.type_ == ConstantType::Integer {
                    out.push(c.value.to_string());
                }
            }
        }
    }
    let mut out = Vec::new();
    for el in block_elements(cg) {
        match el {
            BasicBlockElement::Assignment(a) => from_expr(&a.rhs, &mut out),
            BasicBlockElement::DerivativePropagator(p) => {
                for e in &p.entries {
                    if let PropagatorEntry::Sax { ax, .. } | PropagatorEntry::Saxpy { ax, .. } = e {
                        for t in ax {
                            from_expr(&t.a, &mut out);
                        }
                    }
                }
            }
            _ => {}
        }
    }
    out
}

#[test]
fn folded_integers_stay_default_kind() {
    // 100000*100000 does not fit a 32-bit integer: it must not be folded
    // into one literal.
    let stmts = [("y", "(mul 100000 (mul 100000 x))")];
    for opts in all_options() {
        let cg = transformed_with(&stmts, &opts);
        for c in integer_constants(&cg) {
            let v: i64 = c.parse().unwrap();
            assert!(v.abs() <= i32::MAX as i64, "{c} in {:?}", opts.elimination);
        }
    }
    check(&stmts, "y", &[("x", 0.5)], &[("x", 1e10)]);
}

/// Gives statement `k` (from 0) of the block the du chain `reads`.
fn set_du_chain(cg: &mut CallGraph, k: usize, reads: &[&str]) {
    let key = cg.duud_set_map.sets.len() as u64 + 100;
    cg.duud_set_map.sets.push(StmtIdSet {
        key,
        statement_ids: reads.iter().map(|&s| s.into()).collect(),
    });
    for v in &mut cg.vertices {
        let CallGraphVertex::ControlFlowGraph(cfg) = v else {
            continue;
        };
        for w in &mut cfg.vertices {
            let ControlFlowVertex::BasicBlock(bb) = w else {
                continue;
            };
            let BasicBlockElement::Assignment(a) = &mut bb.elements[k] else {
                panic!()
            };
            a.lhs.reference.du_ud = key as i64;
        }
    }
}

fn propagated_variables(cg: &CallGraph) -> Vec<String> {
    let name = |r: &VariableReference| match &r.vertices[0] {
        VariableReferenceVertex::SymbolReference(s) => s.symbol_id.to_string(),
        _ => unreachable!(),
    };
    propagator_entries(cg)
        .iter()
        .map(|e| match e {
            PropagatorEntry::SetDeriv { tgt, .. }
            | PropagatorEntry::SetNegDeriv { tgt, .. }
            | PropagatorEntry::IncDeriv { tgt, .. }
            | PropagatorEntry::DecDeriv { tgt, .. } => name(tgt),
            PropagatorEntry::Sax { y, .. } | PropagatorEntry::Saxpy { y, .. } => name(y),
            PropagatorEntry::ZeroDeriv(y) => name(y),
        })
        .collect()
}

#[test]
fn du_chains_drop_derivatives_nobody_reads() {
    let stmts = [("z", "(mul x y)"), ("a", "(sin z)"), ("y", "(mul a z)")];
    let point = point_map(&[("x", 0.3), ("y", -0.7)]);
    let (x, y0): (f64, f64) = (0.3, -0.7);
    let z = x * y0;
    let want_dy_dx = (z.cos() * z + z.sin()) * y0;
    for opts in all_options() {
        let mut cg = program(&stmts);
        // z is read by statements 2 and 3, a only by statement 3, y outside.
        set_du_chain(&mut cg, 0, &["s2", "s3"]);
        set_du_chain(&mut cg, 1, &["s3"]);
        set_du_chain(&mut cg, 2, &[""]);
        transform_tangent(&mut cg, &Catalogue::builtin().unwrap(), &opts).unwrap();
        let d = tangent_derivative(&cg, &point, "x", "y");
        assert!(
            close(d, want_dy_dx, 1e-12),
            "{:?}: {d}",
            opts.preaccumulation
        );
        let written = propagated_variables(&cg);
        match opts.preaccumulation {
            // Within one flattened run only y is read afterwards.
            Preaccumulation::BasicBlock => {
                assert!(
                    written.iter().all(|w| w == "y"),
                    "{:?}: {written:?}",
                    opts.elimination
                )
            }
            Preaccumulation::Statement => assert!(written.contains(&"z".to_string())),
            // Either form, whichever is cheaper: the derivative is checked above.
            Preaccumulation::Auto => {}
        }
    }
    // A dead definition (empty du chain) gets no derivative code at all.
    for opts in all_options() {
        let mut cg = program(&[("z", "(mul x y)"), ("y", "(sin x)")]);
        set_du_chain(&mut cg, 0, &[]);
        transform_tangent(&mut cg, &Catalogue::builtin().unwrap(), &opts).unwrap();
        assert!(!propagated_variables(&cg).contains(&"z".to_string()));
        let d = tangent_derivative(&cg, &point, "x", "y");
        assert!(close(d, 0.3f64.cos(), 1e-12));
    }
}

#[test]
fn square_partial_has_no_power() {
    let cg = transformed(&[("y", "(pow x 2)")]);
    for el in block_elements(&cg) {
        if let BasicBlockElement::Assignment(a) = el {
            if a.statement_id != "s1" {
                assert!(
                    !a.rhs.vertices.iter().any(
                        |v| matches!(v, ExpressionVertex::Intrinsic(i) if i.name == "pow_scal_scal")
                    ),
                    "partial of x**2 should be 2*x"
                );
            }
        }
    }
    check(&[("y", "(pow x 2)")], "y", &[("x", -1.5)], &[("x", -3.0)]);
}

#[test]
fn partials_folding_to_zero_leave_no_vertex() {
    // (2-2)*x: the partial with respect to x folds to 0, so the product is
    // a constant of the derivative; basic-block elimination must not see an
    // intermediate without predecessors.
    check(
        &[("y", "(mul (sub 2 2) x)")],
        "y",
        &[("x", 0.4)],
        &[("x", 0.0)],
    );
    check(
        &[("z", "(mul (sub 2 2) (mul x y))"), ("y", "(add z (sin x))")],
        "y",
        &[("x", 0.4)],
        &[("x", 0.4f64.cos())],
    );
}

#[test]
fn inquiry_on_an_active_array_is_passive() {
    // y = v(1) * size(v): the whole array v is only inquired; it must not
    // become an independent (which would be rejected as array-valued).
    for opts in all_options() {
        let cg = transformed_with(&[("y", "(mul v[1] (size v))")], &opts);
        let mut point = point_map(&[]);
        point.insert("v".into(), 4.0);
        let d = tangent_derivative(&cg, &point, "v(1)", "y");
        assert_eq!(d, 4.0, "{:?}", opts.preaccumulation);
    }
}

/// An explicit Euler step: a passive step `p` and literal coefficients on
/// every right-hand side (the scale factors basic-block replay defers).
#[test]
fn explicit_euler_step_with_a_passive_step_size() {
    let (x, y, z, p) = (0.7_f64, -0.4_f64, 1.3_f64, 0.05_f64);
    let block = [
        ("a", "(mul x y)"),
        ("b", "(mul z x)"),
        ("x", "(add x (mul p (sub (mul 2.5d0 a) b)))"),
        ("y", "(add y (mul p (sub a (mul 1.5d0 b))))"),
        ("z", "(add z (mul p (add (mul 0.5d0 a) b)))"),
    ];
    let point = [("x", x), ("y", y), ("z", z), ("p", p)];
    // y' = y + p (x y - 1.5 z x), from the values on entry.
    check(
        &block,
        "y",
        &point,
        &[
            ("x", p * (y - 1.5 * z)),
            ("y", 1.0 + p * x),
            ("z", -1.5 * p * x),
        ],
    );
    // z' = z + p (0.5 x y + z x)
    check(
        &block,
        "z",
        &point,
        &[
            ("x", p * (0.5 * y + z)),
            ("y", 0.5 * p * x),
            ("z", 1.0 + p * x),
        ],
    );
}
