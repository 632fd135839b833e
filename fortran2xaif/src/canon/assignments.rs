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
        if lt.cat == Cat::Derived {
            let paths = self.component_paths_of(&lhs);
            // Types without real components stay opaque (below).
            if !paths.is_empty() && self.is_structure_constructor(&rhs) {
                return self.construct(lhs, rhs, span, out);
            }
            if !paths.is_empty() && self.is_constructor_of_structures(&rhs) {
                return self.construct_elements(lhs, rhs, span, out);
            }
            if !paths.is_empty() {
                return self.derived_assign(lhs, rhs, lt, paths, span, out);
            }
        }
        if lt.cat == Cat::Complex(8) && self.is_complex_parts_target(&lhs) {
            return self.complex_assign(lhs, rhs, span, out);
        }
        let rhs = if lt.cat.is_real() {
            self.lower_complex_reads(rhs, out)?
        } else {
            rhs
        };
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

    pub(super) fn passive_assign(
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
                return self.err_unsupported(
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
                    let cat = self.prog.cat_of(o, &s.ty);
                    // complex(8) variables carry derivatives in their parts.
                    if !s.parameter && (cat.is_real() || self.is_complex_parts_target(e)) {
                        let what = if cat.is_real() { "real" } else { "complex(8)" };
                        real_source = Some((n.clone(), *sp, what));
                    }
                }
            }
        });
        if let Some((n, sp, what)) = real_source {
            // An integer, logical or character component takes no
            // derivative, as any other variable of those types.
            if matches!(lt.cat, Cat::Complex(_) | Cat::Derived)
                || (matches!(lhs, Expr::Member { .. }) && lt.cat.is_real())
            {
                return self.err_unsupported(
                    sp,
                    format!(
                        "unsupported construct: {what} variable '{n}' flows into {}, which is passive (derivatives would be lost)",
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

    /// The component paths (`components.rs`) of a derived-type variable
    /// named by `e`, as (owner's name, local name) suffixes after the base.
    fn component_paths_of(&self, e: &Expr) -> Vec<String> {
        let Expr::Name(n, _) = e else {
            // Elements and components of derived type: checked by the
            // caller when their type has real components.
            return match self.ty(e).cat {
                Cat::Derived => self.component_paths_of_type(e),
                _ => vec![],
            };
        };
        let Some((owner, sym)) = self.prog.var(self.unit, n) else {
            return vec![];
        };
        let base = self.prog.symbol(owner, sym).name.clone();
        self.prog.units[owner]
            .symbols
            .iter()
            .filter(|s| s.component.as_ref().is_some_and(|c| c.parts[0].0 == base))
            .map(|s| s.name[base.len()..].to_string())
            .collect()
    }

    /// A marker list for derived-type expressions other than variables:
    /// non-empty when their type has real components.
    fn component_paths_of_type(&self, e: &Expr) -> Vec<String> {
        let mut root = e;
        while let Expr::Member { base, .. } | Expr::Paren(base, _) = root {
            root = base;
        }
        let name = match root {
            Expr::Name(n, _) | Expr::Apply { name: n, .. } => n,
            _ => return vec![],
        };
        match self.prog.var(self.unit, name) {
            Some((owner, sym)) => {
                let base = self.prog.symbol(owner, sym).name.clone();
                self.prog.units[owner]
                    .symbols
                    .iter()
                    .filter(|s| s.component.as_ref().is_some_and(|c| c.parts[0].0 == base))
                    .map(|_| String::new())
                    .collect()
            }
            None => vec![],
        }
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
                if let Some(n) = self.prog.intrinsic_ref(self.unit, x) {
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
