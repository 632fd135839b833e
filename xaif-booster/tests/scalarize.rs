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
                annotation: String::new(),
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
        annotation: String::new(),
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
    let mut cg = cg.clone();
    if let CallGraphVertex::ControlFlowGraph(c) = &mut cg.vertices[0] {
        c.argument_list = Some(
            ["x", "y", "v"]
                .iter()
                .enumerate()
                .map(|(k, n)| ArgumentSymbolReference {
                    position: k as u64 + 1,
                    symbol_id: n.to_string(),
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
            matches!(verdicts[0].1, Verdict::Passed { inputs, .. } if inputs >= 4),
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
fn a_section_bound_not_known_is_refused() {
    let cg = with_references(
        "(mul w x)",
        &[("w", section(Some("n"), Some("4")))],
        Some(section(Some("n"), Some("4"))),
    );
    refused(&cg, "not known at transformation time");
}

#[test]
fn an_overlap_no_order_resolves_is_refused() {
    // v(2:3) = v(1:2) + v(3:4): element 1 writes v(2), which element 2
    // reads; element 2 writes v(3), which element 1 reads.
    let mut cg = with_references(
        "(add w u)",
        &[
            ("w", section(Some("1"), Some("2"))),
            ("u", section(Some("3"), Some("4"))),
        ],
        Some(section(Some("2"), Some("3"))),
    );
    refused(&cg, "neither element order");
    // A whole array without bounds cannot be scalarised.
    cg.scope_hierarchy.scopes[1].symbol_tables[0]
        .symbols
        .iter_mut()
        .find(|s| s.symbol_id == "v")
        .unwrap()
        .dimension_bounds
        .clear();
    let cg2 = with_references("(mul w x)", &[("w", var("v"))], Some(var("v")));
    let mut cg2 = cg2;
    cg2.scope_hierarchy = cg.scope_hierarchy.clone();
    refused(&cg2, "whose shape is not known");
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
