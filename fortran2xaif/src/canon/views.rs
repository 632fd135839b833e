//! Array operands as views: every section dimension made explicit (a fixed
//! subscript or a `lo:hi:stride` range with the declared bounds filled in),
//! so that scalarisation can address the element of any operand at a point
//! of the target's index space.

use crate::ast::*;

use super::{bin, name, strip, Canon, Sub, View};

impl Canon<'_> {
    /// Declared bounds of dimension `d` of array `n`.
    fn bounds(&self, n: &str, d: usize, span: Span) -> FrontResult<(Expr, Expr)> {
        let (o, k) = self
            .prog
            .var(self.unit, n)
            .ok_or_else(|| FrontError::new(span, format!("'{n}' is not an array")))?;
        let sym = self.prog.symbol(o, k);
        let dims = sym
            .dims
            .as_ref()
            .ok_or_else(|| FrontError::new(span, format!("'{n}' is not an array")))?;
        let inquiry = |f: &str| Expr::Apply {
            name: f.to_string(),
            args: vec![
                Arg {
                    keyword: None,
                    value: name(n, span),
                },
                Arg {
                    keyword: None,
                    value: Expr::int(d as i64 + 1, span),
                },
            ],
            span,
        };
        match dims.get(d) {
            // A bound read from a component (`flux(col%n + 1)`) is asked
            // of the array: component reads are not numerical-core
            // expressions.
            Some(DimSpec::Explicit { lo, hi })
                if (o == self.unit && !lo.iter().chain([hi]).any(reads_component))
                    || self.is_constant_bounds(o, lo.as_ref(), hi) =>
            {
                Ok((lo.clone().unwrap_or_else(|| Expr::int(1, span)), hi.clone()))
            }
            Some(DimSpec::Explicit { .. }) | Some(DimSpec::Colon { .. }) => {
                Ok((inquiry("lbound"), inquiry("ubound")))
            }
            Some(DimSpec::AssumedSize { .. }) => self.err_unsupported(
                span,
                format!("unsupported construct: whole-array operation on assumed-size array '{n}'"),
            ),
            None => self.err(span, format!("'{n}' has fewer dimensions")),
        }
    }

    fn is_constant_bounds(&self, owner: usize, lo: Option<&Expr>, hi: &Expr) -> bool {
        lo.is_none_or(|l| self.prog.const_int(owner, l).is_some())
            && self.prog.const_int(owner, hi).is_some()
    }

    /// The view of an array operand (`a` or `a(1, 2:n)`).
    pub(super) fn view(&self, e: &Expr) -> FrontResult<Option<View>> {
        match e {
            Expr::Name(n, sp) => match self.prog.var(self.unit, n) {
                Some((o, k)) if self.prog.symbol(o, k).rank() > 0 => {
                    let rank = self.prog.symbol(o, k).rank();
                    let mut subs = Vec::new();
                    for d in 0..rank {
                        let (lo, hi) = self.bounds(n, d, *sp)?;
                        subs.push(Sub::Range {
                            lo,
                            hi,
                            stride: None,
                        });
                    }
                    Ok(Some(View {
                        name: n.clone(),
                        subs,
                    }))
                }
                _ => Ok(None),
            },
            Expr::Apply {
                name: n,
                args,
                span,
            } => match self.prog.var(self.unit, n) {
                Some((o, k)) if self.prog.symbol(o, k).rank() > 0 => {
                    let mut subs = Vec::new();
                    let mut any_range = false;
                    for (d, a) in args.iter().enumerate() {
                        match &a.value {
                            Expr::Range { lo, hi, stride, .. } => {
                                any_range = true;
                                let (dlo, dhi) = if lo.is_none() || hi.is_none() {
                                    self.bounds(n, d, *span)?
                                } else {
                                    (Expr::int(1, *span), Expr::int(1, *span))
                                };
                                subs.push(Sub::Range {
                                    lo: lo.as_deref().cloned().unwrap_or(dlo),
                                    hi: hi.as_deref().cloned().unwrap_or(dhi),
                                    stride: stride.as_deref().cloned(),
                                });
                            }
                            v if self.ty(v).rank > 0 => {
                                any_range = true;
                                let space = self.space_of(v)?;
                                let [(lo, hi, stride)] =
                                    <[_; 1]>::try_from(space).map_err(|_| {
                                        FrontError::new(
                                            v.span(),
                                            "a vector subscript must have rank 1",
                                        )
                                    })?;
                                subs.push(Sub::Vector {
                                    vector: v.clone(),
                                    lo,
                                    hi,
                                    stride,
                                });
                            }
                            v => subs.push(Sub::Fixed(v.clone())),
                        }
                    }
                    Ok(if any_range {
                        Some(View {
                            name: n.clone(),
                            subs,
                        })
                    } else {
                        None
                    })
                }
                _ => Ok(None),
            },
            _ => Ok(None),
        }
    }

    /// The element of `view` at the iteration point `idx` of the space
    /// `space` (the ranges of the target).
    pub(super) fn element(
        &self,
        view: &View,
        idx: &[Expr],
        space: &[(Expr, Expr, Option<Expr>)],
        span: Span,
    ) -> FrontResult<Expr> {
        let ranges = view.ranges();
        if ranges.len() != idx.len() {
            return self.err(
                span,
                format!(
                    "array '{}' does not conform (rank {} against {})",
                    view.name,
                    ranges.len(),
                    idx.len()
                ),
            );
        }
        let mut args = Vec::new();
        let mut k = 0;
        for s in &view.subs {
            let v = match s {
                Sub::Fixed(e) => e.clone(),
                Sub::Range { lo, stride, .. } => {
                    let (slo, _, sst) = &space[k];
                    let i = idx[k].clone();
                    k += 1;
                    position(lo, stride.as_ref(), i, slo, sst.as_ref(), span)
                }
                Sub::Vector {
                    vector, lo, stride, ..
                } => {
                    // The subscript is the vector's element at the same
                    // position of its own index range.
                    let (slo, _, sst) = &space[k];
                    let i = idx[k].clone();
                    k += 1;
                    let at = position(lo, stride.as_ref(), i, slo, sst.as_ref(), span);
                    let own = [(lo.clone(), lo.clone(), stride.clone())];
                    self.elementwise(vector, &[at], &own)?
                }
            };
            args.push(Arg {
                keyword: None,
                value: v,
            });
        }
        Ok(Expr::Apply {
            name: view.name.clone(),
            args,
            span,
        })
    }

    /// The index ranges an array expression runs over.
    pub(super) fn space_of(&self, e: &Expr) -> FrontResult<Vec<(Expr, Expr, Option<Expr>)>> {
        if let Some(v) = self.view(e)? {
            return Ok(v
                .ranges()
                .into_iter()
                .map(|(l, h, s)| (l.clone(), h.clone(), s.cloned()))
                .collect());
        }
        match e {
            Expr::Apply {
                name: n,
                args,
                span,
            } if self.prog.var(self.unit, n).is_none() => {
                if n == "transpose" && args.len() == 1 {
                    let mut s = self.space_of(&args[0].value)?;
                    s.reverse();
                    return Ok(s);
                }
                if n == "spread" {
                    let (source, d, ncopies) = self.spread_args(args, *span)?;
                    let mut s = if self.ty(&source).rank == 0 {
                        Vec::new()
                    } else {
                        self.space_of(&source)?
                    };
                    s.insert(d, (Expr::int(1, *span), ncopies, None));
                    return Ok(s);
                }
                if n == "cshift" {
                    let (array, _, _) = self.cshift_args(args, *span)?;
                    return self.space_of(&array);
                }
                if n == super::SHIFT_BY_OFFSET {
                    if let Some(a) = args.first() {
                        return self.space_of(&a.value);
                    }
                }
                if n == "reshape" && args.len() >= 2 {
                    let Expr::ArrayCtor(items, _) = &args[1].value else {
                        return self.err_unsupported(*span, "unsupported construct: reshape with a shape that is not an array constructor");
                    };
                    return Ok(items
                        .iter()
                        .map(|it| (Expr::int(1, *span), it.clone(), None))
                        .collect());
                }
                for a in args {
                    if self.ty(&a.value).rank > 0 {
                        return self.space_of(&a.value);
                    }
                }
                self.err(*span, "not an array expression")
            }
            Expr::Unary(_, x, _) | Expr::Paren(x, _) => self.space_of(x),
            Expr::Binary(_, l, r, _) => {
                if self.ty(l).rank > 0 {
                    self.space_of(l)
                } else {
                    self.space_of(r)
                }
            }
            _ => self.err(e.span(), "not an array expression"),
        }
    }
}

/// The index of dimension range `lo:..:stride` at the position that `i`
/// has in the range `slo:..:sst` of the iteration space:
/// `lo + (i - slo) / sst * stride`.
fn position(
    lo: &Expr,
    stride: Option<&Expr>,
    i: Expr,
    slo: &Expr,
    sst: Option<&Expr>,
    span: Span,
) -> Expr {
    if strip(lo) == strip(slo) && stride.map(strip) == sst.map(strip) {
        return i;
    }
    let mut off = bin(BinOp::Sub, i, slo.clone(), span);
    if let Some(st) = sst {
        off = bin(
            BinOp::Div,
            Expr::Paren(Box::new(off), span),
            st.clone(),
            span,
        );
    }
    if let Some(st) = stride {
        off = bin(
            BinOp::Mul,
            Expr::Paren(Box::new(off), span),
            st.clone(),
            span,
        );
    }
    bin(
        BinOp::Add,
        lo.clone(),
        Expr::Paren(Box::new(off), span),
        span,
    )
}

/// Whether an expression reads a derived-type component.
fn reads_component(e: &Expr) -> bool {
    match e {
        Expr::Member { .. } => true,
        Expr::Lit(..) | Expr::Name(..) => false,
        Expr::Apply { args, .. } => args.iter().any(|a| reads_component(&a.value)),
        Expr::Unary(_, x, _) | Expr::Paren(x, _) => reads_component(x),
        Expr::Binary(_, l, r, _) => reads_component(l) || reads_component(r),
        Expr::Range { lo, hi, stride, .. } => [lo, hi, stride]
            .into_iter()
            .flatten()
            .any(|x| reads_component(x)),
        Expr::ArrayCtor(items, _) => items.iter().any(reads_component),
        Expr::ImpliedDo { .. } => true,
    }
}
