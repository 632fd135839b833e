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
use crate::template::Section;

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
            let Some(a) = self.canon.attributes(&self.unit, &n) else {
                continue;
            };
            let plain = !(a.parameter || a.allocatable || a.pointer || a.save) && a.rank == 0;
            if !plain {
                continue;
            }
            let type_spec = a.type_spec.as_deref().unwrap_or("");
            if type_spec == "integer" {
                out.push(n);
            } else if let Some(t) = type_spec
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

    /// Whether the routine's adjoint section calls a subroutine (the
    /// callees with an adjoint): the tape section pushes the scalars
    /// exactly when the adjoint section pops them. A call without an
    /// adjoint (a passive function's subroutine) is in the tape section
    /// only, so the tape section's own calls cannot decide this.
    fn adjoint_section_calls(&self, vertices: &[ControlFlowVertex]) -> bool {
        let adjoint = self
            .env
            .index
            .replacements_of_unit(&self.unit)
            .and_then(|rl| {
                rl.replacements
                    .iter()
                    .find(|r| Section::of_placeholder(&r.placeholder) == Section::Adjoint)
            });
        match adjoint {
            Some(r) => has_calls(&r.vertices),
            None => has_calls(vertices),
        }
    }

    /// Split mode, end of the tape section of a routine with calls.
    pub(crate) fn tape_passive_scalars(&mut self, vertices: &[ControlFlowVertex]) -> Result<()> {
        if !self.sections_apart || !self.adjoint_section_calls(vertices) {
            return Ok(());
        }
        for n in self.passive_scalars() {
            self.tape_int("push_int", n)?;
        }
        Ok(())
    }

    /// Split mode, start of the adjoint section of a routine with calls.
    pub(crate) fn restore_passive_scalars(&mut self, vertices: &[ControlFlowVertex]) -> Result<()> {
        if !self.sections_apart || !self.adjoint_section_calls(vertices) {
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

/// The integer scalar components of derived type `type_name`, in the
/// order of its definition, as `P.decl` declares them: `integer` without
/// attributes.
fn integer_scalar_components(canon: &CanonSource, type_name: &str) -> Vec<String> {
    let declarations = &canon.declarations;
    let Some(components) = declarations.type_components(type_name) else {
        return Vec::new();
    };
    components
        .iter()
        .filter(|c| {
            declarations.component(type_name, c).is_some_and(|a| {
                a.type_spec.as_deref() == Some("integer")
                    && a.rank == 0
                    && a.access.is_none()
                    && !(a.allocatable || a.pointer)
            })
        })
        .cloned()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integer_components_of_a_type_definition() {
        let mut canon = CanonSource::parse("m.canon.f90", "").unwrap();
        canon.declarations = xaif_schema::declarations::Declarations::parse(
            "# openad declarations 2\n\
             type grid nx\n\
             type column levels dz n idx mask flag k8\n\
             component grid nx type=integer\n\
             component column n type=integer\n\
             component column levels initialised type=integer\n\
             component column idx allocatable rank=1 type=integer\n\
             component column mask rank=1 type=integer\n\
             component column flag type=logical\n\
             component column k8 type=integer(8)\n\
             component column dz type=doubleprecision\n",
            "m.decl",
        )
        .unwrap();
        // In the order of the definition.
        assert_eq!(integer_scalar_components(&canon, "column"), ["levels", "n"]);
        assert_eq!(integer_scalar_components(&canon, "grid"), ["nx"]);
        assert!(integer_scalar_components(&canon, "cell").is_empty());
    }
}
