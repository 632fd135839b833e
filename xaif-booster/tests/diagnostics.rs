//! Where a rejected statement is reported: in the user's Fortran when the
//! front end's source locations are given, else in the XAIF input.

use xaif_booster::tangent::BoostError;
use xaif_schema::diagnostic::Kind;
use xaif_schema::source_map::{SourceLocation, SourceMap};

const XAIF: &str = "<xaif:CallGraph>\n  <xaif:ControlFlowGraph symbol_id=\"head\">\n    <xaif:Assignment statement_id=\"s2\" lineNumber=\"8\">\n";

fn error(statement: Option<&str>) -> BoostError {
    BoostError {
        statement_id: statement.map(str::to_string),
        cfg_symbol: Some("head".into()),
        kind: Kind::Semantic,
        message: "intrinsic 'tanh_scal' is missing".into(),
    }
}

fn map() -> SourceMap {
    let mut m = SourceMap::new();
    let at = |line, column| SourceLocation {
        file: "src/head.f90".into(),
        line,
        column,
    };
    m.add_statement("s2", &at(8, 3));
    m.add_unit("head", &at(3, 1));
    m
}

#[test]
fn with_locations_the_statement_in_the_fortran_source() {
    let d = error(Some("s2"))
        .diagnostic("p.xaif", XAIF, Some(&map()), "")
        .to_string();
    assert_eq!(
        d,
        "src/head.f90:8:3: error: in 'head': intrinsic 'tanh_scal' is missing"
    );
    // A statement the locations do not know: its subroutine's header.
    let d = error(Some("s7"))
        .diagnostic("p.xaif", XAIF, Some(&map()), "adjoint: ")
        .to_string();
    assert!(
        d.starts_with("src/head.f90:3:1: error: adjoint: in 'head': "),
        "{d}"
    );
}

#[test]
fn without_locations_the_element_in_the_xaif() {
    let d = error(Some("s2"))
        .diagnostic("p.xaif", XAIF, None, "")
        .to_string();
    assert!(
        d.starts_with("p.xaif:3:5: error: in 'head': statement 's2': "),
        "{d}"
    );
    let d = error(None).diagnostic("p.xaif", XAIF, None, "").to_string();
    assert!(d.starts_with("p.xaif:2:3: error: "), "{d}");
}

#[test]
fn the_kind_survives_placement() {
    let mut e = error(Some("s2"));
    e.kind = Kind::Unsupported;
    assert_eq!(
        e.diagnostic("p.xaif", XAIF, Some(&map()), "").kind,
        Kind::Unsupported
    );
    assert_eq!(
        e.diagnostic("p.xaif", XAIF, None, "").kind,
        Kind::Unsupported
    );
}
