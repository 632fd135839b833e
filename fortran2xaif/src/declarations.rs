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
    // Every derived type the program defines: its components in order,
    // real or not, each with what its declaration says.
    for u in &prog.units {
        for s in &u.ast.spec {
            let SpecStmt::DerivedType { name, .. } = s else {
                continue;
            };
            let Some((_, components)) = prog.derived_type(name) else {
                continue;
            };
            let names: Vec<String> = components.iter().map(|c| c.name.clone()).collect();
            decls.add_type(name, &names);
            for c in &components {
                let attributes = attributes(&emit_canon::component_symbol(c));
                decls.add_component(name, &c.name, attributes);
            }
        }
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
                if u.ast.spec.iter().any(|s| matches!(s, SpecStmt::SaveAll(_))) {
                    decls.add_saving_unit(arg);
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
                    let attributes = attributes(&emit_canon::component_symbol(c));
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
        initialised: s.init.is_some(),
        rank: s.dims.as_ref().map_or(0, Vec::len),
        type_spec: None,
    }
    .with_type(&emit_canon::declared_type(s))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn declarations_of(src: &str) -> Declarations {
        canon_and_declarations_of(src).1
    }

    fn canon_and_declarations_of(src: &str) -> (String, Declarations) {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("t.f90");
        std::fs::write(&p, src).unwrap();
        let out = crate::pipeline::run(&[p], None).unwrap();
        (out.canon, out.declarations)
    }

    #[test]
    fn headers_uses_commons_and_types_as_the_canonical_source_writes_them() {
        let (canon, d) = canon_and_declarations_of(
            "module phys
  implicit none
  real(8) :: gravity = 9.81d0, drag
  type cell
    integer :: n
    real(8) :: h(3)
    logical, allocatable :: wet(:)
  end type cell
contains
  real(8) function half(v)
    real(8), intent(in) :: v
    half = 0.5d0 * v
  end function half
end module phys
subroutine relax(u, k)
  use phys, only: g => gravity, half
  implicit none
  real(8) :: u(3), a, b
  integer :: k
  type(cell) :: c
  common /blk/ a, b
  save
  c%n = k
  u(1) = half(u(1)) * g + a * b
end subroutine relax
subroutine head(x, y)
  real(8) :: x(3), y, p, q
  common /blk/ p, q
  !$openad INDEPENDENT(x)
  call relax(x, 2)
  y = x(1) + p
  !$openad DEPENDENT(y)
end subroutine head
",
        );
        let relax = d.unit("relax").unwrap();
        assert_eq!(relax.kind, HeaderKind::Subroutine);
        assert_eq!(relax.dummies, ["u", "k"]);
        assert_eq!(d.unit("phys").unwrap().kind, HeaderKind::Module);
        // The function is a subroutine with its result last.
        let half = d
            .units()
            .find(|(t, _)| t.starts_with("phys."))
            .map(|(_, h)| h.clone())
            .unwrap();
        assert_eq!(half.kind, HeaderKind::Subroutine);
        assert_eq!(half.dummies.len(), 2);
        let uses = d.uses("relax");
        assert_eq!(uses.len(), 1);
        assert!(uses[0].only);
        assert_eq!(uses[0].module, "phys");
        assert!(uses[0]
            .items
            .contains(&("g".to_string(), "gravity".to_string())));
        // The function under its subroutine's name.
        assert!(uses[0].items.iter().any(|(l, r)| l == r && *l == half.name));
        assert!(d.saves_all("relax") && !d.saves_all("head"));
        // Each `common` record names the lines the statement is on.
        let lines: Vec<&str> = canon.lines().collect();
        let commons: Vec<_> = d.commons().collect();
        assert_eq!(commons.len(), 2);
        for c in &commons {
            let text = lines[c.first_line - 1].trim();
            assert!(text.starts_with("common /blk/"), "{text}");
            assert_eq!(c.last_line, c.first_line);
        }
        assert_eq!(commons[0].unit, "relax");
        assert_eq!(commons[0].members, ["a", "b"]);
        assert_eq!(commons[1].unit, "head");
        assert_eq!(commons[1].members, ["p", "q"]);
        // Types, ranks and initial values; every component of a type.
        let gravity = d.get("phys", "gravity").unwrap();
        assert!(gravity.initialised && gravity.rank == 0);
        assert_eq!(gravity.type_spec.as_deref(), Some("real(kind=8)"));
        assert_eq!(d.get("relax", "u").unwrap().rank, 1);
        assert_eq!(
            d.get("relax", "c").unwrap().type_spec.as_deref(),
            Some("type(cell)")
        );
        assert_eq!(
            d.component("cell", "n").unwrap().type_spec.as_deref(),
            Some("integer")
        );
        assert_eq!(d.component("cell", "h").unwrap().rank, 1);
        assert_eq!(
            d.type_components("cell"),
            Some(["n".to_string(), "h".to_string(), "wet".to_string()].as_slice())
        );
        let wet = d.component("cell", "wet").unwrap();
        assert!(wet.allocatable && wet.type_spec.as_deref() == Some("logical"));
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
        let get = |unit: &str, name: &str| d.get(unit, name).unwrap().clone();
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
