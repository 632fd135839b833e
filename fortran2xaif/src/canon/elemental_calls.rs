//! User `elemental` procedures applied to arrays: a function reference
//! `f(a, s)` with an array `a` becomes a temporary array filled in a loop
//! nest, one scalar call per element (`tmp(k) = f(a(k), s)`, then through
//! `function_call` as any scalar reference); a `call e(a, b)` with array
//! actuals becomes the loop nest of scalar calls. Scalar actuals are
//! evaluated once, before the loops. The scalar calls see one element each,
//! so the analyses and the derivative code need nothing elemental: the
//! canonical source drops the `elemental` and `pure` prefixes (derivative
//! code pushes to the tape, which a pure procedure may not).

use crate::ast::*;
use crate::sema::Binding;

use super::{name, stmt, Canon, ElementwiseTemporary};

impl Canon<'_> {
    /// Whether `callee` names a user procedure declared `elemental`.
    pub(super) fn user_elemental(&self, callee: &str) -> Option<usize> {
        match self.prog.resolve(self.unit, callee) {
            Some(Binding::Proc(p)) if self.prog.units[p].is_elemental() => Some(p),
            _ => None,
        }
    }

    /// `f(args)`, `f` a user elemental function and some argument an
    /// array: the name of a temporary array holding `f` of every element.
    pub(super) fn elemental_function_array(
        &mut self,
        p: usize,
        args: Vec<Arg>,
        span: Span,
        out: &mut Vec<Stmt>,
    ) -> FrontResult<Expr> {
        let cat = {
            let u = &self.prog.units[p];
            let rname = u.ast.result.clone().unwrap_or_else(|| u.ast.name.clone());
            let rsym = u
                .lookup_local(&rname)
                .ok_or_else(|| FrontError::new(span, "function without a result variable"))?;
            self.prog.cat_of(p, &u.symbols[rsym].ty.clone())
        };
        let (args, space) = self.elemental_operands(args, span, out)?;
        let ElementwiseTemporary {
            view,
            space: tspace,
            vars,
            target,
            operand_idx,
        } = self.elementwise_temporary(cat, &space, span, out)?;
        let element_args = self.element_args(&args, &operand_idx, &space)?;
        let mut body = Vec::new();
        let value = self.function_call(p, element_args, span, &mut body)?;
        body.push(stmt(
            StmtKind::Assign {
                lhs: target,
                rhs: value,
            },
            span,
        ));
        out.extend(self.loops(&vars, &tspace, body, span));
        Ok(name(&view.name, span))
    }

    /// `call e(args)`, `e` a user elemental subroutine and some actual an
    /// array: a loop nest of scalar calls, element by element.
    pub(super) fn elemental_subroutine_call(
        &mut self,
        callee: String,
        args: Vec<Arg>,
        span: Span,
        out: &mut Vec<Stmt>,
    ) -> FrontResult<()> {
        let (args, space) = self.elemental_operands(args, span, out)?;
        let vars: Vec<String> = (0..space.len()).map(|_| self.loop_var(span)).collect();
        let idx: Vec<Expr> = vars.iter().map(|v| name(v, span)).collect();
        let element_args = self.element_args(&args, &idx, &space)?;
        let mut body = Vec::new();
        self.call(callee, element_args, span, &mut body)?;
        out.extend(self.loops(&vars, &space, body, span));
        Ok(())
    }

    /// The actuals of an elemental reference with array operands
    /// canonicalised (scalars evaluated once) and the index ranges of the
    /// first array operand, which the others conform to.
    fn elemental_operands(
        &mut self,
        args: Vec<Arg>,
        span: Span,
        out: &mut Vec<Stmt>,
    ) -> FrontResult<(Vec<Arg>, super::Space)> {
        let mut canonical = Vec::new();
        for a in args {
            let value = if self.ty(&a.value).rank > 0 {
                self.value_array(a.value, out)?
            } else {
                self.value(a.value, out)?
            };
            canonical.push(Arg {
                keyword: a.keyword,
                value,
            });
        }
        let Some(first) = canonical.iter().find(|a| self.ty(&a.value).rank > 0) else {
            return self.err(span, "internal error: elemental reference without an array");
        };
        let space = self.space_of(&first.value)?;
        Ok((canonical, space))
    }

    /// The actuals at one point `idx` of `space`: array operands' elements,
    /// scalars as they are.
    fn element_args(
        &self,
        args: &[Arg],
        idx: &[Expr],
        space: &super::Space,
    ) -> FrontResult<Vec<Arg>> {
        args.iter()
            .map(|a| {
                let value = if self.ty(&a.value).rank > 0 {
                    self.elementwise(&a.value, idx, space)?
                } else {
                    a.value.clone()
                };
                Ok(Arg {
                    keyword: a.keyword.clone(),
                    value,
                })
            })
            .collect()
    }
}
