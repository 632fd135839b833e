//! Intrinsics on real data that are not in the booster's catalogue,
//! written with what is: `merge(tsource, fsource, mask)` becomes a
//! temporary assigned in an `if` on the (passive) mask, so the derivative
//! is the chosen branch's (on arrays, a temporary array filled element by
//! element); `norm2(x[, dim])` becomes `sqrt(sum(x**2[, dim]))`.
//! (`dim`, `modulo` and `hypot` have catalogue entries of their own.)

use crate::ast::*;

use crate::sema::Cat;

use super::{intrinsic_arg, name, stmt, Canon, ElementwiseTemporary, Space};

impl Canon<'_> {
    /// `norm2(x[, dim])` as `sqrt(sum(x**2[, dim]))`.
    pub(super) fn norm2_as_sum(&self, args: &[Arg], span: Span) -> FrontResult<Expr> {
        let Some(x) = intrinsic_arg(args, "x", 0) else {
            return self.err(span, "norm2 without an argument");
        };
        let mut sum_args = vec![Arg {
            keyword: None,
            value: Expr::Binary(BinOp::Pow, Box::new(x), Box::new(Expr::int(2, span)), span),
        }];
        if let Some(d) = intrinsic_arg(args, "dim", 1) {
            sum_args.push(Arg {
                keyword: Some("dim".into()),
                value: d,
            });
        }
        Ok(Expr::Apply {
            name: "sqrt".into(),
            args: vec![Arg {
                keyword: None,
                value: Expr::Apply {
                    name: "sum".into(),
                    args: sum_args,
                    span,
                },
            }],
            span,
        })
    }

    /// The arguments `(tsource, fsource, mask)` of a `merge` reference.
    fn merge_args(&self, args: &[Arg], span: Span) -> FrontResult<(Expr, Expr, Expr)> {
        match (
            intrinsic_arg(args, "tsource", 0),
            intrinsic_arg(args, "fsource", 1),
            intrinsic_arg(args, "mask", 2),
        ) {
            (Some(t), Some(f), Some(m)) => Ok((t, f, m)),
            _ => self.err(span, "merge needs tsource, fsource and mask"),
        }
    }

    /// Scalar real `merge` with canonical arguments: `if (mask) then tmp =
    /// tsource else tmp = fsource`.
    pub(super) fn merge_scalar(
        &mut self,
        args: &[Arg],
        cat: crate::sema::Cat,
        span: Span,
        out: &mut Vec<Stmt>,
    ) -> FrontResult<Expr> {
        let (t, f, m) = self.merge_args(args, span)?;
        let tmp = self.temp(cat, span)?;
        out.push(if_else(m, name(&tmp, span), t, f, span));
        Ok(name(&tmp, span))
    }

    /// Elemental real `merge` on arrays (arguments already through
    /// `value_array`): a temporary array filled element by element in an
    /// `if` on the mask's element; its name.
    pub(super) fn merge_array(
        &mut self,
        merge: Expr,
        span: Span,
        out: &mut Vec<Stmt>,
    ) -> FrontResult<Expr> {
        let Expr::Apply { ref args, .. } = merge else {
            unreachable!("a merge reference")
        };
        let (t, f, m) = self.merge_args(args, span)?;
        let space = self.space_of(&merge)?;
        let cat = self.ty(&merge).cat;
        let ElementwiseTemporary {
            view: tview,
            space: tspace,
            vars,
            target,
            operand_idx: src_idx,
        } = self.elementwise_temporary(cat, &space, span, out)?;
        let el = |c: &Self, e: &Expr| -> FrontResult<Expr> {
            if c.ty(e).rank > 0 {
                c.elementwise(e, &src_idx, &space)
            } else {
                Ok(e.clone())
            }
        };
        let body = vec![if_else(
            el(self, &m)?,
            target,
            el(self, &t)?,
            el(self, &f)?,
            span,
        )];
        out.extend(self.loops(&vars, &tspace, body, span));
        Ok(name(&tview.name, span))
    }

    /// A 1-based temporary array with the extents of `space` (an array
    /// operand's index ranges), to be filled element by element: its view
    /// and index space, the loop variables, its element at the loop point
    /// and the operands' subscripts at that point.
    pub(super) fn elementwise_temporary(
        &mut self,
        cat: Cat,
        space: &Space,
        span: Span,
        out: &mut Vec<Stmt>,
    ) -> FrontResult<ElementwiseTemporary> {
        let extents: Vec<Expr> = space
            .iter()
            .map(|(lo, hi, st)| super::trip_count(lo, hi, st.as_ref(), span))
            .collect();
        let (view, tspace) = self.new_temp_array(cat, &extents, span, out)?;
        let vars: Vec<String> = (0..tspace.len()).map(|_| self.loop_var(span)).collect();
        let idx: Vec<Expr> = vars.iter().map(|v| name(v, span)).collect();
        let target = self.element(&view, &idx, &tspace, span)?;
        // The operands' indices from the temporary's 1-based ones.
        let operand_idx = space
            .iter()
            .zip(&idx)
            .map(|((lo, _, st), i)| {
                if lo.const_int() == Some(1) && st.is_none() {
                    return i.clone();
                }
                let off = super::bin(BinOp::Sub, i.clone(), Expr::int(1, span), span);
                let off = match st {
                    Some(s) => super::bin(BinOp::Mul, super::paren(off, span), s.clone(), span),
                    None => off,
                };
                super::bin(BinOp::Add, lo.clone(), super::paren(off, span), span)
            })
            .collect();
        Ok(ElementwiseTemporary {
            view,
            space: tspace,
            vars,
            target,
            operand_idx,
        })
    }
}

/// `if (mask) then target = t else target = f end if`.
fn if_else(mask: Expr, target: Expr, t: Expr, f: Expr, span: Span) -> Stmt {
    let assign = |rhs| {
        stmt(
            StmtKind::Assign {
                lhs: target.clone(),
                rhs,
            },
            span,
        )
    };
    stmt(
        StmtKind::If {
            arms: vec![(mask, vec![assign(t)])],
            otherwise: Some(vec![assign(f)]),
        },
        span,
    )
}
