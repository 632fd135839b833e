//! What the front end makes of black-box calls (routines without source
//! declared with `--black-box`): the marker and its annotation in the
//! XAIF, the tagged call in the canonical source, and the activity the
//! analyses give the variables passed (docs/frontend.md, "Black boxes").

use std::path::Path;

use fortran2xaif::black_box::Library;
use fortran2xaif::pipeline;
use xaif_schema::model::{BasicBlockElement, CallGraphVertex, ControlFlowVertex};

const LIBRARY: &str = "\
subroutine solve(n, a, b, info)
  tangent solve_d
  adjoint solve_b
  integer, intent(in) :: n
  real(8), intent(in), active :: a(n, n)
  real(8), intent(inout), active :: b(n)
  integer, intent(out) :: info
end subroutine

subroutine report(n, v, total)
  passive
  integer, intent(in) :: n
  real(8), intent(in) :: v(n)
  real(8), intent(out) :: total
end subroutine
";

/// `a` never depends on x (a constant matrix), `total` comes from the
/// passive `report` only.
const MODEL: &str = "\
subroutine head(x, y)
  real(8), intent(in) :: x(2)
  real(8), intent(out) :: y(2)
  real(8) :: a(2, 2), b(2), total, scale
  integer :: info
  !$openad INDEPENDENT(x)
  a = 2.0d0
  a(1, 1) = 5.0d0
  b = x
  call solve(2, a, b, info)
  call report(2, b, total)
  scale = total
  y = b
  !$openad DEPENDENT(y)
end subroutine head
";

fn run() -> pipeline::Output {
    let dir = tempfile::tempdir().unwrap();
    let source = dir.path().join("m.f90");
    std::fs::write(&source, MODEL).unwrap();
    let mut library = Library::default();
    library
        .add_declarations(Path::new("lib.bb"), LIBRARY)
        .unwrap();
    let options = pipeline::Options {
        black_boxes: library,
        ..pipeline::Options::default()
    };
    pipeline::run_with(&[source], &options).unwrap()
}

fn markers(out: &pipeline::Output) -> Vec<String> {
    let mut found = Vec::new();
    for v in &out.xaif.vertices {
        let CallGraphVertex::ControlFlowGraph(g) = v else {
            continue;
        };
        for cv in &g.vertices {
            if let ControlFlowVertex::BasicBlock(b) = cv {
                for e in &b.elements {
                    if let BasicBlockElement::Marker(m) = e {
                        found.push(m.annotation.to_string());
                    }
                }
            }
        }
    }
    found
}

fn symbol_active(out: &pipeline::Output, name: &str) -> bool {
    out.xaif
        .scope_hierarchy
        .scopes
        .iter()
        .find(|s| s.annotation == "unit:head")
        .and_then(|s| {
            s.symbol_tables[0]
                .symbols
                .iter()
                .find(|x| x.symbol_id == name)
        })
        .unwrap_or_else(|| panic!("no symbol {name}"))
        .active
}

#[test]
fn black_box_calls_are_markers_describing_the_call() {
    let out = run();
    let markers = markers(&out);
    let solve = markers
        .iter()
        .find(|m| m.contains(";blackbox:solve;"))
        .expect("marker of the solve call");
    assert!(
        solve.ends_with(";blackbox:solve;tangent:solve_d;adjoint:solve_b;args:in,in*,inout*,out"),
        "{solve}"
    );
    let report = markers
        .iter()
        .find(|m| m.contains(";blackbox:report;"))
        .expect("marker of the report call");
    assert!(
        report.ends_with(";blackbox:report;passive;args:in,in,out"),
        "{report}"
    );
    // The canonical source keeps the call as a tagged opaque statement.
    let id = solve
        .strip_prefix("canon:")
        .and_then(|r| r.split(';').next())
        .unwrap();
    let tagged = format!("!$oad stmt {id}\n");
    let after = out.canon.split(&tagged).nth(1).expect("tagged call");
    assert_eq!(
        after.lines().next().unwrap().trim(),
        "call solve(2, a, b, info)"
    );
    assert!(
        out.warnings
            .iter()
            .any(|w| w.location.line == 11
                && w.message.contains("call of passive black box 'report'"))
    );
}

#[test]
fn actuals_of_a_differentiable_black_box_are_active_and_passive_outputs_are_not() {
    let out = run();
    // `a` is constant, yet its derivative goes to solve_d/solve_b.
    assert!(symbol_active(&out, "a"));
    // b depends on x through the solve and feeds y.
    assert!(symbol_active(&out, "b"));
    // What the passive black box writes has no derivative.
    assert!(!symbol_active(&out, "total"));
    assert!(!symbol_active(&out, "scale"));
}
