//! Scalarisation of array-valued assignments (`scalarize.rs`), for front
//! ends that do not scalarise: element-wise code checked by interpreting
//! input and outputs (tangent against finite differences, adjoint against
//! tangent), and every refusal by name.

use xaif_booster::adjoint::transform_adjoint;
use xaif_booster::block_accumulate::EliminationChoice;
use xaif_booster::catalogue::Catalogue;
use xaif_booster::elimination::Method;
use xaif_booster::tangent::{transform_tangent, BoostError, Preaccumulation, TangentOptions};
use xaif_schema::model::*;
use xaif_testkit::check::{check_document, Verdict};
use xaif_testkit::*;

/// `v(lo:hi)` (a section of the builders' vector `v(1:4)`), or `v(:)`
/// with `None` bounds; `lo` may be a variable name.
fn section(lo: Option<&str>, hi: Option<&str>) -> VariableReference {
    let mut r = var("v");
    r.vertices
        .push(VariableReferenceVertex::ArrayElementReference(
            ArrayElementReference {
                vertex_id: "2".into(),
                annotation: Default::default(),
                index_triplets: vec![IndexTriplet {
                    index: lo.map(expr),
                    bound: Some(hi.map(expr).unwrap_or_else(|| expr("4"))),
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
    r
}

/// `program(...)` with the right-hand side's variable references named
/// in `replace` (by prefix-notation name) swapped for references, and the
/// left-hand side replaced by `lhs` when given.
fn with_references(
    rhs: &str,
    replace: &[(&str, VariableReference)],
    lhs: Option<VariableReference>,
) -> CallGraph {
    let mut cg = program(&[("y", rhs)]);
    if let CallGraphVertex::ControlFlowGraph(c) = &mut cg.vertices[0] {
        if let ControlFlowVertex::BasicBlock(b) = &mut c.vertices[1] {
            if let BasicBlockElement::Assignment(a) = &mut b.elements[0] {
                for v in &mut a.rhs.vertices {
                    if let ExpressionVertex::VariableReference(r) = v {
                        let name = match &r.vertices[0] {
                            VariableReferenceVertex::SymbolReference(s) => s.symbol_id.clone(),
                            _ => continue,
                        };
                        if let Some((_, new)) = replace.iter().find(|(n, _)| *n == name) {
                            let id = r.vertex_id.clone();
                            *r = new.clone();
                            r.vertex_id = id;
                        }
                    }
                }
                if let Some(l) = lhs {
                    a.lhs.reference = l;
                }
            }
        }
    }
    cg
}

fn tangent(cg: &CallGraph) -> Result<CallGraph, BoostError> {
    let mut out = cg.clone();
    let options = TangentOptions {
        preaccumulation: Preaccumulation::Auto,
        elimination: EliminationChoice::Best(vec![Method::Vertex]),
        dot_dir: None,
        report_optimum: false,
    };
    transform_tangent(&mut out, &Catalogue::builtin().unwrap(), &options)?;
    Ok(out)
}

fn adjoint(cg: &CallGraph) -> Result<CallGraph, BoostError> {
    let mut out = cg.clone();
    transform_adjoint(&mut out, &Catalogue::builtin().unwrap())?;
    Ok(out)
}

/// Both modes accept `cg` and the interpreter check passes (with `x`, `y`
/// and `v` as `head`'s arguments: what the check perturbs and observes).
fn checks_out(cg: &CallGraph) {
    checks_out_with(cg, 4)
}

/// `checks_out` with at least `min_inputs` active inputs (sections with
/// a drawn bound `n` in 2..4 may cover one element only).
fn checks_out_with(cg: &CallGraph, min_inputs: usize) {
    let mut cg = cg.clone();
    if let CallGraphVertex::ControlFlowGraph(c) = &mut cg.vertices[0] {
        c.argument_list = Some(
            ["x", "y", "v"]
                .iter()
                .enumerate()
                .map(|(k, n)| ArgumentSymbolReference {
                    position: k as u64 + 1,
                    symbol_id: n.to_string().into(),
                    scope_id: 2,
                    ..ArgumentSymbolReference::default()
                })
                .collect(),
        );
    }
    let cg = &cg;
    let (t, a) = (tangent(cg).unwrap(), adjoint(cg).unwrap());
    for seed in 1..=3 {
        let verdicts = check_document(cg, &t, &a, seed);
        assert!(
            matches!(verdicts[0].1, Verdict::Passed { inputs, .. } if inputs >= min_inputs),
            "{verdicts:?}"
        );
    }
}

/// Both modes refuse `cg` at statement s1 with a message containing
/// `fragment`.
fn refused(cg: &CallGraph, fragment: &str) {
    for e in [tangent(cg).unwrap_err(), adjoint(cg).unwrap_err()] {
        assert_eq!(e.statement_id.as_deref(), Some("s1"), "{e}");
        assert!(e.message.contains(fragment), "{e}");
    }
}

#[test]
fn whole_array_times_scalar() {
    // v = v * x
    let cg = with_references("(mul w x)", &[("w", var("v"))], Some(var("v")));
    checks_out(&cg);
}

#[test]
fn shifted_section_reading_its_own_target_runs_backwards() {
    // v(2:4) = v(1:3) * sin(x): forward order would read v(2) after
    // overwriting it.
    let cg = with_references(
        "(mul w (sin x))",
        &[("w", section(Some("1"), Some("3")))],
        Some(section(Some("2"), Some("4"))),
    );
    checks_out(&cg);
}

#[test]
fn whole_array_section_and_scalar_mixed() {
    // v(:) = v(1:4) * x + y
    let cg = with_references(
        "(add (mul w x) y)",
        &[("w", section(Some("1"), Some("4")))],
        Some(section(None, None)),
    );
    checks_out(&cg);
}

#[test]
fn section_into_a_scalar_is_refused() {
    let cg = with_references("(mul w x)", &[("w", section(Some("1"), Some("2")))], None);
    refused(&cg, "the shapes do not conform");
}

#[test]
fn sections_of_different_extents_are_refused() {
    let cg = with_references(
        "(mul w x)",
        &[("w", section(Some("1"), Some("2")))],
        Some(section(Some("1"), Some("3"))),
    );
    refused(&cg, "do not conform");
}

#[test]
fn a_section_with_a_variable_bound_becomes_a_loop() {
    // v(n:4) = v(n:4) * x: a loop from n to 4.
    let cg = with_references(
        "(mul w x)",
        &[("w", section(Some("n"), Some("4")))],
        Some(section(Some("n"), Some("4"))),
    );
    checks_out_with(&cg, 2);
    let out = tangent(&cg).unwrap();
    let loops = graph_vertices(&out)
        .iter()
        .filter(|v| matches!(v, ControlFlowVertex::ForLoop(_)))
        .count();
    assert_eq!(loops, 1);
}

#[test]
fn variable_sections_reading_their_own_target_pick_the_loop_order() {
    // v(2:n) = v(1:n-1) * sin(x): read one element behind the write, so
    // the loop runs backwards; v(1:n-1) = v(2:n) * x + v(1:n-1) forwards.
    let behind = with_references(
        "(mul w (sin x))",
        &[("w", section(Some("1"), Some("(sub n 1)")))],
        Some(section(Some("2"), Some("n"))),
    );
    checks_out_with(&behind, 2);
    let ahead = with_references(
        "(add (mul w x) u)",
        &[
            ("w", section(Some("2"), Some("n"))),
            ("u", section(Some("1"), Some("(sub n 1)"))),
        ],
        Some(section(Some("1"), Some("(sub n 1)"))),
    );
    checks_out_with(&ahead, 2);
    // Which order was taken: the loop's first value.
    let first = |cg: &CallGraph| {
        let out = tangent(cg).unwrap();
        graph_vertices(&out)
            .iter()
            .find_map(|v| match v {
                ControlFlowVertex::ForLoop(f) => f.initialization.clone(),
                _ => None,
            })
            .unwrap()
            .rhs
    };
    assert!(matches!(
        &first(&behind).vertices[..],
        [ExpressionVertex::VariableReference(_)]
    ));
    assert!(
        matches!(&first(&ahead).vertices[..], [ExpressionVertex::Constant(c)] if c.value == "1")
    );
}

#[test]
fn an_overlap_no_order_resolves_goes_through_a_temporary() {
    // v(2:3) = v(1:2) + v(3:4): element 1 writes v(2), which element 2
    // reads; element 2 writes v(3), which element 1 reads. Constant
    // extents: a copy oad_sa_1(1:2) first.
    let cg = with_references(
        "(add w u)",
        &[
            ("w", section(Some("1"), Some("2"))),
            ("u", section(Some("3"), Some("4"))),
        ],
        Some(section(Some("2"), Some("3"))),
    );
    checks_out(&cg);
    let out = tangent(&cg).unwrap();
    let temporary = out.scope_hierarchy.scopes[1].symbol_tables[0]
        .symbols
        .iter()
        .find(|s| s.symbol_id == "oad_sa_1")
        .expect("the copy is declared");
    assert!(temporary.active && temporary.dimension_bounds.len() == 1);
    assert_eq!(temporary.dimension_bounds[0].upper, 2);
    // v(1:3) = v(1:3) * v(i): which element v(i) is, is not known.
    let read_at_i = {
        let mut r = var("v");
        r.vertices
            .push(VariableReferenceVertex::ArrayElementReference(
                ArrayElementReference {
                    vertex_id: "2".into(),
                    annotation: Default::default(),
                    index_triplets: vec![IndexTriplet {
                        index: Some(expr("i")),
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
        r
    };
    let cg = with_references(
        "(mul w u)",
        &[("w", section(Some("1"), Some("3"))), ("u", read_at_i)],
        Some(section(Some("1"), Some("3"))),
    );
    checks_out_with(&cg, 3);
}

#[test]
fn an_overlap_no_loop_order_resolves_is_refused() {
    // The same with a variable bound: v(2:n-1) = v(1:n-2) + v(3:n).
    let cg = with_references(
        "(add w u)",
        &[
            ("w", section(Some("1"), Some("(sub n 2)"))),
            ("u", section(Some("3"), Some("n"))),
        ],
        Some(section(Some("2"), Some("(sub n 1)"))),
    );
    refused(&cg, "neither loop order");
    // v(n:4) = v(1:5-n): the distance of the two depends on n.
    let cg = with_references(
        "(mul w x)",
        &[("w", section(Some("1"), Some("(sub 5 n)")))],
        Some(section(Some("n"), Some("4"))),
    );
    refused(&cg, "temporary of non-constant size");
}

#[test]
fn a_whole_array_without_bounds_loops_over_its_inquired_bounds() {
    // v = v * x with v declaring no bounds (a dummy of extent n): the
    // loop runs from lbound(v,1) to ubound(v,1).
    let mut cg = with_references("(mul w x)", &[("w", var("v"))], Some(var("v")));
    cg.scope_hierarchy.scopes[1].symbol_tables[0]
        .symbols
        .iter_mut()
        .find(|s| s.symbol_id == "v")
        .unwrap()
        .dimension_bounds
        .clear();
    checks_out(&cg);
}

fn graph_vertices(cg: &CallGraph) -> Vec<ControlFlowVertex> {
    cg.vertices
        .iter()
        .find_map(|v| match v {
            CallGraphVertex::ControlFlowGraph(c) => Some(c.vertices.clone()),
            _ => None,
        })
        .unwrap()
}

#[test]
fn passive_array_assignments_are_left_alone() {
    // v = p (v active, p passive): the left-hand side is active and gets
    // element-wise zero derivatives; a passive target stays as it is.
    let cg = with_references("(mul w 2)", &[("w", var("v"))], Some(var("v")));
    let mut passive = cg.clone();
    for s in &mut passive.scope_hierarchy.scopes[1].symbol_tables[0].symbols {
        if s.symbol_id == "v" {
            s.active = false;
        }
    }
    let out = tangent(&passive).unwrap();
    let elements = block_elements(&out);
    assert_eq!(elements.len(), 1, "{elements:?}");
    assert!(matches!(&elements[0], BasicBlockElement::Assignment(a) if a.statement_id == "s1"));
}

#[test]
fn a_variable_section_inside_a_time_loop() {
    // do k = 1, 3: v(2:n) = v(1:n-1)*x + sin(y); y = y*x: the element
    // loop nested in the user's loop (adjoint: both reversed).
    let mut cg = structured_program(&[S::Do(
        "k",
        "1",
        "3",
        vec![
            S::Set("z", "(add (mul w x) (sin y))"),
            S::Set("y", "(mul y x)"),
        ],
    )]);
    let CallGraphVertex::ControlFlowGraph(c) = &mut cg.vertices[0] else {
        unreachable!()
    };
    for v in &mut c.vertices {
        let ControlFlowVertex::BasicBlock(b) = v else {
            continue;
        };
        for e in &mut b.elements {
            let BasicBlockElement::Assignment(a) = e else {
                continue;
            };
            if !matches!(&a.lhs.reference.vertices[0],
                VariableReferenceVertex::SymbolReference(s) if s.symbol_id == "z")
            {
                continue;
            }
            a.lhs.reference = section(Some("2"), Some("n"));
            for x in &mut a.rhs.vertices {
                if let ExpressionVertex::VariableReference(r) = x {
                    if matches!(&r.vertices[0],
                        VariableReferenceVertex::SymbolReference(s) if s.symbol_id == "w")
                    {
                        let id = r.vertex_id.clone();
                        *r = section(Some("1"), Some("(sub n 1)"));
                        r.vertex_id = id;
                    }
                }
            }
        }
    }
    checks_out_with(&cg, 2);
}

#[test]
fn many_elements_make_a_loop_unless_only_a_copy_keeps_the_values() {
    // v(1:20): more elements than are unrolled.
    let long = |mut cg: CallGraph| {
        for s in &mut cg.scope_hierarchy.scopes[1].symbol_tables[0].symbols {
            if s.symbol_id == "v" {
                s.dimension_bounds[0].upper = 20;
            }
        }
        cg
    };
    let loops = |cg: &CallGraph| {
        graph_vertices(&tangent(cg).unwrap())
            .iter()
            .filter(|v| matches!(v, ControlFlowVertex::ForLoop(_)))
            .count()
    };
    // v = v*x + y
    let whole = long(with_references(
        "(add (mul w x) y)",
        &[("w", var("v"))],
        Some(var("v")),
    ));
    checks_out(&whole);
    assert_eq!(loops(&whole), 1);
    // v(2:20) = v(1:19)*x: backwards.
    let shifted = long(with_references(
        "(mul w x)",
        &[("w", section(Some("1"), Some("19")))],
        Some(section(Some("2"), Some("20"))),
    ));
    checks_out(&shifted);
    assert_eq!(loops(&shifted), 1);
    // v(2:19) = v(1:18) + v(3:20): no loop order; unrolled through a copy.
    let both = long(with_references(
        "(add w u)",
        &[
            ("w", section(Some("1"), Some("18"))),
            ("u", section(Some("3"), Some("20"))),
        ],
        Some(section(Some("2"), Some("19"))),
    ));
    checks_out(&both);
    assert_eq!(loops(&both), 0);
}

#[test]
fn a_vector_subscript_is_refused() {
    // v(1:2) = v(v(1:2)) * x: the subscript is itself array-valued.
    let mut inner = var("v");
    inner
        .vertices
        .push(VariableReferenceVertex::ArrayElementReference(
            ArrayElementReference {
                vertex_id: "2".into(),
                annotation: Default::default(),
                index_triplets: vec![IndexTriplet {
                    index: Some({
                        let mut e = Expression::default();
                        let mut s = section(Some("1"), Some("2"));
                        s.vertex_id = "1".into();
                        e.vertices.push(ExpressionVertex::VariableReference(s));
                        e
                    }),
                    bound: None,
                    stride: None,
                }],
            },
        ));
    inner.edges.push(Edge {
        edge_id: "1".into(),
        source: "1".into(),
        target: "2".into(),
        annotation: Default::default(),
    });
    let cg = with_references(
        "(mul w x)",
        &[("w", inner)],
        Some(section(Some("1"), Some("2"))),
    );
    refused(&cg, "vector subscript");
}
