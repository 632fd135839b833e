//! Statement functions are expanded in place (parenthesised actual
//! arguments substituted for the dummies) before anything else, so that the
//! rest of the pass and the booster never see them.

use crate::ast::*;
use crate::sema::Binding;

use super::Canon;

impl Canon<'_> {
    pub(super) fn expand_stmt_functions_in(&self, body: Vec<Stmt>) -> FrontResult<Vec<Stmt>> {
        let has_any = self.prog.units[self.unit]
            .ast
            .spec
            .iter()
            .any(|s| matches!(s, SpecStmt::StmtFunction { .. }));
        if !has_any {
            return Ok(body);
        }
        let mut out = Vec::new();
        for mut s in body {
            map_stmt_exprs(&mut s, &mut |e| self.expand_sf(e, 0))?;
            out.push(s);
        }
        Ok(out)
    }

    fn expand_sf(&self, e: &mut Expr, depth: usize) -> FrontResult<()> {
        if depth > 50 {
            return self.err(e.span(), "statement functions nest too deeply");
        }
        if let Expr::Apply { name, args, span } = e {
            if let Some(Binding::StmtFunction(owner, k)) = self.prog.resolve(self.unit, name) {
                let SpecStmt::StmtFunction { params, body, .. } =
                    &self.prog.units[owner].ast.spec[k]
                else {
                    return self.err(*span, "internal error: statement function");
                };
                if params.len() != args.len() {
                    return self.err(
                        *span,
                        format!(
                            "statement function '{name}' takes {} arguments",
                            params.len()
                        ),
                    );
                }
                for a in args.iter_mut() {
                    self.expand_sf(&mut a.value, depth + 1)?;
                }
                let mut b = body.clone();
                substitute(&mut b, params, args);
                self.expand_sf(&mut b, depth + 1)?;
                *e = Expr::Paren(Box::new(b), *span);
                return Ok(());
            }
        }
        match e {
            Expr::Apply { args, .. } => args
                .iter_mut()
                .try_for_each(|a| self.expand_sf(&mut a.value, depth + 1)),
            Expr::Member { base, args, .. } => {
                self.expand_sf(base, depth + 1)?;
                if let Some(a) = args {
                    a.iter_mut()
                        .try_for_each(|a| self.expand_sf(&mut a.value, depth + 1))?;
                }
                Ok(())
            }
            Expr::Unary(_, x, _) | Expr::Paren(x, _) => self.expand_sf(x, depth + 1),
            Expr::Binary(_, l, r, _) => {
                self.expand_sf(l, depth + 1)?;
                self.expand_sf(r, depth + 1)
            }
            Expr::Range { lo, hi, stride, .. } => {
                for x in [lo, hi, stride].into_iter().flatten() {
                    self.expand_sf(x, depth + 1)?;
                }
                Ok(())
            }
            Expr::ArrayCtor(items, _) => items
                .iter_mut()
                .try_for_each(|x| self.expand_sf(x, depth + 1)),
            Expr::ImpliedDo { items, control, .. } => {
                items
                    .iter_mut()
                    .try_for_each(|x| self.expand_sf(x, depth + 1))?;
                for x in [
                    Some(&mut control.lo),
                    Some(&mut control.hi),
                    control.step.as_mut(),
                ]
                .into_iter()
                .flatten()
                {
                    self.expand_sf(x, depth + 1)?;
                }
                Ok(())
            }
            Expr::Lit(..) | Expr::Name(..) => Ok(()),
        }
    }
}

/// Replaces dummy names by (parenthesised) actual arguments.
fn substitute(e: &mut Expr, params: &[String], args: &[Arg]) {
    match e {
        Expr::Name(n, sp) => {
            if let Some(k) = params.iter().position(|p| p == n) {
                *e = Expr::Paren(Box::new(args[k].value.clone()), *sp);
            }
        }
        Expr::Apply { args: a, .. } => a
            .iter_mut()
            .for_each(|x| substitute(&mut x.value, params, args)),
        Expr::Member { base, args: a, .. } => {
            substitute(base, params, args);
            if let Some(a) = a {
                a.iter_mut()
                    .for_each(|x| substitute(&mut x.value, params, args));
            }
        }
        Expr::Unary(_, x, _) | Expr::Paren(x, _) => substitute(x, params, args),
        Expr::Binary(_, l, r, _) => {
            substitute(l, params, args);
            substitute(r, params, args);
        }
        Expr::Range { lo, hi, stride, .. } => {
            for x in [lo, hi, stride].into_iter().flatten() {
                substitute(x, params, args);
            }
        }
        Expr::ArrayCtor(items, _) => items.iter_mut().for_each(|x| substitute(x, params, args)),
        Expr::ImpliedDo { items, control, .. } => {
            items.iter_mut().for_each(|x| substitute(x, params, args));
            for x in [
                Some(&mut control.lo),
                Some(&mut control.hi),
                control.step.as_mut(),
            ]
            .into_iter()
            .flatten()
            {
                substitute(x, params, args);
            }
        }
        Expr::Lit(..) => {}
    }
}

/// Applies `f` to every top-level expression of a statement, recursively.
pub(super) fn map_stmt_exprs(
    s: &mut Stmt,
    f: &mut dyn FnMut(&mut Expr) -> FrontResult<()>,
) -> FrontResult<()> {
    match &mut s.kind {
        StmtKind::Assign { lhs, rhs } => {
            f(lhs)?;
            f(rhs)
        }
        StmtKind::Call { args, .. } => args.iter_mut().try_for_each(|a| f(&mut a.value)),
        StmtKind::If { arms, otherwise } => {
            for (c, b) in arms {
                f(c)?;
                b.iter_mut().try_for_each(|s| map_stmt_exprs(s, f))?;
            }
            if let Some(b) = otherwise {
                b.iter_mut().try_for_each(|s| map_stmt_exprs(s, f))?;
            }
            Ok(())
        }
        StmtKind::Do { control, body, .. } => {
            if let Some(c) = control {
                f(&mut c.lo)?;
                f(&mut c.hi)?;
                if let Some(st) = &mut c.step {
                    f(st)?;
                }
            }
            body.iter_mut().try_for_each(|s| map_stmt_exprs(s, f))
        }
        StmtKind::DoWhile { cond, body, .. } => {
            f(cond)?;
            body.iter_mut().try_for_each(|s| map_stmt_exprs(s, f))
        }
        StmtKind::Where { arms } => {
            for (m, b) in arms {
                if let Some(m) = m {
                    f(m)?;
                }
                b.iter_mut().try_for_each(|s| map_stmt_exprs(s, f))?;
            }
            Ok(())
        }
        StmtKind::Forall {
            controls,
            mask,
            body,
        } => {
            for c in controls {
                f(&mut c.lo)?;
                f(&mut c.hi)?;
                if let Some(st) = &mut c.step {
                    f(st)?;
                }
            }
            if let Some(m) = mask {
                f(m)?;
            }
            body.iter_mut().try_for_each(|s| map_stmt_exprs(s, f))
        }
        StmtKind::Select { selector, cases } => {
            f(selector)?;
            for c in cases {
                c.body.iter_mut().try_for_each(|s| map_stmt_exprs(s, f))?;
            }
            Ok(())
        }
        _ => Ok(()),
    }
}
