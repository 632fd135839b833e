//! Reductions (`sum`, `product`, `maxval`, `minval`, `dot_product`) over real
//! data become a scalar temporary accumulated in a loop, and `matmul` a
//! loop nest with an inner accumulation, so that the booster differentiates
//! plain scalar statements. On passive data the intrinsic stays, opaque.

use crate::ast::*;
use crate::sema::Cat;
use crate::unparse;

use super::{bin, intrinsic_arg, name, offset, stmt, trip_count, Canon, View};

impl Canon<'_> {
    /// sum / product / maxval / minval / dot_product over real data become a
    /// scalar temporary computed by a loop (a masked loop with `mask=`); with
    /// `dim=` on an array of rank 2 or more, an array temporary with one
    /// accumulation per element (`reduce_along`).
    pub(super) fn reduction(
        &mut self,
        n: &str,
        args: Vec<Arg>,
        span: Span,
        out: &mut Vec<Stmt>,
    ) -> FrontResult<Expr> {
        let (array, dim, mask) = if n == "dot_product" {
            if args.len() != 2
                || args.iter().any(|a| {
                    a.keyword
                        .as_deref()
                        .is_some_and(|k| k != "vector_a" && k != "vector_b")
                })
            {
                return self.err(span, "dot_product needs two arguments");
            }
            let a = self.value_array(args[0].value.clone(), out)?;
            let b = self.value_array(args[1].value.clone(), out)?;
            (bin(BinOp::Mul, a, b, span), None, None)
        } else {
            if let Some(bad) = args.iter().find(|a| {
                a.keyword
                    .as_deref()
                    .is_some_and(|k| !matches!(k, "array" | "dim" | "mask"))
            }) {
                return self.err_unsupported(
                    bad.value.span(),
                    format!("unsupported construct: {n} with this argument"),
                );
            }
            let array = intrinsic_arg(&args, "array", 0)
                .ok_or_else(|| FrontError::new(span, format!("{n} needs an array")))?;
            // A second positional argument is the mask when it is logical.
            let second = args
                .get(1)
                .filter(|a| a.keyword.is_none())
                .map(|a| &a.value);
            let second_is_mask = second.is_some_and(|e| self.ty(e).cat == Cat::Logical);
            let dim = args
                .iter()
                .find(|a| a.keyword.as_deref() == Some("dim"))
                .map(|a| a.value.clone())
                .or_else(|| second.filter(|_| !second_is_mask).cloned());
            let mask = args
                .iter()
                .find(|a| a.keyword.as_deref() == Some("mask"))
                .map(|a| a.value.clone())
                .or_else(|| second.filter(|_| second_is_mask).cloned())
                .or_else(|| {
                    args.get(2)
                        .filter(|a| a.keyword.is_none())
                        .map(|a| a.value.clone())
                });
            if self.ty(&array).cat.is_real() {
                let array = self.value_array(array, out)?;
                let mask = mask.map(|m| self.value_array(m, out)).transpose()?;
                (array, dim, mask)
            } else {
                return self.passive_reduction(n, args, span, out);
            }
        };
        let rank = self.ty(&array).rank;
        if rank == 0 {
            return self.err(span, format!("{n} of a scalar"));
        }
        let space = self.space_of(&array)?;
        if let Some(d) = dim {
            let d = self.dim_argument(&d, rank, n)?;
            if rank > 1 {
                return self.reduce_along(n, array, d, mask, &space, span, out);
            }
        }
        let cat = self.ty(&array).cat;
        let t = self.temp(cat, span)?;
        let tn = name(&t, span);
        let vars: Vec<String> = (0..space.len()).map(|_| self.loop_var(span)).collect();
        let idx: Vec<Expr> = vars.iter().map(|v| name(v, span)).collect();
        let el = self.elementwise(&array, &idx, &space)?;
        let init = match (n, &mask) {
            ("maxval" | "minval", None) => {
                let lows: Vec<Expr> = space.iter().map(|(l, _, _)| l.clone()).collect();
                self.elementwise(&array, &lows, &space)?
            }
            _ => reduction_start(n, cat, span),
        };
        out.push(stmt(
            StmtKind::Assign {
                lhs: tn.clone(),
                rhs: init,
            },
            span,
        ));
        let update = stmt(
            StmtKind::Assign {
                lhs: tn.clone(),
                rhs: reduction_step(n, tn.clone(), el, span),
            },
            span,
        );
        let body = match &mask {
            Some(m) => vec![stmt(
                StmtKind::If {
                    arms: vec![(self.elementwise(m, &idx, &space)?, vec![update])],
                    otherwise: None,
                },
                span,
            )],
            None => vec![update],
        };
        out.extend(self.loops(&vars, &space, body, span));
        Ok(tn)
    }

    /// `sum(a, dim=d[, mask=m])` etc. on an array of rank 2 or more: an
    /// array temporary over the other dimensions, each element accumulated
    /// by a loop along `d`.
    #[allow(clippy::too_many_arguments)]
    fn reduce_along(
        &mut self,
        n: &str,
        array: Expr,
        d: usize,
        mask: Option<Expr>,
        space: &[(Expr, Expr, Option<Expr>)],
        span: Span,
        out: &mut Vec<Stmt>,
    ) -> FrontResult<Expr> {
        let cat = self.ty(&array).cat;
        if d >= space.len() {
            return self.err(span, format!("{n}: dim={} is outside the array", d + 1));
        }
        let mut rest: Vec<(Expr, Expr, Option<Expr>)> = space.to_vec();
        let along = rest.remove(d);
        let extents: Vec<Expr> = rest
            .iter()
            .map(|(l, h, s)| trip_count(l, h, s.as_ref(), span))
            .collect();
        let (view, _) = self.new_temp_array(cat, &extents, span, out)?;
        let vars: Vec<String> = (0..rest.len()).map(|_| self.loop_var(span)).collect();
        let k = self.loop_var(span);
        let res_idx: Vec<Expr> = vars.iter().map(|v| name(v, span)).collect();
        let mut idx = res_idx.clone();
        idx.insert(d, name(&k, span));
        let el_t = self.element(&view, &res_idx, &rest, span)?;
        let el = self.elementwise(&array, &idx, space)?;
        let update = stmt(
            StmtKind::Assign {
                lhs: el_t.clone(),
                rhs: reduction_step(n, el_t.clone(), el, span),
            },
            span,
        );
        let update = match &mask {
            Some(m) => stmt(
                StmtKind::If {
                    arms: vec![(self.elementwise(m, &idx, space)?, vec![update])],
                    otherwise: None,
                },
                span,
            ),
            None => update,
        };
        let body = vec![
            stmt(
                StmtKind::Assign {
                    lhs: el_t,
                    rhs: reduction_start(n, cat, span),
                },
                span,
            ),
            stmt(
                StmtKind::Do {
                    construct: None,
                    control: Some(DoControl {
                        var: k,
                        lo: along.0,
                        hi: along.1,
                        step: along.2,
                    }),
                    body: vec![update],
                },
                span,
            ),
        ];
        out.extend(self.loops(&vars, &rest, body, span));
        Ok(name(&view.name, span))
    }

    /// A reduction of integer data stays the intrinsic, in an opaque
    /// statement (no derivatives flow through it).
    fn passive_reduction(
        &mut self,
        n: &str,
        args: Vec<Arg>,
        span: Span,
        out: &mut Vec<Stmt>,
    ) -> FrontResult<Expr> {
        let mut vals = Vec::new();
        for a in args {
            vals.push(Arg {
                keyword: a.keyword,
                value: self.value(a.value, out)?,
            });
        }
        let e = Expr::Apply {
            name: n.to_string(),
            args: vals,
            span,
        };
        let ty = self.ty(&e);
        if ty.rank > 0 {
            return self.err_unsupported(
                span,
                format!("unsupported construct: {n} with dim on integer data"),
            );
        }
        let t = self.temp(ty.cat, span)?;
        let reads = match &e {
            Expr::Apply { args, .. } => args.iter().map(|a| a.value.clone()).collect(),
            _ => Vec::new(),
        };
        out.push(stmt(
            StmtKind::Opaque {
                kind: OpaqueKind::PassiveAssign,
                text: format!("{t} = {}", unparse::expr(&e)),
                reads,
                writes: vec![name(&t, span)],
            },
            span,
        ));
        Ok(name(&t, span))
    }

    /// `c = matmul(a, b)` for array expressions `a` and `b`.
    pub(super) fn matmul(
        &mut self,
        args: Vec<Expr>,
        target: &View,
        space: &[(Expr, Expr, Option<Expr>)],
        span: Span,
        out: &mut Vec<Stmt>,
    ) -> FrontResult<()> {
        if args.len() != 2 {
            return self.err(span, "matmul needs two arguments");
        }
        for a in &args {
            let mut clash = false;
            a.walk(&mut |x| {
                if let Expr::Name(n, _) | Expr::Apply { name: n, .. } = x {
                    clash |= *n == target.name;
                }
            });
            if clash {
                return self.err_unsupported(
                    span,
                    "unsupported construct: matmul whose result overwrites an argument",
                );
            }
        }
        let (sa, sb) = (self.space_of(&args[0])?, self.space_of(&args[1])?);
        let vars: Vec<String> = (0..space.len()).map(|_| self.loop_var(span)).collect();
        let idx: Vec<Expr> = vars.iter().map(|v| name(v, span)).collect();
        let el_c = self.element(target, &idx, space, span)?;
        let k = self.loop_var(span);
        let kk = name(&k, span);
        let last_a = sa
            .len()
            .checked_sub(1)
            .ok_or_else(|| FrontError::new(span, "matmul of a scalar"))?;
        let b_first = offset(&sb[0].0, &kk, &sa[last_a].0, span);
        let (ia, ib) = match (sa.len(), sb.len()) {
            (2, 2) => (
                vec![offset(&sa[0].0, &idx[0], &space[0].0, span), kk.clone()],
                vec![b_first, offset(&sb[1].0, &idx[1], &space[1].0, span)],
            ),
            (2, 1) => (
                vec![offset(&sa[0].0, &idx[0], &space[0].0, span), kk.clone()],
                vec![b_first],
            ),
            (1, 2) => (
                vec![kk.clone()],
                vec![b_first, offset(&sb[1].0, &idx[0], &space[0].0, span)],
            ),
            _ => return self.err(span, "matmul needs rank-1 or rank-2 arrays"),
        };
        let ea = self.elementwise(&args[0], &ia, &sa)?;
        let eb = self.elementwise(&args[1], &ib, &sb)?;
        let acc = stmt(
            StmtKind::Assign {
                lhs: el_c.clone(),
                rhs: bin(
                    BinOp::Add,
                    el_c.clone(),
                    bin(BinOp::Mul, ea, eb, span),
                    span,
                ),
            },
            span,
        );
        let (klo, khi, _) = sa[last_a].clone();
        let body = vec![
            stmt(
                StmtKind::Assign {
                    lhs: el_c,
                    rhs: Expr::int(0, span),
                },
                span,
            ),
            stmt(
                StmtKind::Do {
                    construct: None,
                    control: Some(DoControl {
                        var: k,
                        lo: klo,
                        hi: khi,
                        step: None,
                    }),
                    body: vec![acc],
                },
                span,
            ),
        ];
        out.extend(self.loops(&vars, space, body, span));
        Ok(())
    }
}

/// The value a reduction starts from: 0 for sums, 1 for products, the
/// most negative (positive) number for maxval (minval), which is also
/// Fortran's result when the mask selects nothing.
fn reduction_start(n: &str, cat: Cat, span: Span) -> Expr {
    let huge = match cat {
        Cat::Real(4) => "3.4028235e38",
        _ => "1.7976931348623157d308",
    };
    match n {
        "product" => Expr::int(1, span),
        "maxval" => Expr::Unary(
            UnOp::Neg,
            Box::new(Expr::Lit(Literal::Real(huge.into()), span)),
            span,
        ),
        "minval" => Expr::Lit(Literal::Real(huge.into()), span),
        _ => Expr::int(0, span),
    }
}

/// `acc op el` for reduction `n`.
fn reduction_step(n: &str, acc: Expr, el: Expr, span: Span) -> Expr {
    match n {
        "product" => bin(BinOp::Mul, acc, el, span),
        "maxval" | "minval" => Expr::Apply {
            name: if n == "maxval" { "max" } else { "min" }.into(),
            args: vec![
                Arg {
                    keyword: None,
                    value: acc,
                },
                Arg {
                    keyword: None,
                    value: el,
                },
            ],
            span,
        },
        _ => bin(BinOp::Add, acc, el, span),
    }
}
