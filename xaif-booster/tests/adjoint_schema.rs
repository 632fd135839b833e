//! The adjoint output validates against the reference XAIF output schema
//! (skipped when `../shared` is absent; fails when `xmllint` is).

use std::path::Path;
use std::process::Command;

use xaif_booster::adjoint::transform_adjoint;
use xaif_booster::catalogue::Catalogue;
use xaif_schema::model::*;
use xaif_testkit::*;

/// The reference schema in `../shared` next to the project, when present.
fn reference_schema() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/xaif-reference/xaif_output.xsd")
}

fn xmllint_available() -> bool {
    Command::new("xmllint")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

fn validates(cg: &CallGraph) {
    let schema = reference_schema();
    if !schema.exists() {
        eprintln!("skipped: {} not found", schema.display());
        return;
    }
    assert!(
        xmllint_available(),
        "this test needs xmllint (libxml2-utils) on the PATH"
    );
    let mut out = cg.clone();
    transform_adjoint(&mut out, &Catalogue::builtin().unwrap()).expect("adjoint");
    assert!(out
        .vertices
        .iter()
        .any(|v| matches!(v, CallGraphVertex::ReplacementList(_))));
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("adjoint.xaif");
    xaif_schema::write::write_call_graph_file(&out, &file).unwrap();
    let result = Command::new("xmllint")
        .args(["--noout", "--schema"])
        .arg(&schema)
        .arg(&file)
        .output()
        .unwrap();
    assert!(
        result.status.success(),
        "schema validation failed:\n{}",
        String::from_utf8_lossy(&result.stderr)
    );
}

#[test]
fn structured_adjoint_validates() {
    validates(&structured_program(&[
        S::Set("x", "(mul x x)"),
        S::If(
            "(gt x 0.0d0)",
            vec![S::Do(
                "i",
                "1",
                "n",
                vec![
                    S::If("(gt v[i] 0.8d0)", vec![S::Set("y", "(mul y v[i])")], vec![]),
                    S::Set("v[(iadd i 1)]", "(mul v[i] x)"),
                ],
            )],
            vec![S::Set("y", "(neg y)")],
        ),
        S::While("(lt k n)", vec![S::Set("k", "(iadd k 1)")]),
    ]));
}

#[test]
fn unstructured_adjoint_validates() {
    let mut b = CfgBuilder::new();
    let entry = b.plain(ControlFlowVertex::Entry);
    let label = b.plain(ControlFlowVertex::Label);
    let body = b.block(&[("y", "(mul y x)"), ("k", "(iadd k 1)")]);
    let id = b.id();
    let test = b.vertex(ControlFlowVertex::If(ConditionVertex {
        vertex_id: id.into(),
        annotation: Default::default(),
        line_number: 0,
        condition: Some(expr("(ge k n)")),
    }));
    let back = b.plain(ControlFlowVertex::Goto);
    let exit = b.plain(ControlFlowVertex::Exit);
    b.edge(&entry, &label, None);
    b.edge(&label, &body, None);
    b.edge(&body, &test, None);
    b.edge(&test, &exit, Some(1));
    b.edge(&test, &back, Some(0));
    b.edge(&back, &label, None);
    validates(&program_with(b.vertices, b.edges, false));
}
