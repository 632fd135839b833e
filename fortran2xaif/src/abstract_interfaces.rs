//! Abstract interfaces and `procedure(iface) :: f` declarations.
//!
//! `procedure(rhs_iface) :: f` gives `f` the interface that the body
//! `rhs_iface` of an `abstract interface` block describes. Before the
//! procedure arguments are specialised (`procedure_arguments.rs`), each
//! such declaration becomes an interface body: a copy of the abstract body
//! under the name `f`, so a dummy declared this way is a procedure
//! argument like one declared by an interface body. The abstract
//! interfaces are then dropped (with their names in `use`, `public` and
//! `private` lists): nothing refers to them any more.
//!
//! Refused by name: `procedure(name)` where `name` is no abstract
//! interface of the program (the interface of a procedure or of an
//! intrinsic type), and two abstract interfaces of the same name.

use std::collections::HashMap;

use crate::ast::*;

/// The abstract interface bodies of the program by name.
fn abstract_bodies(files: &[SourceFile]) -> FrontResult<HashMap<String, Unit>> {
    fn visit(u: &Unit, out: &mut HashMap<String, Unit>) -> FrontResult<()> {
        for s in &u.spec {
            if let SpecStmt::AbstractInterface { bodies, .. } = s {
                for b in bodies {
                    if out.insert(b.name.clone(), b.clone()).is_some() {
                        return Err(FrontError::unsupported(
                            b.span,
                            format!("unsupported construct: abstract interface '{}' is defined twice (abstract interfaces are told apart by name)", b.name),
                        ));
                    }
                }
            }
        }
        u.contains.iter().try_for_each(|c| visit(c, out))
    }
    let mut out = HashMap::new();
    for f in files {
        for u in &f.units {
            visit(u, &mut out)?;
        }
    }
    Ok(out)
}

/// The interface body `f` with the interface of `abstract_`.
fn body_named(abstract_: &Unit, f: &EntityDecl) -> Unit {
    let mut b = abstract_.clone();
    if b.kind == UnitKind::Function && b.result.as_deref() == Some(abstract_.name.as_str()) {
        rename_result(&mut b, &abstract_.name, &f.name);
        b.result = Some(f.name.clone());
    }
    b.name = f.name.clone();
    b.span = f.span;
    b
}

/// A function whose result carries its name declares it under that name.
fn rename_result(b: &mut Unit, from: &str, to: &str) {
    for s in &mut b.spec {
        if let SpecStmt::TypeDecl { entities, .. } | SpecStmt::AttrStmt { entities, .. } = s {
            for e in entities.iter_mut().filter(|e| e.name == from) {
                e.name = to.to_string();
            }
        }
    }
}

/// Replaces the `procedure(iface)` declarations of `u` and the units it
/// contains by interface bodies, and drops its abstract interfaces.
fn rewrite_unit(u: &mut Unit, table: &HashMap<String, Unit>) -> FrontResult<()> {
    let mut spec = Vec::with_capacity(u.spec.len());
    for s in std::mem::take(&mut u.spec) {
        match s {
            SpecStmt::AbstractInterface { .. } => {}
            SpecStmt::ProcedureDecl {
                interface,
                optional,
                entities,
                span,
            } => {
                let Some(abstract_) = table.get(&interface) else {
                    return Err(FrontError::unsupported(
                        span,
                        format!("unsupported construct: procedure({interface}) where '{interface}' is not an abstract interface of the program (declare the interface in an 'abstract interface' block)"),
                    ));
                };
                let bodies = entities.iter().map(|e| body_named(abstract_, e)).collect();
                spec.push(SpecStmt::Interface {
                    generic: None,
                    bodies,
                    procedures: Vec::new(),
                    text: String::new(),
                    span,
                });
                if optional {
                    spec.push(SpecStmt::AttrStmt {
                        attr: Attr::Optional,
                        entities,
                        span,
                    });
                }
            }
            SpecStmt::Use {
                module,
                only,
                mut items,
                span,
            } => {
                items.retain(|(_, remote)| !table.contains_key(remote));
                // `use m, only: iface` of nothing else reads as `use m, only:`.
                spec.push(SpecStmt::Use {
                    module,
                    only,
                    items,
                    span,
                });
            }
            SpecStmt::AttrStmt {
                attr: attr @ (Attr::Public | Attr::Private),
                mut entities,
                span,
            } => {
                let before = entities.len();
                entities.retain(|e| !table.contains_key(&e.name));
                if before == 0 || !entities.is_empty() {
                    spec.push(SpecStmt::AttrStmt {
                        attr,
                        entities,
                        span,
                    });
                }
            }
            // Interface bodies may declare procedure dummies this way too.
            SpecStmt::Interface {
                generic,
                mut bodies,
                procedures,
                text,
                span,
            } => {
                bodies.iter_mut().try_for_each(|b| rewrite_unit(b, table))?;
                spec.push(SpecStmt::Interface {
                    generic,
                    bodies,
                    procedures,
                    text,
                    span,
                });
            }
            other => spec.push(other),
        }
    }
    u.spec = spec;
    u.contains
        .iter_mut()
        .try_for_each(|c| rewrite_unit(c, table))
}

/// Gives every `procedure(iface)` declaration the interface body it
/// stands for (see the module documentation).
pub fn resolve(files: &mut [SourceFile]) -> FrontResult<()> {
    let mut table = abstract_bodies(files)?;
    // An abstract interface whose dummies are `procedure(other)`.
    let plain = table.clone();
    for body in table.values_mut() {
        rewrite_unit(body, &plain)?;
    }
    let any_declaration = |u: &Unit| {
        fn has(u: &Unit) -> bool {
            u.spec.iter().any(|s| {
                matches!(
                    s,
                    SpecStmt::ProcedureDecl { .. } | SpecStmt::AbstractInterface { .. }
                )
            }) || u.contains.iter().any(has)
        }
        has(u)
    };
    if table.is_empty() && !files.iter().flat_map(|f| &f.units).any(any_declaration) {
        return Ok(());
    }
    for f in files.iter_mut() {
        for u in &mut f.units {
            rewrite_unit(u, &table)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::parse_file;

    #[test]
    fn a_procedure_dummy_gets_the_abstract_body_under_its_name() {
        let src = "module lib\n  abstract interface\n    real(8) function g_iface(z)\n      real(8), intent(in) :: z\n    end function\n  end interface\n  public :: g_iface\ncontains\n  real(8) function twice(g, a)\n    procedure(g_iface), optional :: g\n    real(8), intent(in) :: a\n    twice = 2 * g(a)\n  end function\nend module lib\n";
        let mut files = vec![parse_file(src, 0).unwrap()];
        resolve(&mut files).unwrap();
        let module = &files[0].units[0];
        assert!(
            !module.spec.iter().any(|s| matches!(
                s,
                SpecStmt::AbstractInterface { .. }
                    | SpecStmt::AttrStmt {
                        attr: Attr::Public,
                        ..
                    }
            )),
            "{:?}",
            module.spec
        );
        let twice = &module.contains[0];
        let body = twice.spec.iter().find_map(|s| match s {
            SpecStmt::Interface { bodies, .. } => Some(&bodies[0]),
            _ => None,
        });
        let body = body.expect("an interface body for g");
        assert_eq!(
            (body.name.as_str(), body.result.as_deref()),
            ("g", Some("g"))
        );
        // `optional` stays on the dummy.
        assert!(twice.spec.iter().any(|s| matches!(s,
            SpecStmt::AttrStmt { attr: Attr::Optional, entities, .. } if entities[0].name == "g")));
    }

    #[test]
    fn an_interface_that_is_not_abstract_is_refused() {
        let src = "subroutine s(f)\n  procedure(cos) :: f\nend subroutine\n";
        let mut files = vec![parse_file(src, 0).unwrap()];
        let e = resolve(&mut files).unwrap_err();
        assert!(
            e.message
                .contains("procedure(cos) where 'cos' is not an abstract interface"),
            "{}",
            e.message
        );
    }
}
