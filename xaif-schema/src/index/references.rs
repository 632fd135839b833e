//! What a unit's code names: the variables its graphs reference (in
//! assignments on either side, call arguments, conditions, loop headers,
//! subscripts, derivative propagators; every replacement of an adjoint
//! unit), the subroutines it calls, and whether it has statements the
//! XAIF does not spell out (`Marker`s: input/output, allocation,
//! black-box and MPI calls), whose variables are unknown here.

use std::collections::HashSet;

use super::UnitGraph;
use crate::model::{BasicBlockElement, ControlFlowVertex, SubroutineCall};

/// The references of one unit's code.
#[derive(Debug, Default)]
pub struct UnitReferences<'a> {
    /// (scope, symbol name) of every variable referenced, as written (a
    /// component path `s%c` is one name).
    pub symbols: HashSet<(u64, &'a str)>,
    /// The subroutine calls, in document order.
    pub calls: Vec<&'a SubroutineCall>,
    /// Whether the code has a statement the XAIF leaves opaque.
    pub opaque: bool,
}

impl UnitReferences<'_> {
    /// Whether the code references variable `name` of scope `scope` or a
    /// component path or element of it (`name%...`, `name(...)`), ignoring
    /// ASCII case.
    pub fn names_variable(&self, scope: u64, name: &str) -> bool {
        self.symbols.iter().any(|&(s, n)| {
            s == scope
                && n.len() >= name.len()
                && n.as_bytes()[..name.len()].eq_ignore_ascii_case(name.as_bytes())
                && matches!(n.as_bytes().get(name.len()), None | Some(b'%' | b'('))
        })
    }
}

/// The references of the code of `unit`.
pub fn unit_references<'a>(unit: &UnitGraph<'a>) -> UnitReferences<'a> {
    let mut out = UnitReferences::default();
    for (vertices, _) in unit.parts() {
        crate::visit::symbol_references(vertices, &mut |r| {
            out.symbols.insert((r.scope_id, r.symbol_id.as_str()));
        });
        for v in vertices {
            if let ControlFlowVertex::BasicBlock(b) = v {
                for e in &b.elements {
                    match e {
                        BasicBlockElement::SubroutineCall(c) => out.calls.push(c),
                        BasicBlockElement::Marker(_) => out.opaque = true,
                        _ => {}
                    }
                }
            }
        }
    }
    out
}
