//! The `xaif` command on good input: validate, fmt (idempotent), dot.

use assert_cmd::Command;
use std::path::{Path, PathBuf};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

const FIXTURES: [&str; 4] = [
    "input_all_elements.xaif",
    "output_all_elements.xaif",
    "inlinable_small.xaif",
    "noninlinable_small.xaif",
];

fn xaif() -> Command {
    Command::cargo_bin("xaif").unwrap()
}

#[test]
fn validate_accepts_the_fixtures_with_the_schema_guessed() {
    let out = xaif()
        .arg("validate")
        .args(FIXTURES.map(fixture))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.stderr.is_empty());
}

#[test]
fn validate_with_the_input_schema_refuses_booster_output() {
    let path = fixture("output_all_elements.xaif");
    let out = xaif()
        .args(["validate", "--schema", "input"])
        .arg(&path)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    let first = stderr.lines().next().unwrap();
    // libxml2 reports the line of the first DerivativePropagator.
    let text = std::fs::read_to_string(&path).unwrap();
    let line = 1 + text[..text.find("<xaif:DerivativePropagator>").unwrap()]
        .matches('\n')
        .count();
    assert!(
        first.starts_with(&format!("{}:{line}: error: ", path.display())),
        "{first}"
    );
    assert!(first.contains("DerivativePropagator"), "{first}");
}

#[test]
fn fmt_is_idempotent_and_writes_through_a_rename() {
    let dir = tempfile::tempdir().unwrap();
    for name in FIXTURES {
        let once = dir.path().join(format!("once-{name}"));
        let twice = dir.path().join(format!("twice-{name}"));
        xaif()
            .arg("fmt")
            .arg(fixture(name))
            .arg("-o")
            .arg(&once)
            .assert()
            .success();
        xaif()
            .arg("fmt")
            .arg(&once)
            .arg("-o")
            .arg(&twice)
            .assert()
            .success();
        let a = std::fs::read(&once).unwrap();
        let b = std::fs::read(&twice).unwrap();
        assert!(!a.is_empty());
        assert_eq!(a, b, "{name}: fmt is not idempotent");
        // Same text on standard output.
        let out = xaif().arg("fmt").arg(&once).output().unwrap();
        assert_eq!(out.stdout, a);
    }
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        2 * FIXTURES.len()
    );
}

#[test]
fn dot_draws_the_call_graph_and_each_control_flow_graph() {
    let out = xaif()
        .arg("dot")
        .arg(fixture("input_all_elements.xaif"))
        .output()
        .unwrap();
    assert!(out.status.success());
    let dot = String::from_utf8(out.stdout).unwrap();
    assert!(dot.starts_with("digraph xaif {"));
    assert!(dot.contains("\"cg:10\" -> \"cg:20\";"), "{dot}");
    assert!(dot.contains("subgraph \"cluster_cfg0:\""));
    assert!(dot.contains("subgraph \"cluster_cfg1:\""));
    // If with the true edge labelled 1.
    assert!(
        dot.contains("\"cfg0:3\" -> \"cfg0:4\" [label=\"1\"];"),
        "{dot}"
    );
    assert!(dot.contains("call helper(x, 1.5d0)"), "{dot}");
    assert!(dot.trim_end().ends_with('}'));
}

#[test]
fn dot_can_draw_one_subroutine() {
    let out = xaif()
        .args(["dot", "--subroutine", "helper"])
        .arg(fixture("input_all_elements.xaif"))
        .output()
        .unwrap();
    assert!(out.status.success());
    let dot = String::from_utf8(out.stdout).unwrap();
    assert!(dot.starts_with("digraph \"helper\" {"), "{dot}");
    assert!(
        dot.contains("\"1\" [label=\"Entry 1\", shape=ellipse];"),
        "{dot}"
    );
    assert!(!dot.contains("BasicBlock"));
    let out = xaif()
        .args(["dot", "--subroutine", "nosuch"])
        .arg(fixture("input_all_elements.xaif"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr)
        .contains("no control flow graph for subroutine 'nosuch'"));
}

#[test]
fn the_library_validate_file_checks_one_file() {
    use xaif_schema::validate::{validate_file, SchemaKind};
    assert!(validate_file(&fixture("input_all_elements.xaif"), SchemaKind::Input).is_ok());
    let errors = validate_file(&fixture("inlinable_small.xaif"), SchemaKind::Input).unwrap_err();
    assert!(
        errors[0].message.contains("InlinableIntrinsicDefinitions"),
        "{errors:?}"
    );
}

#[test]
fn help_describes_the_subcommands() {
    let out = xaif().arg("--help").output().unwrap();
    let help = String::from_utf8(out.stdout).unwrap();
    for word in ["validate", "fmt", "dot"] {
        assert!(help.contains(word), "{help}");
    }
    let out = xaif().args(["validate", "--help"]).output().unwrap();
    let help = String::from_utf8(out.stdout).unwrap();
    assert!(help.contains("--schema"), "{help}");
}
