//! The side file `P.decl` (`--declarations`; format in docs/xaif.md,
//! reader and writer in `xaif_schema::declarations`): the attributes of
//! every entity the canonical source declares under a `!$oad decl` tag and
//! of every component under a `!$oad component` tag, and the modules whose
//! entities are private by default, each unit's header, `use` and
//! `common` statements, taken from the semantic model, so that the back
//! end never re-reads them from the Fortran text.

use xaif_schema::declarations::{
    Attributes, CommonStatement, Declarations, DeclaredIntent, UnitHeader, UnitKind as HeaderKind,
};

use crate::ast::{DimSpec, Intent, SpecStmt, UnitKind};
use crate::emit_canon::{self, CanonText};
use crate::sema::{Program, Symbol};

/// The declarations of `canon`, the canonical source written for `prog`:
/// one record per `!$oad decl` tag, under the `!$oad unit` tag before it,
/// one per `!$oad component` tag, a header and the `use` statements per
/// `!$oad unit` tag, and one record per `common` statement.
pub fn declarations(canon: &CanonText, prog: &Program) -> Declarations {
    let mut decls = Declarations::new();
    let mut unit = None;
    let mut commons_seen = vec![0usize; prog.units.len()];
    for &(i, first_line, last_line) in &canon.common_lines {
        let u = &prog.units[i];
        let blocks = emit_canon::common_statements(u);
        let Some((block, members)) = blocks.get(commons_seen[i]) else {
            continue;
        };
        commons_seen[i] += 1;
        decls.add_common(CommonStatement {
            first_line,
            last_line,
            unit: u.tag.clone(),
            block: block.clone(),
            members: members.clone(),
        });
    }
    for line in canon.text.lines() {
        let Some(tag) = line.trim().strip_prefix("!$oad ") else {
            continue;
        };
        let (kind, arg) = tag.split_once(' ').unwrap_or((tag, ""));
        let arg = arg.trim();
        match kind {
            "unit" => {
                unit = prog.units.iter().position(|u| u.tag == arg);
                let Some(i) = unit else {
                    // The module of a unit's interface blocks.
                    if (0..prog.units.len())
                        .any(|i| emit_canon::interface_module_name(prog, i) == arg)
                    {
                        let header = UnitHeader {
                            kind: HeaderKind::Module,
                            name: arg.to_string(),
                            dummies: Vec::new(),
                        };
                        decls.add_unit(arg, header);
                    }
                    continue;
                };
                let u = &prog.units[i];
                decls.add_unit(arg, unit_header(prog, i));
                for use_stmt in emit_canon::use_statements(prog, i) {
                    decls.add_use(arg, use_stmt);
                }
                let private_by_default = u
                    .ast
                    .spec
                    .iter()
                    .any(|s| matches!(s, SpecStmt::DefaultAccess(false, _)));
                if u.ast.kind == UnitKind::Module && private_by_default {
                    decls.add_private_module(arg);
                }
            }
            "decl" => {
                let Some(u) = unit.map(|u| &prog.units[u]) else {
                    continue;
                };
                if let Some(symbol) = u.symbols.iter().find(|s| s.name == arg) {
                    decls.add(&u.tag, arg, attributes(symbol));
                }
            }
            "component" => {
                let Some((type_name, name)) = arg.split_once('%') else {
                    continue;
                };
                let Some((_, components)) = prog.derived_type(type_name) else {
                    continue;
                };
                if let Some(c) = components.iter().find(|c| c.name == name) {
                    let attributes = Attributes {
                        allocatable: c.allocatable,
                        pointer: c.pointer,
                        access: c.access,
                        assumed_size: assumed_size(c.dims.as_deref()),
                        ..Attributes::default()
                    };
                    decls.add_component(type_name, name, attributes);
                }
            }
            _ => {}
        }
    }
    decls
}

/// The unit's header as the canonical source writes it.
fn unit_header(prog: &Program, i: usize) -> UnitHeader {
    let u = &prog.units[i];
    let (kind, dummies) = match u.ast.kind {
        UnitKind::Program => (HeaderKind::Program, Vec::new()),
        UnitKind::Module => (HeaderKind::Module, Vec::new()),
        UnitKind::BlockData => (HeaderKind::BlockData, Vec::new()),
        UnitKind::Subroutine | UnitKind::Function => {
            (HeaderKind::Subroutine, emit_canon::dummies(u))
        }
    };
    UnitHeader {
        kind,
        name: emit_canon::header(u).1,
        dummies,
    }
}

/// Whether the last bound of a shape is `*`.
fn assumed_size(dims: Option<&[DimSpec]>) -> bool {
    matches!(
        dims.and_then(|d| d.last()),
        Some(DimSpec::AssumedSize { .. })
    )
}

/// What the canonical declaration of `s` says (`emit_canon::decl_text`).
fn attributes(s: &Symbol) -> Attributes {
    Attributes {
        parameter: s.parameter,
        intent: s.intent.as_ref().map(|i| match i {
            Intent::In => DeclaredIntent::In,
            Intent::Out => DeclaredIntent::Out,
            Intent::InOut => DeclaredIntent::InOut,
        }),
        optional: s.optional,
        allocatable: s.allocatable,
        pointer: s.pointer,
        target: s.target,
        // As the declaration is written: dummies, constants and common
        // block members are never `save`d there.
        save: s.save && !s.parameter && s.dummy.is_none() && s.common.is_none(),
        access: s.access,
        assumed_size: assumed_size(s.dims.as_deref()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn declarations_of(src: &str) -> Declarations {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("t.f90");
        std::fs::write(&p, src).unwrap();
        crate::pipeline::run(&[p], None).unwrap().declarations
    }

    #[test]
    fn every_tagged_declaration_with_its_attributes() {
        let d = declarations_of(
            "module m
  implicit none
  private
  public :: step, rate
  real(8), parameter :: c = 2.0d0
  real(8) :: rate
  real(8), allocatable, save :: work(:)
  type grid
    private
    real(8), allocatable :: h(:)
    real(8) :: dx
  end type grid
contains
  subroutine step(x, y, n, w, p)
    integer, intent(in) :: n
    real(8), intent(in) :: x(n)
    real(8), intent(inout) :: y(*)
    real(8), intent(out), optional :: w
    real(8), pointer :: p
    type(grid) :: g
    y(1) = x(1) * c * rate
    if (present(w)) w = y(1)
  end subroutine step
end module m
subroutine head(x, y)
  use m
  real(8) :: x(2), y(2)
  !$openad INDEPENDENT(x)
  call step(x, y, 2)
  !$openad DEPENDENT(y)
end subroutine head
",
        );
        let get = |unit: &str, name: &str| *d.get(unit, name).unwrap();
        assert!(get("m", "c").parameter);
        assert_eq!(get("m", "rate").access, Some(true));
        let work = get("m", "work");
        assert!(work.allocatable && work.save && work.access.is_none());
        assert!(d.is_private_by_default("m"));
        assert!(d.is_private("m", "work"));
        assert!(!d.is_private("m", "rate"));
        let x = get("m.step", "x");
        assert_eq!(x.intent, Some(DeclaredIntent::In));
        assert!(!x.assumed_size);
        let y = get("m.step", "y");
        assert_eq!(y.intent, Some(DeclaredIntent::InOut));
        assert!(y.assumed_size);
        let w = get("m.step", "w");
        assert!(w.optional && w.intent == Some(DeclaredIntent::Out));
        assert!(get("m.step", "p").pointer);
        assert!(d.component("grid", "h").unwrap().allocatable);
        assert!(!d.component("grid", "dx").unwrap().allocatable);
        assert_eq!(d.get("m.step", "nonesuch"), None);
    }

    #[test]
    fn a_private_statement_inside_a_type_keeps_the_module_public() {
        let d = declarations_of(
            "module m
  implicit none
  type hidden
    private
    real(8) :: v
  end type hidden
  real(8) :: open
end module m
subroutine head(x, y)
  use m
  real(8) :: x, y
  !$openad INDEPENDENT(x)
  y = x * open
  !$openad DEPENDENT(y)
end subroutine head
",
        );
        assert!(!d.is_private_by_default("m"));
        assert!(!d.is_private("m", "open"));
    }
}
