//! `allocate(a(n, m), source=e)`, `allocate(a, source=h)` and
//! `allocate(a, mold=h)`: the allocation alone, with the bounds written
//! out when the statement takes them from the expression, followed for
//! `source=` by the assignment `a = e`.
//!
//! The assignment is what the rest of the tool differentiates (an active
//! `e` passes its derivative to `a`); and the generated code could not
//! keep the keyword: `type(active)` cannot take a real `source=`, and
//! gfortran 12 refuses `mold=` of a type with default initialisation
//! ("Array specification or array-valued SOURCE= expression required").
//! The bounds taken from `h` are `lbound(h, k):ubound(h, k)`, which is
//! what `source=`/`mold=` gives (1 and the extent for an expression that
//! is not a whole array).

use std::collections::HashMap;

use tree_sitter::Node;

use super::{named_children, FortranParser};
use crate::ast::{Attr, Expr, FrontResult, OpaqueKind, Span, SpecStmt, Stmt, StmtKind};

/// The rank each name is declared with in the specification parts a unit
/// sees (its own last, so it wins), for bounds taken from an expression.
pub(super) fn declared_ranks(specs: &[&[SpecStmt]]) -> HashMap<String, usize> {
    let mut out = HashMap::new();
    for spec in specs {
        for s in spec.iter() {
            match s {
                SpecStmt::TypeDecl {
                    attrs, entities, ..
                } => {
                    let shared = attrs.iter().find_map(|a| match a {
                        Attr::Dimension(d) => Some(d.len()),
                        _ => None,
                    });
                    for e in entities {
                        let rank = e.dims.as_ref().map(Vec::len).or(shared).unwrap_or(0);
                        out.insert(e.name.clone(), rank);
                    }
                }
                SpecStmt::AttrStmt {
                    attr: Attr::Dimension(d),
                    entities,
                    ..
                } => {
                    for e in entities {
                        let rank = e.dims.as_ref().map_or(d.len(), Vec::len);
                        out.insert(e.name.clone(), rank);
                    }
                }
                _ => {}
            }
        }
    }
    out
}

impl FortranParser<'_> {
    /// The statements replacing an `allocate` with `source=` or `mold=`;
    /// `None` for any other `allocate`.
    pub(super) fn allocate_with_source(
        &self,
        n: Node,
        label: &Option<String>,
        span: Span,
    ) -> FrontResult<Option<Vec<Stmt>>> {
        let mut keyword = None;
        let mut others = Vec::new();
        let mut objects = Vec::new();
        for c in named_children(n) {
            match c.kind() {
                "comment" => {}
                "keyword_argument" => {
                    let name = c
                        .child_by_field_name("name")
                        .map(|k| self.lower(k))
                        .unwrap_or_default();
                    let value = c.child_by_field_name("value");
                    match (name.as_str(), value) {
                        ("source" | "mold", Some(v)) => keyword = Some((name, v)),
                        _ => others.push(self.text(c).to_string()),
                    }
                }
                _ => objects.push(c),
            }
        }
        let Some((keyword, value)) = keyword else {
            return Ok(None);
        };
        let [object] = objects.as_slice() else {
            return self.unsupported(n, &format!("allocate of several objects with {keyword}="));
        };
        let (name, sized) = match object.kind() {
            "identifier" => (self.lower(*object), None),
            "sized_allocation" => {
                let kids = named_children(*object);
                match kids.first() {
                    Some(id) if id.kind() == "identifier" => {
                        (self.lower(*id), Some(self.text(*object).to_string()))
                    }
                    _ => {
                        return self.unsupported(
                            *object,
                            &format!("allocate with {keyword}= of a component or coarray"),
                        )
                    }
                }
            }
            _ => {
                return self.unsupported(
                    *object,
                    &format!("allocate with {keyword}= of a component or coarray"),
                )
            }
        };
        let source_text = self.text(value).trim().to_string();
        let allocated = match sized {
            Some(text) => text,
            None => {
                let Some(&rank) = self.declared_ranks.borrow().get(&name) else {
                    return self.unsupported(
                        *object,
                        &format!("allocate with {keyword}= of '{name}', whose declaration this unit does not show"),
                    );
                };
                if rank == 0 {
                    name.clone()
                } else {
                    let bounds: Vec<String> = (1..=rank)
                        .map(|k| format!("lbound({source_text}, {k}):ubound({source_text}, {k})"))
                        .collect();
                    format!("{name}({})", bounds.join(", "))
                }
            }
        };
        let mut list = vec![allocated];
        list.extend(others);
        let text = format!("allocate({})", list.join(", "));
        let mut out = vec![Stmt {
            id: 0,
            label: label.clone(),
            span,
            kind: StmtKind::Opaque {
                kind: OpaqueKind::Allocate,
                text,
                reads: vec![],
                writes: vec![Expr::Name(name.clone(), self.span(*object))],
            },
        }];
        if keyword == "source" {
            out.push(Stmt {
                id: 0,
                label: None,
                span,
                kind: StmtKind::Assign {
                    lhs: Expr::Name(name, self.span(*object)),
                    rhs: self.expr(value)?,
                },
            });
        }
        Ok(Some(out))
    }
}
