//! `xaif-booster -m adjoint` on the command line: output and `--stats`,
//! and a rejected statement reported at its position with exit status 1
//! and no output file.

use std::process::Command;

use xaif_schema::model::*;
use xaif_testkit::*;

fn booster() -> Command {
    Command::new(env!("CARGO_BIN_EXE_xaif-booster"))
}

#[test]
fn writes_replacement_lists_and_tape_statistics() {
    let cg = structured_program(&[
        S::Do("i", "1", "n", vec![S::Set("v[i]", "(mul v[i] (sin x))")]),
        S::Set("y", "(mul x y)"),
    ]);
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("p.xaif");
    let output = dir.path().join("p.xb.xaif");
    xaif_schema::write::write_call_graph_file(&cg, &input).unwrap();
    let out = booster()
        .args(["-m", "adjoint", "--stats", "-o"])
        .arg(&output)
        .arg(&input)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stats = String::from_utf8_lossy(&out.stdout);
    // The loop body pushes two reals (sin x and v(i)*cos x) and no
    // integer (the reverse sweep recomputes the loop index i); the last
    // block pushes x and y; no run is worth recomputing (last column).
    assert!(
        stats
            .lines()
            .any(|l| l.starts_with("head ") && l.ends_with(" 2 0 0")),
        "{stats}"
    );
    assert!(stats.contains("total - 4 0 0"), "{stats}");
    let written = std::fs::read_to_string(&output).unwrap();
    let back = xaif_schema::read::read_call_graph(&written, "p.xb.xaif").unwrap();
    let CallGraphVertex::ReplacementList(list) = &back.vertices[0] else {
        panic!("expected a replacement list");
    };
    let placeholders: Vec<&str> = list
        .replacements
        .iter()
        .map(|r| r.placeholder.as_str())
        .collect();
    assert_eq!(placeholders, ["1", "2", "3"]);
    assert_eq!(list.annotation, "unit:head");
    assert_eq!(list.template_name, "");
}

#[test]
fn rejected_statement_has_a_position_and_exit_status_1() {
    let mut cg = structured_program(&[S::Set("y", "(mul x x)"), S::Set("z", "(mul y y)")]);
    if let CallGraphVertex::ControlFlowGraph(c) = &mut cg.vertices[0] {
        if let ControlFlowVertex::BasicBlock(b) = &mut c.vertices[1] {
            if let BasicBlockElement::Assignment(a) = &mut b.elements[1] {
                a.rhs = expr("(mul v y)");
            }
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("bad.xaif");
    let output = dir.path().join("bad.xb.xaif");
    xaif_schema::write::write_call_graph_file(&cg, &input).unwrap();
    let text = std::fs::read_to_string(&input).unwrap();
    let line = text
        .lines()
        .position(|l| l.contains("statement_id=\"s2\""))
        .unwrap()
        + 1;
    let out = booster()
        .args(["-m", "adjoint", "-o"])
        .arg(&output)
        .arg(&input)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!("bad.xaif:{line}:")) && stderr.contains("error: adjoint"),
        "{stderr}"
    );
    assert!(stderr.contains("statement 's2'"), "{stderr}");
    assert!(!output.exists());
}
