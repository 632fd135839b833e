//! Split mode: the passive integer scalars of a routine's locals that the
//! adjoint section hands to its callees.
//!
//! In split mode a routine's tape section and adjoint section run in two
//! invocations, so its locals are undefined when the adjoint section
//! starts. The booster tapes what the adjoint code itself reads (loop
//! counts, subscripts, partials), but a callee's adjoint also reads its
//! arguments outside that code: the bounds of its automatic arrays
//! (`flux(col%n + 1)`) and of its explicit-shape dummies. A routine with
//! calls therefore pushes its integer scalar locals, and the integer
//! scalar components of its local derived-type scalars, at the end of its
//! tape section and pops them at the start of its adjoint section (after
//! the pushes of `allocation.rs`, so before its pops: LIFO).

use xaif_schema::{BasicBlockElement, ControlFlowVertex};

use super::UnitGen;
use crate::canon::CanonSource;
use crate::error::Result;

impl UnitGen<'_, '_> {
    /// The integer scalars restored (see the module comment), in order.
    fn passive_scalars(&self) -> Vec<String> {
        let mut names: Vec<String> = self
            .canon
            .declared
            .get(&self.unit)
            .map(|s| s.iter().cloned().collect())
            .unwrap_or_default();
        names.sort();
        let mut out = Vec::new();
        for n in names {
            if n.starts_with("oad_") || !self.is_local_variable(&n) {
                continue;
            }
            let Some(decl) = self.own_declaration(&n) else {
                continue;
            };
            let Some((attrs, entity)) = decl.split_once("::") else {
                continue;
            };
            let attrs: Vec<String> = attrs.split(',').map(|a| a.replace(' ', "")).collect();
            let plain = !attrs[1..].iter().any(|a| {
                a == "parameter"
                    || a == "allocatable"
                    || a == "pointer"
                    || a == "save"
                    || a.starts_with("dimension")
            }) && !entity.contains('(');
            if !plain {
                continue;
            }
            if attrs[0] == "integer" {
                out.push(n);
            } else if let Some(t) = attrs[0]
                .strip_prefix("type(")
                .and_then(|t| t.strip_suffix(')'))
            {
                for c in integer_scalar_components(self.canon, t) {
                    out.push(format!("{n}%{c}"));
                }
            }
        }
        out
    }

    /// Split mode, end of the tape section of a routine with calls.
    pub(crate) fn tape_passive_scalars(&mut self, vertices: &[ControlFlowVertex]) -> Result<()> {
        if !self.sections_apart || !has_calls(vertices) {
            return Ok(());
        }
        for n in self.passive_scalars() {
            self.tape_int("push_int", n)?;
        }
        Ok(())
    }

    /// Split mode, start of the adjoint section of a routine with calls.
    pub(crate) fn restore_passive_scalars(&mut self, vertices: &[ControlFlowVertex]) -> Result<()> {
        if !self.sections_apart || !has_calls(vertices) {
            return Ok(());
        }
        for n in self.passive_scalars().into_iter().rev() {
            self.tape_int("pop_int", n)?;
        }
        Ok(())
    }
}

/// Whether a control-flow graph calls a subroutine.
fn has_calls(vertices: &[ControlFlowVertex]) -> bool {
    vertices.iter().any(|v| match v {
        ControlFlowVertex::BasicBlock(b) => b
            .elements
            .iter()
            .any(|e| matches!(e, BasicBlockElement::SubroutineCall(_))),
        _ => false,
    })
}

/// The integer scalar components of derived type `type_name` as its
/// definition in the canonical source declares them (lower case).
fn integer_scalar_components(canon: &CanonSource, type_name: &str) -> Vec<String> {
    let is_start = |l: &str| {
        let l = l.trim().to_ascii_lowercase();
        let Some(rest) = l.strip_prefix("type") else {
            return false;
        };
        let name = match rest.split_once("::") {
            Some((attrs, name)) if attrs.trim().is_empty() || attrs.trim().starts_with(',') => name,
            Some(_) => return false,
            None if rest.starts_with(' ') => rest,
            None => return false,
        };
        name.trim() == type_name
    };
    let Some(start) = canon.lines.iter().position(|l| is_start(l)) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for line in &canon.lines[start + 1..] {
        let l = line.trim().to_ascii_lowercase();
        if l.starts_with("end type") || l.starts_with("endtype") {
            break;
        }
        let Some((attrs, entities)) = l.split_once("::") else {
            continue;
        };
        if attrs.replace(' ', "") != "integer" {
            continue;
        }
        for e in entities.split(',') {
            let name = e.split('=').next().unwrap_or("").trim();
            if !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                out.push(name.to_string());
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integer_components_of_a_type_definition() {
        let mut canon = CanonSource::default();
        canon.lines = [
            "  type grid",
            "    integer :: nx",
            "  end type grid",
            "  type, public :: column",
            "    integer :: n, levels = 3",
            "    integer, allocatable :: idx(:)",
            "    integer :: mask(4)",
            "!$oad component column%dz",
            "    double precision :: dz",
            "  end type column",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        assert_eq!(integer_scalar_components(&canon, "column"), ["n", "levels"]);
        assert_eq!(integer_scalar_components(&canon, "grid"), ["nx"]);
        assert!(integer_scalar_components(&canon, "cell").is_empty());
    }
}
