//! The source locations the front end writes for the later stages: the
//! statements of the XAIF and the tagged lines of the canonical source
//! point at the original file, line and column (fixed form with
//! continuation lines, statements in an included file).

use std::path::{Path, PathBuf};

use fortran2xaif::pipeline;
use xaif_schema::model::{BasicBlockElement, CallGraphVertex, ControlFlowVertex, ExpressionVertex};

fn case(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/bad-inputs/later-stages")
        .join(name)
}

/// 1-based line and column of the first occurrence of `marker` in `file`.
fn position_of(file: &Path, marker: &str) -> (u64, u64) {
    let text = std::fs::read_to_string(file).unwrap();
    let at = text.find(marker).expect("marker in the source");
    let line_start = text[..at].rfind('\n').map_or(0, |p| p + 1);
    (
        text[..at].matches('\n').count() as u64 + 1,
        (at - line_start) as u64 + 1,
    )
}

/// The statement id of the assignment that calls `tanh`.
fn tanh_statement(out: &pipeline::Output) -> String {
    for v in &out.xaif.vertices {
        let CallGraphVertex::ControlFlowGraph(cfg) = v else {
            continue;
        };
        for cv in &cfg.vertices {
            let ControlFlowVertex::BasicBlock(b) = cv else {
                continue;
            };
            for e in &b.elements {
                if let BasicBlockElement::Assignment(a) = e {
                    let tanh = a.rhs.vertices.iter().any(
                        |x| matches!(x, ExpressionVertex::Intrinsic(i) if i.name == "tanh_scal"),
                    );
                    if tanh {
                        return a.statement_id.to_string();
                    }
                }
            }
        }
    }
    panic!("no tanh assignment in the XAIF");
}

/// Line (1-based) of the canonical source after the tag line `tag`.
fn canon_line_after(canon: &str, tag: &str) -> u64 {
    let k = canon
        .lines()
        .position(|l| l.trim() == tag)
        .unwrap_or_else(|| panic!("no `{tag}` in the canonical source"));
    k as u64 + 2
}

#[test]
fn fixed_form_statement_and_declaration_positions() {
    let source = case("intrinsic_fixed.f");
    let out = pipeline::run(std::slice::from_ref(&source), None).unwrap();
    let map = &out.locations;
    let at = map.statement(&tanh_statement(&out)).expect("statement");
    assert_eq!(PathBuf::from(&at.file), source);
    assert_eq!((at.line, at.column), position_of(&source, "y(2) = x(2) +"));
    // The declaration of y, through the canonical source's `!$oad decl y`.
    let decl = map
        .canon_line(canon_line_after(&out.canon, "!$oad decl y"))
        .expect("declaration");
    assert_eq!((decl.line, decl.column), position_of(&source, "y(2)\n"));
    let unit = map
        .canon_line(canon_line_after(&out.canon, "!$oad unit head"))
        .expect("unit header");
    assert_eq!(unit.line, position_of(&source, "subroutine head").0);
    assert_eq!(map.unit("head").unwrap(), unit);
}

#[test]
fn statements_in_an_included_file_point_into_it() {
    let source = case("intrinsic_include.f90");
    let out = pipeline::run(std::slice::from_ref(&source), None).unwrap();
    let at = out
        .locations
        .statement(&tanh_statement(&out))
        .expect("statement");
    let included = case("intrinsic_body.inc");
    assert_eq!(
        Path::new(&at.file).file_name(),
        included.file_name(),
        "{at}"
    );
    assert_eq!((at.line, at.column), position_of(&included, "y(2) = tanh"));
}
