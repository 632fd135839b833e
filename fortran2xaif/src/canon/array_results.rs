//! Array-valued user functions (`function lap(u) result(r); real(8) ::
//! r(size(u))`). The function is a subroutine whose last argument is the
//! result, like any user function (`calls.rs`); what is particular is the
//! caller's temporary, which must have the result's shape. The result's
//! declared extents are expressions of the callee's dummies: they are
//! rewritten at the call, with the actual arguments for the dummies
//! (`size(u)` becomes the extent of the actual's section), so the
//! temporary is automatic when that is a specification expression of the
//! caller and allocatable otherwise. An allocatable result becomes an
//! allocatable temporary the callee allocates (its dummy is allocatable),
//! released after the statement.

use crate::ast::*;
use crate::sema::{Binding, Cat};

use super::{extent, Canon};

impl Canon<'_> {
    /// A temporary for the result (symbol `rsym`) of array-valued function
    /// `p` called with the canonical `actuals`; its name.
    pub(super) fn array_result_temp(
        &mut self,
        p: usize,
        rsym: usize,
        actuals: &[Arg],
        span: Span,
        out: &mut Vec<Stmt>,
    ) -> FrontResult<String> {
        let callee = &self.prog.units[p];
        let fname = callee.ast.name.clone();
        let result = callee.symbols[rsym].clone();
        let cat = self.prog.cat_of(p, &result.ty);
        if !matches!(cat, Cat::Real(_) | Cat::Int | Cat::Logical) {
            return self.err_unsupported(
                span,
                format!("unsupported construct: array-valued function '{fname}' whose result is not real, integer or logical"),
            );
        }
        if result.pointer {
            return self.err_unsupported(
                span,
                format!("unsupported construct: function '{fname}' returning an array pointer"),
            );
        }
        let dims = result.dims.clone().unwrap_or_default();
        if result.allocatable {
            let t = self.temp(cat, span)?;
            let unit = &mut self.prog.units[self.unit];
            let k = unit.lookup_local(&t).expect("temp just added");
            unit.symbols[k].dims = Some(dims.iter().map(|_| DimSpec::Colon { lo: None }).collect());
            unit.symbols[k].allocatable = true;
            // Released after the statement, so that the next call finds it
            // unallocated and the adjoint modes replay it like any
            // allocation.
            self.pending_dealloc.push(super::stmt(
                StmtKind::Opaque {
                    kind: OpaqueKind::Allocate,
                    text: format!("deallocate({t})"),
                    reads: vec![],
                    writes: vec![super::name(&t, span)],
                },
                span,
            ));
            return Ok(t);
        }
        // Actual argument of each dummy, in the dummies' order.
        let params = callee.ast.params.clone();
        let mut bound: Vec<Option<Expr>> = vec![None; params.len()];
        for (position, a) in actuals.iter().enumerate() {
            let k = match &a.keyword {
                Some(kw) => params.iter().position(|d| d == kw),
                None => Some(position),
            };
            if let Some(k) = k.filter(|&k| k < bound.len()) {
                bound[k] = Some(a.value.clone());
            }
        }
        let mut extents = Vec::new();
        for d in &dims {
            let DimSpec::Explicit { lo, hi } = d else {
                return self.err_unsupported(
                    span,
                    format!("unsupported construct: array-valued function '{fname}' whose result has neither explicit nor deferred (allocatable) shape"),
                );
            };
            let hi = self.at_call(p, &fname, hi, &params, &bound, span)?;
            let e = match lo {
                None => hi,
                Some(lo) => {
                    let lo = self.at_call(p, &fname, lo, &params, &bound, span)?;
                    extent(&lo, &hi, span)
                }
            };
            extents.push(e);
        }
        let space: Vec<(Expr, Expr, Option<Expr>)> = extents
            .into_iter()
            .map(|e| (Expr::int(1, span), e, None))
            .collect();
        let (t, dealloc) = self.temp_array(cat, &space, span, out)?;
        self.pending_dealloc.extend(dealloc);
        Ok(t)
    }

    /// Bound `e` of the result of function `p`, as the caller computes it:
    /// dummies replaced by their actual arguments, `size` of an array dummy
    /// by the extent of the actual, callee constants by their values.
    fn at_call(
        &self,
        p: usize,
        fname: &str,
        e: &Expr,
        params: &[String],
        bound: &[Option<Expr>],
        span: Span,
    ) -> FrontResult<Expr> {
        let refusal = |what: String| {
            FrontError::unsupported(
                span,
                format!("unsupported construct: the result shape of array-valued function '{fname}' depends on {what}, which the caller cannot evaluate"),
            )
        };
        let refuse = |what: String| -> FrontResult<Expr> { Err(refusal(what)) };
        let actual = |n: &str| -> Option<FrontResult<Expr>> {
            let k = params.iter().position(|d| d == n)?;
            Some(
                bound[k]
                    .clone()
                    .ok_or_else(|| refusal(format!("the absent argument '{n}'"))),
            )
        };
        match e {
            Expr::Lit(..) => Ok(e.clone()),
            Expr::Name(n, sp) => {
                if let Some(a) = actual(n) {
                    return a.map(|v| super::paren(v, *sp));
                }
                let here = self.prog.resolve(p, n);
                if matches!(here, Some(Binding::Var { .. }))
                    && self.prog.resolve(self.unit, n) == here
                {
                    return Ok(e.clone());
                }
                match self.prog.const_int(p, e) {
                    Some(c) => Ok(Expr::int(c, *sp)),
                    None => refuse(format!("'{n}'")),
                }
            }
            Expr::Unary(op, x, sp) => Ok(Expr::Unary(
                *op,
                Box::new(self.at_call(p, fname, x, params, bound, span)?),
                *sp,
            )),
            Expr::Paren(x, sp) => Ok(Expr::Paren(
                Box::new(self.at_call(p, fname, x, params, bound, span)?),
                *sp,
            )),
            Expr::Binary(op, l, r, sp) => Ok(Expr::Binary(
                *op,
                Box::new(self.at_call(p, fname, l, params, bound, span)?),
                Box::new(self.at_call(p, fname, r, params, bound, span)?),
                *sp,
            )),
            Expr::Apply {
                name: n,
                args,
                span: sp,
            } if matches!(self.prog.resolve(p, n), Some(Binding::Intrinsic) | None) => {
                let array_dummy = args.first().and_then(|a| match &a.value {
                    Expr::Name(d, _) => actual(d).map(|v| (d.clone(), v)),
                    _ => None,
                });
                match (n.as_str(), array_dummy) {
                    ("size", Some((_, Ok(v)))) if self.ty(&v).rank > 0 => {
                        let which = match args.get(1) {
                            None => None,
                            Some(a) => match self.prog.const_int(p, &a.value) {
                                Some(d) => Some(d),
                                None => return refuse("a non-constant 'dim' of size".into()),
                            },
                        };
                        self.size_at_call(&v, which, *sp)
                    }
                    ("lbound" | "ubound", Some((d, _))) => {
                        refuse(format!("the bounds of dummy argument '{d}'"))
                    }
                    (_, Some((_, Err(e)))) => Err(e),
                    _ => {
                        let mut new = Vec::new();
                        for a in args {
                            new.push(Arg {
                                keyword: a.keyword.clone(),
                                value: self.at_call(p, fname, &a.value, params, bound, span)?,
                            });
                        }
                        Ok(Expr::Apply {
                            name: n.clone(),
                            args: new,
                            span: *sp,
                        })
                    }
                }
            }
            _ => refuse(format!("'{}'", crate::unparse::expr(e))),
        }
    }

    /// `size(v)` or `size(v, dim)` of the caller's array `v`, from its
    /// index space (constant when `v`'s extents are).
    fn size_at_call(&self, v: &Expr, dim: Option<i64>, span: Span) -> FrontResult<Expr> {
        let space = self.space_of(v)?;
        let extents: Vec<Expr> = space
            .iter()
            .map(|(lo, hi, st)| super::trip_count(lo, hi, st.as_ref(), span))
            .collect();
        let e = match dim {
            Some(d) if d >= 1 && (d as usize) <= extents.len() => extents[d as usize - 1].clone(),
            Some(_) => return self.err(span, "size: 'dim' out of range"),
            None => extents
                .into_iter()
                .reduce(|a, b| {
                    super::bin(
                        BinOp::Mul,
                        super::paren(a, span),
                        super::paren(b, span),
                        span,
                    )
                })
                .unwrap_or_else(|| Expr::int(1, span)),
        };
        Ok(match self.prog.const_int(self.unit, &e) {
            Some(c) => Expr::int(c, span),
            None => super::paren(e, span),
        })
    }
}
