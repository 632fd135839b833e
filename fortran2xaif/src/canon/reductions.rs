//! Reductions (`sum`, `product`, `maxval`, `minval`, `dot_product`) over real
//! data become a scalar temporary accumulated in a loop, and `matmul` a
//! loop nest with an inner accumulation, so that the booster differentiates
//! plain scalar statements. On passive data the intrinsic stays, opaque.

use crate::ast::*;
use crate::sema::Cat;
use crate::unparse;

use super::{bin, name, offset, stmt, Canon, View};

impl Canon<'_> {
    /// sum / product / maxval / minval / dot_product over real data become a
    /// scalar temporary computed by a loop.
    pub(super) fn reduction(
        &mut self,
        n: &str,
        args: Vec<Arg>,
        span: Span,
        out: &mut Vec<Stmt>,
    ) -> FrontResult<Expr> {
        if args.iter().any(|a| {
            a.keyword
                .as_deref()
                .is_some_and(|k| k != "array" && k != "vector_a" && k != "vector_b")
        }) || (n != "dot_product" && args.len() > 1)
        {
            return self.err(span, format!("unsupported construct: {n} with dim or mask"));
        }
        let mut vals = Vec::new();
        for a in args {
            vals.push(self.value(a.value, out)?);
        }
        let e_ty = self.ty(&Expr::Apply {
            name: n.to_string(),
            args: vals
                .iter()
                .map(|v| Arg {
                    keyword: None,
                    value: v.clone(),
                })
                .collect(),
            span,
        });
        let arg_cat = vals.first().map(|v| self.ty(v).cat).unwrap_or(Cat::Unknown);
        if !arg_cat.is_real() {
            // Passive data: keep the intrinsic, opaque.
            let e = Expr::Apply {
                name: n.to_string(),
                args: vals
                    .into_iter()
                    .map(|v| Arg {
                        keyword: None,
                        value: v,
                    })
                    .collect(),
                span,
            };
            let t = self.temp(e_ty.cat, span)?;
            out.push(stmt(
                StmtKind::Opaque {
                    kind: OpaqueKind::PassiveAssign,
                    text: format!("{t} = {}", unparse::expr(&e)),
                    reads: vec![e],
                    writes: vec![name(&t, span)],
                },
                span,
            ));
            return Ok(name(&t, span));
        }
        let elem_src = if n == "dot_product" {
            if vals.len() != 2 {
                return self.err(span, "dot_product needs two arguments");
            }
            bin(BinOp::Mul, vals[0].clone(), vals[1].clone(), span)
        } else {
            vals[0].clone()
        };
        // The iteration space comes from the first array operand.
        let mut first_view = None;
        let mut search_err = None;
        elem_src.walk(&mut |x| {
            if first_view.is_none() && search_err.is_none() {
                match self.view(x) {
                    Ok(Some(v)) => first_view = Some(v),
                    Ok(None) => {}
                    Err(e) => search_err = Some(e),
                }
            }
        });
        if let Some(e) = search_err {
            return Err(e);
        }
        let view = first_view.ok_or_else(|| FrontError::new(span, format!("{n} of a scalar")))?;
        let space: Vec<(Expr, Expr, Option<Expr>)> = view
            .ranges()
            .into_iter()
            .map(|(l, h, s)| (l.clone(), h.clone(), s.cloned()))
            .collect();
        let t = self.temp(e_ty.cat, span)?;
        let tn = name(&t, span);
        let vars: Vec<String> = (0..space.len()).map(|_| self.loop_var(span)).collect();
        let idx: Vec<Expr> = vars.iter().map(|v| name(v, span)).collect();
        let el = self.elementwise(&elem_src, &idx, &space)?;
        let (init, upd) = match n {
            "sum" | "dot_product" => (Expr::int(0, span), bin(BinOp::Add, tn.clone(), el, span)),
            "product" => (Expr::int(1, span), bin(BinOp::Mul, tn.clone(), el, span)),
            "maxval" | "minval" => {
                let lows: Vec<Expr> = space.iter().map(|(l, _, _)| l.clone()).collect();
                let first = self.elementwise(&elem_src, &lows, &space)?;
                let f = if n == "maxval" { "max" } else { "min" };
                (
                    first,
                    Expr::Apply {
                        name: f.into(),
                        args: vec![
                            Arg {
                                keyword: None,
                                value: tn.clone(),
                            },
                            Arg {
                                keyword: None,
                                value: el,
                            },
                        ],
                        span,
                    },
                )
            }
            _ => return self.err(span, format!("internal error: reduction {n}")),
        };
        out.push(stmt(
            StmtKind::Assign {
                lhs: tn.clone(),
                rhs: init,
            },
            span,
        ));
        let body = vec![stmt(
            StmtKind::Assign {
                lhs: tn.clone(),
                rhs: upd,
            },
            span,
        )];
        out.extend(self.loops(&vars, &space, body, span));
        Ok(tn)
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
                return self.err(
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
