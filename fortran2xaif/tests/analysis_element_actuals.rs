//! Calls of routines that always assign their dummy, given an array
//! element or a section of an array: the call overwrites that element or
//! section, never the whole array. Kills must under-approximate, so every
//! analysis that lets a call kill (activity's varied and useful passes,
//! du/ud chains, must-modify summaries, TBR) is checked here on small
//! hand-built programs, and the front end on the Fortran program that
//! showed the bug (`z(2) = x(2)` written `active="false"`, a zero
//! derivative in every mode).

use fortran2xaif::analysis::analyze;
use fortran2xaif::analysis::builder::{ProgramBuilder, Ty};
use fortran2xaif::analysis::du_ud::ChainPoint;
use fortran2xaif::analysis::ir::{
    ActualPart, ElementId, LocationId, Program, Seeds, StmtId, UnitId, Use,
};
use fortran2xaif::analysis::Results;
use fortran2xaif::pipeline;
use xaif_schema::model::{
    ActiveUse, BasicBlockElement, CallGraphVertex, ControlFlowVertex, VariableReference,
    VariableReferenceVertex,
};

const E1: ElementId = ElementId(1);
const E2: ElementId = ElementId(2);

fn d(l: LocationId) -> Use {
    Use::diff(l)
}

fn d_at(l: LocationId, e: ElementId) -> Use {
    Use {
        element: Some(e),
        ..Use::diff(l)
    }
}

/// The statements of [`element_program`] the tests look at.
struct Element {
    prog: Program,
    head: UnitId,
    x: LocationId,
    y: LocationId,
    z: LocationId,
    z1: StmtId,
    z2: StmtId,
    call: StmtId,
    y1: StmtId,
}

/// ```fortran
/// subroutine set(s)        ! s scalar, or s(n) when `array_dummy`
///   s = g                  ! (s = g: the whole dummy)
/// subroutine head(x, y)
///   g = x(1)               ! or g = 1, passive, unless `varied_g`
///   z(1) = x(1)
///   z(2) = x(2)
///   call set(z(1))         ! passing `part` of z
///   y(1) = z(1) + z(2)
/// ```
fn element_program(part: ActualPart, array_dummy: bool, varied_g: bool) -> Element {
    let mut p = ProgramBuilder::new();
    let g = p.global("g", Ty::Real);
    let head = p.unit("head");
    let set = p.unit("set");
    let s_ty = if array_dummy { Ty::RealArray } else { Ty::Real };
    let s = p.dummy(set, "s", s_ty);
    let sb = p.block(set);
    p.assign(set, sb, s, &[d(g)]);
    let x = p.dummy(head, "x", Ty::RealArray);
    let y = p.dummy(head, "y", Ty::RealArray);
    let z = p.local(head, "z", Ty::RealArray);
    let b = p.block(head);
    if varied_g {
        p.assign(head, b, g, &[d_at(x, E1)]);
    } else {
        p.assign(head, b, g, &[]);
    }
    let z1 = p.assign_element(head, b, z, E1, &[d_at(x, E1)]);
    let z2 = p.assign_element(head, b, z, E2, &[d_at(x, E2)]);
    let call = p.call_parts(head, b, set, &[Some(z)], &[part]);
    let y1 = p.assign_element(head, b, y, E1, &[d_at(z, E1), d_at(z, E2)]);
    Element {
        prog: p.finish(),
        head,
        x,
        y,
        z,
        z1,
        z2,
        call,
        y1,
    }
}

fn run(e: &Element) -> Results {
    let r = analyze(
        &e.prog,
        &Seeds {
            top: e.head,
            independents: vec![e.x],
            dependents: vec![e.y],
        },
    );
    assert!(r.errors.is_empty(), "{:?}", r.errors);
    r
}

/// Passing `z(1)` to a dummy the callee always assigns: z(2) keeps its
/// value, so `z(2) = x(2)` stays useful (backward pass) and its derivative
/// is computed.
#[test]
fn element_actual_does_not_make_the_rest_of_the_array_useless() {
    let e = element_program(ActualPart::Element(Some(E1)), false, true);
    let r = run(&e);
    let a = &r.activity;
    let z2 = &a.stmts[&e.z2];
    assert!(z2.active && z2.differentiated, "z(2) = x(2): {z2:?}");
    assert_eq!(z2.active_defs, vec![e.z]);
    assert_eq!(z2.active_uses, vec![e.x]);
    assert!(a.is_active_location(e.z));
    assert!(a.is_active_use(e.y1, e.z), "z read by y(1) = z(1) + z(2)");
    assert!(a.is_active_stmt(e.call));
}

/// The same call with a passive `g` overwrites z(1) with a passive value:
/// z(2) stays varied (forward pass), so y(1) = z(1) + z(2) reads z with
/// its derivative.
#[test]
fn element_actual_does_not_make_the_rest_of_the_array_unvaried() {
    let e = element_program(ActualPart::Element(Some(E1)), false, false);
    let r = run(&e);
    let a = &r.activity;
    let y1 = &a.stmts[&e.y1];
    assert!(y1.active && y1.differentiated, "y(1) = z(1) + z(2): {y1:?}");
    assert_eq!(y1.active_uses, vec![e.z]);
    assert!(a.stmts[&e.z2].active);
}

/// A section, an element whose subscripts are not constant, and an element
/// passed to an array dummy (sequence association: the start of a section
/// of unknown length) kill nothing either; a whole actual does, which is
/// what makes the other cases meaningful.
#[test]
fn only_whole_actuals_kill_the_array() {
    for (part, array_dummy, kills) in [
        (ActualPart::Section, true, false),
        (ActualPart::Element(None), false, false),
        (ActualPart::Element(Some(E1)), true, false),
        (ActualPart::Whole, true, true),
    ] {
        let case = format!("{part:?}, array dummy {array_dummy}");
        let e = element_program(part, array_dummy, true);
        let r = run(&e);
        assert_eq!(!r.activity.stmts[&e.z2].active, kills, "{case}");
        let ud = r.du_ud.ud(e.y1, e.z).expect("ud chain of z in y(1)");
        let want: Vec<ChainPoint> = if kills {
            vec![ChainPoint::Stmt(e.call)]
        } else {
            [e.z1, e.z2, e.call].map(ChainPoint::Stmt).to_vec()
        };
        assert_eq!(ud, want.as_slice(), "{case}");
    }
}

/// du/ud: a call that certainly assigns `z(1)` through a scalar dummy
/// kills the earlier definition of that element only: the read of z in
/// `y(1) = z(1) + z(2)` sees the call and `z(2) = x(2)`, not `z(1) = x(1)`.
#[test]
fn element_actual_kills_that_element_in_ud_chains() {
    let e = element_program(ActualPart::Element(Some(E1)), false, true);
    let r = run(&e);
    let ud = r.du_ud.ud(e.y1, e.z).expect("ud chain of z in y(1)");
    assert_eq!(ud, [e.z2, e.call].map(ChainPoint::Stmt).as_slice());
    let du = r.du_ud.du(e.z1, e.z).expect("du chain of z(1) = x(1)");
    assert!(du.is_empty(), "z(1) = x(1) is dead: {du:?}");
}

/// must-modify summaries: a routine passing an element of its array dummy
/// to `set` does not overwrite the dummy; one passing its scalar dummy
/// does.
#[test]
fn must_mod_of_callers_passing_elements() {
    let mut p = ProgramBuilder::new();
    let g = p.global("g", Ty::Real);
    let set = p.unit("set");
    let s = p.dummy(set, "s", Ty::Real);
    let sb = p.block(set);
    p.assign(set, sb, s, &[d(g)]);
    let by_element = p.unit("by_element");
    let w = p.dummy(by_element, "w", Ty::RealArray);
    let b = p.block(by_element);
    p.call_parts(
        by_element,
        b,
        set,
        &[Some(w)],
        &[ActualPart::Element(Some(E1))],
    );
    let by_scalar = p.unit("by_scalar");
    let v = p.dummy(by_scalar, "v", Ty::Real);
    let b = p.block(by_scalar);
    p.call(by_scalar, b, set, &[Some(v)]);
    let prog = p.finish();
    let r = analyze(
        &prog,
        &Seeds {
            top: by_element,
            independents: vec![],
            dependents: vec![],
        },
    );
    assert!(r.errors.is_empty());
    let must =
        |u: UnitId, l: LocationId| r.side_effects.units[u.index()].must_mod.contains(l.index());
    assert!(must(set, s));
    assert!(!must(by_element, w), "w(1) only is overwritten");
    assert!(must(by_scalar, v));
    // Both may modify their dummy.
    assert!(r.side_effects.units[by_element.index()]
        .mod_
        .contains(w.index()));
}

/// TBR: `y(1) = z(1) * z(2)` needs z in the reverse sweep; `call
/// set(z(1))` overwrites z(1) only, so z stays to be recorded and the later
/// `z(2) = x(2) * x(1)` records it first.
#[test]
fn element_actual_does_not_end_recording_of_the_array() {
    let mut p = ProgramBuilder::new();
    let g = p.global("g", Ty::Real);
    let head = p.unit("head");
    let set = p.unit("set");
    let s = p.dummy(set, "s", Ty::Real);
    let sb = p.block(set);
    p.assign(set, sb, s, &[d(g)]);
    let x = p.dummy(head, "x", Ty::RealArray);
    let y = p.dummy(head, "y", Ty::RealArray);
    let z = p.local(head, "z", Ty::RealArray);
    let b = p.block(head);
    p.assign(head, b, g, &[d_at(x, E1)]);
    p.assign_element(head, b, z, E1, &[d_at(x, E1)]);
    p.assign_element(head, b, z, E2, &[d_at(x, E2)]);
    p.assign_element(head, b, y, E1, &[d_at(z, E1), d_at(z, E2)]);
    let call = p.call_parts(head, b, set, &[Some(z)], &[ActualPart::Element(Some(E1))]);
    let later = p.assign_element(head, b, z, E2, &[d_at(x, E2), d_at(x, E1)]);
    p.assign_element(head, b, y, E2, &[d_at(z, E1), d_at(z, E2)]);
    let prog = p.finish();
    let r = analyze(
        &prog,
        &Seeds {
            top: head,
            independents: vec![x],
            dependents: vec![y],
        },
    );
    assert!(r.errors.is_empty());
    assert!(
        r.tbr.recorded(call).contains(&z),
        "the call overwrites z(1)"
    );
    assert!(
        r.tbr.recorded(later).contains(&z),
        "z(2) = x(2)*x(1) overwrites the z(2) y(1)'s derivative reads"
    );
}

const REPRODUCER: &str = "\
module m
  implicit none
  double precision :: g
contains
  subroutine set(s)
    double precision, intent(out) :: s
    s = g
  end subroutine set
end module m

subroutine head(x, y)
  use m
  implicit none
  double precision :: x(2), y(1)
  double precision :: z(2)
  !$openad INDEPENDENT(x)
  g = x(1)
  z(1) = x(1)
  z(2) = x(2)
  call set(z(1))
  y(1) = z(1) + z(2)
  !$openad DEPENDENT(y)
end subroutine head
";

/// 1-based line of the first line of `text` containing `marker`.
fn line_of(text: &str, marker: &str) -> u64 {
    text.lines()
        .position(|l| l.contains(marker))
        .expect("marker") as u64
        + 1
}

fn symbol_of(r: &VariableReference) -> &str {
    r.vertices
        .iter()
        .find_map(|v| match v {
            VariableReferenceVertex::SymbolReference(s) => Some(s.symbol_id.as_str()),
            _ => None,
        })
        .unwrap_or("")
}

/// The front end on the program that showed the bug: `z(2) = x(2)` and
/// the reads of z after `call set(z(1))` are active in the XAIF.
#[test]
fn front_end_keeps_z2_active_after_call_set_z1() {
    let dir = tempfile::tempdir().unwrap();
    let source = dir.path().join("repro.f90");
    std::fs::write(&source, REPRODUCER).unwrap();
    let out = pipeline::run(std::slice::from_ref(&source), None).unwrap();
    let assign_line = line_of(REPRODUCER, "z(2) = x(2)");
    let read_line = line_of(REPRODUCER, "y(1) = z(1) + z(2)");
    let (mut assign_seen, mut reads_seen) = (false, 0);
    for v in &out.xaif.vertices {
        let CallGraphVertex::ControlFlowGraph(cfg) = v else {
            continue;
        };
        for cv in &cfg.vertices {
            let ControlFlowVertex::BasicBlock(b) = cv else {
                continue;
            };
            for e in &b.elements {
                let BasicBlockElement::Assignment(a) = e else {
                    continue;
                };
                if a.line_number == assign_line {
                    assign_seen = true;
                    assert_eq!(a.lhs.reference.active, ActiveUse::True, "z(2) = x(2)");
                }
                if a.line_number == read_line {
                    for x in &a.rhs.vertices {
                        if let xaif_schema::model::ExpressionVertex::VariableReference(r) = x {
                            if symbol_of(r) == "z" {
                                reads_seen += 1;
                                assert_eq!(r.active, ActiveUse::True, "z read by y(1)");
                            }
                        }
                    }
                }
            }
        }
    }
    assert!(assign_seen, "no assignment z(2) = x(2) in the XAIF");
    assert_eq!(reads_seen, 2, "z(1) and z(2) read by y(1)");
}
