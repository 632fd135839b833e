//! A function whose allocatable result is allocated once, by the first
//! statement of its body or from its `intent(in)` arguments only
//! (`allocate(r(size(u)))`), computes what the same function with an
//! explicit-shape result `r(size(u))` computes. It is read as that: the
//! `allocate` goes, the bounds become the declaration's. The caller then
//! gives the result a temporary of that shape (`canon/array_results.rs`),
//! and no routine allocates a dummy argument, which the joint adjoint
//! mode cannot replay. Any other use of the result's allocation status
//! (`allocated(r)`, a second `allocate`, `deallocate`, `move_alloc`, an
//! allocation inside a construct) keeps the allocatable result, and so do
//! external functions (an interface block elsewhere would still declare
//! the allocatable result): only module and internal procedures.

use crate::ast::*;

/// The rewrite (module comment), given the body's single-variable
/// `allocate` statements (position, name, bounds).
pub(super) fn allocatable_result(unit: &mut Unit, allocations: &[(Span, String, Vec<DimSpec>)]) {
    if unit.kind != UnitKind::Function {
        return;
    }
    let Some(r) = unit.result.clone() else {
        return;
    };
    // The result's declaration: an allocatable array.
    let Some((d, ty, attrs)) = unit.spec.iter().enumerate().find_map(|(d, s)| match s {
        SpecStmt::TypeDecl {
            ty,
            attrs,
            entities,
            ..
        } if entities.iter().any(|e| e.name == r) => Some((d, ty.clone(), attrs.clone())),
        _ => None,
    }) else {
        return;
    };
    if !attrs.contains(&Attr::Allocatable) || attrs.contains(&Attr::Pointer) {
        return;
    }
    // Every statement that allocates, releases or asks about `r`.
    let mut mentions = Vec::new();
    collect_allocation_uses(&unit.body, &r, &mut mentions);
    let [only] = mentions.as_slice() else {
        return;
    };
    let Some(k) = unit.body.iter().position(|s| s.span == *only) else {
        return; // inside a construct
    };
    let Some((_, _, dims)) = allocations
        .iter()
        .find(|(sp, n, _)| *sp == *only && *n == r)
    else {
        return;
    };
    // Bounds evaluated at entry instead of at the `allocate`: the same
    // values when nothing ran before it, or when they read only
    // arguments the function may not change.
    let intent_in = |n: &str| {
        unit.params.iter().any(|p| p == n)
            && unit.spec.iter().any(|s| match s {
                SpecStmt::TypeDecl {
                    attrs, entities, ..
                } => {
                    attrs.contains(&Attr::Intent(Intent::In))
                        && entities.iter().any(|e| e.name == n)
                }
                SpecStmt::AttrStmt {
                    attr: Attr::Intent(Intent::In),
                    entities,
                    ..
                } => entities.iter().any(|e| e.name == n),
                _ => false,
            })
    };
    let mut fine = true;
    for dim in dims {
        let DimSpec::Explicit { lo, hi } = dim else {
            return;
        };
        for e in lo.iter().chain([hi]) {
            e.walk(&mut |x| match x {
                Expr::Name(n, _) => fine &= k == 0 || intent_in(n),
                // Intrinsic inquiries, elements of arguments; no user
                // function (it would run at entry).
                Expr::Apply { name, .. } => {
                    fine &= crate::intrinsics::is_intrinsic(name) || intent_in(name)
                }
                Expr::Lit(..)
                | Expr::Unary(..)
                | Expr::Binary(..)
                | Expr::Paren(..)
                | Expr::Range { .. } => {}
                _ => fine = false,
            });
        }
    }
    if !fine {
        return;
    }
    unit.body.remove(k);
    // `r` declared on its own, with the bounds, not allocatable.
    if let SpecStmt::TypeDecl { entities, .. } = &mut unit.spec[d] {
        let Some(i) = entities.iter().position(|e| e.name == r) else {
            return;
        };
        let mut entity = entities.remove(i);
        if entities.is_empty() {
            unit.spec.remove(d);
        }
        entity.dims = Some(dims.clone());
        let attrs = attrs
            .into_iter()
            .filter(|a| !matches!(a, Attr::Allocatable | Attr::Dimension(_)))
            .collect();
        let span = entity.span;
        unit.spec.push(SpecStmt::TypeDecl {
            ty,
            attrs,
            entities: vec![entity],
            span,
        });
    }
}

/// Spans of the statements in `stmts` (nested too) that allocate or
/// deallocate `r` or inquire about or move its allocation.
fn collect_allocation_uses(stmts: &[Stmt], r: &str, out: &mut Vec<Span>) {
    for s in stmts {
        let hit = std::cell::Cell::new(false);
        let look = |e: &Expr| {
            e.walk(&mut |x| {
                if let Expr::Apply { name, args, .. } = x {
                    if matches!(name.as_str(), "allocated" | "move_alloc")
                        && args
                            .iter()
                            .any(|a| matches!(&a.value, Expr::Name(n, _) if n == r))
                    {
                        hit.set(true);
                    }
                }
            })
        };
        match &s.kind {
            StmtKind::Opaque {
                kind: OpaqueKind::Allocate,
                writes,
                ..
            } if writes
                .iter()
                .any(|w| matches!(w, Expr::Name(n, _) if n == r)) =>
            {
                hit.set(true)
            }
            StmtKind::Opaque { text, reads, .. } => {
                reads.iter().for_each(look);
                // `allocated(r)` or `move_alloc(..., r)` in verbatim text.
                let t = text.to_ascii_lowercase().replace(' ', "");
                if (t.contains("allocated(") || t.contains("move_alloc("))
                    && t.contains(&r.to_ascii_lowercase())
                {
                    hit.set(true);
                }
            }
            StmtKind::Assign { lhs, rhs } => {
                look(lhs);
                look(rhs);
            }
            StmtKind::Call { name, args } => {
                if name == "move_alloc"
                    && args
                        .iter()
                        .any(|a| matches!(&a.value, Expr::Name(n, _) if n == r))
                {
                    hit.set(true);
                }
                args.iter().for_each(|a| look(&a.value));
            }
            StmtKind::If { arms, otherwise } => {
                for (c, b) in arms {
                    look(c);
                    collect_allocation_uses(b, r, out);
                }
                if let Some(b) = otherwise {
                    collect_allocation_uses(b, r, out);
                }
            }
            StmtKind::Do { body, .. } | StmtKind::Forall { body, .. } => {
                collect_allocation_uses(body, r, out)
            }
            StmtKind::DoWhile { cond, body, .. } => {
                look(cond);
                collect_allocation_uses(body, r, out);
            }
            StmtKind::Select { selector, cases } => {
                look(selector);
                for c in cases {
                    collect_allocation_uses(&c.body, r, out);
                }
            }
            StmtKind::Where { arms } => {
                for (_, b) in arms {
                    collect_allocation_uses(b, r, out);
                }
            }
            _ => {}
        }
        if hit.get() {
            out.push(s.span);
        }
    }
}
