//! Assignments: scalar real assignments stay in the numerical core; what
//! the booster must not see (character, complex, derived-type data, passive
//! values computed with intrinsics outside the catalogue) becomes an opaque
//! statement, after checking that no real data flows into passive storage,
//! where derivatives would be lost silently.

use crate::ast::*;
use crate::intrinsics::{self, REDUCTIONS};
use crate::sema::{Binding, Cat, Ty};
use crate::unparse;

use super::{first_user_call, stmt, Canon};

impl Canon<'_> {
    pub(super) fn assign(
        &mut self,
        lhs: Expr,
        rhs: Expr,
        span: Span,
        out: &mut Vec<Stmt>,
    ) -> FrontResult<()> {
        let lt = self.ty(&lhs);
        let target_name = match &lhs {
            Expr::Name(n, _) | Expr::Apply { name: n, .. } => Some(n.clone()),
            _ => None,
        };
        if let Some(n) = &target_name {
            match self.prog.resolve(self.unit, n) {
                Some(Binding::Var { owner, sym }) => {
                    if self.prog.symbol(owner, sym).parameter {
                        return self.err(span, format!("assignment to parameter '{n}'"));
                    }
                }
                Some(Binding::Proc(p))
                    if self.prog.units[p].ast.result.as_deref() == Some(n.as_str()) => {}
                _ => return self.err(span, format!("'{n}' is not a variable")),
            }
        }
        // Passive data: character, logical-free derived, complex.
        if matches!(lhs, Expr::Member { .. })
            || matches!(lt.cat, Cat::Char | Cat::Derived | Cat::Complex(_))
        {
            return self.passive_assign(lhs, rhs, lt, span, out);
        }
        if lt.rank > 0
            && !lt.cat.is_real()
            && !self.xaif_expressible(&rhs)
            && first_user_call(self.prog, self.unit, &rhs).is_none()
        {
            return self.passive_assign(lhs, rhs, lt, span, out);
        }
        if lt.rank > 0 {
            return self.array_assign(lhs, rhs, span, out);
        }
        // Integer and logical targets whose right side uses intrinsics
        // outside the catalogue stay opaque.
        if !lt.cat.is_real()
            && !self.xaif_expressible(&rhs)
            && first_user_call(self.prog, self.unit, &rhs).is_none()
        {
            return self.passive_assign(lhs, rhs, lt, span, out);
        }
        let lhs = self.designator(lhs, out)?;
        let rhs = self.value(rhs, out)?;
        if self.ty(&rhs).rank > 0 {
            return self.err(span, "array value assigned to a scalar");
        }
        out.push(stmt(StmtKind::Assign { lhs, rhs }, span));
        Ok(())
    }

    /// `lhs = rhs` where `rhs` is already canonical.
    pub(super) fn assign_scalar(
        &mut self,
        lhs: Expr,
        rhs: Expr,
        span: Span,
        out: &mut Vec<Stmt>,
    ) -> FrontResult<()> {
        out.push(stmt(StmtKind::Assign { lhs, rhs }, span));
        Ok(())
    }

    fn passive_assign(
        &mut self,
        lhs: Expr,
        rhs: Expr,
        lt: Ty,
        span: Span,
        out: &mut Vec<Stmt>,
    ) -> FrontResult<()> {
        if let Some((f, sp)) = first_user_call(self.prog, self.unit, &rhs)
            .or_else(|| first_user_call(self.prog, self.unit, &lhs))
        {
            if lt.rank > 0 || !matches!(lt.cat, Cat::Int | Cat::Logical) {
                return self.err(
                    sp,
                    format!(
                        "unsupported construct: user function '{f}' in an assignment of {}",
                        describe(lt.cat)
                    ),
                );
            }
        }
        // Real data flowing into passive storage would lose derivatives.
        let mut real_source = None;
        rhs.walk(&mut |e| {
            if real_source.is_some() {
                return;
            }
            if let Expr::Name(n, sp)
            | Expr::Apply {
                name: n, span: sp, ..
            } = e
            {
                if let Some((o, k)) = self.prog.var(self.unit, n) {
                    let s = self.prog.symbol(o, k);
                    if !s.parameter && self.prog.cat_of(o, &s.ty).is_real() {
                        real_source = Some((n.clone(), *sp));
                    }
                }
            }
        });
        if let Some((n, sp)) = real_source {
            if matches!(lt.cat, Cat::Complex(_) | Cat::Derived)
                || matches!(lhs, Expr::Member { .. })
            {
                return self.err(
                    sp,
                    format!(
                        "unsupported construct: real variable '{n}' flows into {}, which is passive (derivatives would be lost)",
                        if matches!(lhs, Expr::Member { .. }) { "a derived-type component" } else { describe(lt.cat) }
                    ),
                );
            }
        }
        let text = format!("{} = {}", unparse::expr(&lhs), unparse::expr(&rhs));
        out.push(stmt(
            StmtKind::Opaque {
                kind: OpaqueKind::PassiveAssign,
                text,
                reads: vec![rhs],
                writes: vec![lhs],
            },
            span,
        ));
        Ok(())
    }

    /// Can the expression go into XAIF as it is (catalogue intrinsics only,
    /// no derived-type components)?
    fn xaif_expressible(&self, e: &Expr) -> bool {
        let mut ok = true;
        e.walk(&mut |x| match x {
            Expr::Member { .. } | Expr::ArrayCtor(..) => ok = false,
            Expr::Binary(BinOp::Concat, ..) => ok = false,
            Expr::Lit(Literal::Str(_) | Literal::Complex(_), _) => ok = false,
            Expr::Apply { .. } => {
                if let Some(n) = intrinsics::is_intrinsic_ref(self.prog, self.unit, x) {
                    if intrinsics::xaif_name(&n).is_none() && !REDUCTIONS.contains(&n.as_str()) {
                        ok = false;
                    }
                }
            }
            _ => {}
        });
        ok
    }
}

fn describe(c: Cat) -> &'static str {
    match c {
        Cat::Char => "character data",
        Cat::Derived => "derived-type data",
        Cat::Complex(_) => "complex data",
        Cat::Int => "integer",
        Cat::Logical => "logical",
        _ => "passive",
    }
}
