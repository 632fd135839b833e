//! The binding part of a derived type definition (`contains` followed by
//! `procedure` and `generic` bindings) and `procedure(iface) :: f`
//! declarations. What the devirtualisation cannot make static is refused
//! here, at the binding: `final` and `deferred` bindings.

use crate::ast::*;
use tree_sitter::Node;

use super::{named_children, operator_generic_name, FortranParser};

impl<'a> FortranParser<'a> {
    /// The bindings of a `derived_type_procedures` node.
    pub(super) fn type_bindings(&self, part: Node) -> FrontResult<Vec<TypeBinding>> {
        let mut out = Vec::new();
        for st in named_children(part) {
            match st.kind() {
                "contains_statement" | "comment" | "private_statement" => continue,
                "procedure_statement" => {}
                other => return self.unsupported(st, &format!("{other} in a type's binding part")),
            }
            let span = self.span(st);
            let kids = named_children(st);
            let kind = kids
                .iter()
                .find(|k| k.kind() == "procedure_kind")
                .map(|k| self.lower(*k))
                .unwrap_or_default();
            let mut passed = PassedObject::First;
            for k in &kids {
                match k.kind() {
                    "procedure_interface" => {
                        return self.unsupported(st, "deferred type-bound procedure")
                    }
                    "procedure_attribute" => {
                        let a = self.lower(*k).replace(' ', "");
                        if a == "nopass" {
                            passed = PassedObject::None;
                        } else if let Some(name) =
                            a.strip_prefix("pass(").and_then(|r| r.strip_suffix(')'))
                        {
                            passed = PassedObject::Named(name.to_string());
                        } else if a == "deferred" {
                            return self.unsupported(st, "deferred type-bound procedure");
                        } else if !matches!(
                            a.as_str(),
                            "pass" | "public" | "private" | "non_overridable"
                        ) {
                            return self
                                .unsupported(*k, &format!("type-bound procedure attribute '{a}'"));
                        }
                    }
                    _ => {}
                }
            }
            match kind.as_str() {
                "final" => {
                    return self.unsupported(st, "final procedure (finalisation of a derived type)")
                }
                "generic" => {
                    let mut name = String::new();
                    let mut specifics = Vec::new();
                    for k in &kids {
                        match k.kind() {
                            "binding" => {
                                let (n, p) = self.binding_pair(*k)?;
                                name = n;
                                specifics.push(p);
                            }
                            "method_name" => specifics.push(self.lower(*k)),
                            _ => {}
                        }
                    }
                    if name.is_empty() {
                        return self.unsupported(st, "generic binding form");
                    }
                    out.push(TypeBinding::Generic {
                        name,
                        specifics,
                        span,
                    });
                }
                "procedure" => {
                    for k in &kids {
                        let (name, procedure) = match k.kind() {
                            "binding" => self.binding_pair(*k)?,
                            "method_name" => (self.lower(*k), self.lower(*k)),
                            _ => continue,
                        };
                        out.push(TypeBinding::Specific {
                            name,
                            procedure,
                            passed: passed.clone(),
                            span,
                        });
                    }
                }
                _ => return self.unsupported(st, "type-bound procedure statement form"),
            }
        }
        Ok(out)
    }

    /// `name => target` of a binding: the binding's (or generic's) name and
    /// the procedure (or specific binding) it names.
    fn binding_pair(&self, b: Node) -> FrontResult<(String, String)> {
        let kids = named_children(b);
        let name = kids.iter().find(|k| k.kind() == "binding_name");
        let target = kids.iter().find(|k| k.kind() == "method_name");
        match (name, target) {
            (Some(n), Some(t)) => {
                let inner = named_children(*n);
                let name = match inner.first() {
                    Some(x) if matches!(x.kind(), "operator" | "assignment") => {
                        operator_generic_name(&self.lower(*x))
                    }
                    _ => self.lower(*n),
                };
                Ok((name, self.lower(*t)))
            }
            _ => self.unsupported(b, "type-bound procedure binding form"),
        }
    }

    /// `procedure(iface) [, intent(..)] [, optional] :: f` (declaration
    /// `s`, its `procedure` node `p`).
    pub(super) fn procedure_decl(
        &self,
        s: Node,
        p: Node,
        out: &mut Vec<SpecStmt>,
    ) -> FrontResult<()> {
        let pointer = named_children(p)
            .iter()
            .any(|a| a.kind() == "procedure_attribute" && self.lower(*a).trim() == "pointer")
            || named_children(s)
                .iter()
                .any(|a| a.kind() == "pointer_init_declarator");
        if pointer {
            return self.unsupported(p, "procedure pointer");
        }
        let Some(interface) = named_children(p)
            .into_iter()
            .find(|k| k.kind() == "procedure_interface")
            .map(|k| self.lower(k).trim().to_string())
        else {
            return self.unsupported(
                p,
                "procedure declaration without an interface name (procedure())",
            );
        };
        if let Some(a) = named_children(p)
            .into_iter()
            .find(|k| k.kind() == "procedure_attribute")
        {
            return self.unsupported(a, &format!("procedure attribute '{}'", self.lower(a)));
        }
        let mut optional = false;
        let mut entities = Vec::new();
        for c in named_children(s) {
            match c.kind() {
                "procedure" | "comment" => {}
                "type_qualifier" => match self.attr(c)? {
                    Attr::Optional => optional = true,
                    Attr::Intent(_) => {}
                    Attr::Pointer => return self.unsupported(c, "procedure pointer"),
                    _ => {
                        return self.unsupported(
                            c,
                            &format!("attribute '{}' of a procedure declaration", self.lower(c)),
                        )
                    }
                },
                "identifier" => entities.push(self.entity(c)?),
                _ => return self.unsupported(c, "procedure declaration form"),
            }
        }
        if entities.is_empty() {
            return self.unsupported(s, "procedure declaration without names");
        }
        out.push(SpecStmt::ProcedureDecl {
            interface,
            optional,
            entities,
            span: self.span(s),
        });
        Ok(())
    }
}
