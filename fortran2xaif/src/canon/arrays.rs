//! Array assignments and array expressions scalarised into loop nests over
//! the target's index space (first dimension innermost), so that the
//! booster sees only element assignments. `transpose` and `reshape` are
//! index maps on their argument; array constructors are unrolled when they
//! are a whole right side. When the right side reads its own target, the
//! dependence test (`dependence.rs`) chooses the loop directions and the
//! references to read from copies, so that every read sees the old values
//! as Fortran semantics (evaluate the whole right side, then assign) demand.

use crate::ast::*;

use super::{
    bin, computed_into_temporary, extent, intrinsic_arg, name, offset, paren, stmt, trip_count,
    Canon, SHIFT_BY_OFFSET,
};
use crate::intrinsics::REDUCTIONS;

impl Canon<'_> {
    /// Canonicalises the scalar parts of an array expression (function
    /// calls, reductions), keeping whole-array intrinsics for scalarisation.
    pub(super) fn value_array(&mut self, e: Expr, out: &mut Vec<Stmt>) -> FrontResult<Expr> {
        match e {
            Expr::ArrayCtor(items, span) => self.constructor_temporary(items, span, out),
            Expr::Apply {
                name: n,
                args,
                span,
            } if self.prog.var(self.unit, &n).is_none()
                && (computed_into_temporary(&n) || REDUCTIONS.contains(&n.as_str()))
                && self
                    .ty(&Expr::Apply {
                        name: n.clone(),
                        args: args.clone(),
                        span,
                    })
                    .rank
                    > 0 =>
            {
                if REDUCTIONS.contains(&n.as_str()) {
                    self.reduction(&n, args, span, out)
                } else {
                    self.intrinsic_into_temporary(&n, args, span, out)
                }
            }
            Expr::Apply {
                name: n,
                args,
                span,
            } if self.prog.var(self.unit, &n).is_none()
                && matches!(n.as_str(), "transpose" | "reshape" | "spread" | "cshift") =>
            {
                let mut new = Vec::new();
                for (k, a) in args.into_iter().enumerate() {
                    let v = if n == "reshape" && k == 1 {
                        a.value
                    } else {
                        self.value_array(a.value, out)?
                    };
                    new.push(Arg {
                        keyword: a.keyword,
                        value: v,
                    });
                }
                Ok(Expr::Apply {
                    name: n,
                    args: new,
                    span,
                })
            }
            // A user elemental function of arrays: element by element.
            Expr::Apply {
                name: ref n, span, ..
            } if self.user_elemental(n).is_some() && self.ty(&e).rank > 0 => {
                let p = self.user_elemental(n).expect("guarded");
                let Expr::Apply { args, .. } = e else {
                    unreachable!()
                };
                self.elemental_function_array(p, args, span, out)
            }
            // An array-valued user function: its result in a temporary.
            Expr::Apply { ref name, .. }
                if matches!(
                    self.prog.resolve(self.unit, name),
                    Some(crate::sema::Binding::Proc(_))
                ) =>
            {
                self.value(e, out)
            }
            Expr::Binary(op, l, r, sp) => {
                let l = self.value_array(*l, out)?;
                let r = self.value_array(*r, out)?;
                Ok(Expr::Binary(op, Box::new(l), Box::new(r), sp))
            }
            Expr::Unary(op, x, sp) => Ok(Expr::Unary(op, Box::new(self.value_array(*x, out)?), sp)),
            Expr::Paren(x, sp) => Ok(Expr::Paren(Box::new(self.value_array(*x, out)?), sp)),
            Expr::Apply {
                name: n,
                args,
                span,
            } if self.prog.var(self.unit, &n).is_none()
                && self
                    .ty(&Expr::Apply {
                        name: n.clone(),
                        args: args.clone(),
                        span,
                    })
                    .rank
                    > 0 =>
            {
                if n == "norm2" {
                    let e = self.norm2_as_sum(&args, span)?;
                    return self.value_array(e, out);
                }
                // Elemental intrinsic applied to arrays.
                let mut new = Vec::new();
                for a in args {
                    new.push(Arg {
                        keyword: a.keyword,
                        value: self.value_array(a.value, out)?,
                    });
                }
                let e = Expr::Apply {
                    name: n,
                    args: new,
                    span,
                };
                // The chosen branch element by element, in a temporary.
                if matches!(&e, Expr::Apply { name, .. } if name == "merge")
                    && self.ty(&e).cat.is_real()
                {
                    return self.merge_array(e, span, out);
                }
                Ok(e)
            }
            other => self.value(other, out),
        }
    }

    /// Replaces every array operand of `e` by its element at `idx`, a point
    /// of `space` (the target's index ranges). `transpose` and `reshape`
    /// are index transformations on their argument.
    pub(super) fn elementwise(
        &self,
        e: &Expr,
        idx: &[Expr],
        space: &[(Expr, Expr, Option<Expr>)],
    ) -> FrontResult<Expr> {
        if let Some(v) = self.view(e)? {
            return self.element(&v, idx, space, e.span());
        }
        Ok(match e {
            Expr::Apply {
                name: n,
                args,
                span,
            } if self.prog.var(self.unit, n).is_none() => {
                let sp = *span;
                if n == "transpose" && args.len() == 1 {
                    let src_space = self.space_of(&args[0].value)?;
                    if src_space.len() != 2 || idx.len() != 2 {
                        return self.err(sp, "transpose needs rank-2 arrays");
                    }
                    // (i, j) of the result is (j, i) of the argument.
                    let i_src = offset(&src_space[0].0, &idx[1], &space[1].0, sp);
                    let j_src = offset(&src_space[1].0, &idx[0], &space[0].0, sp);
                    return self.elementwise(&args[0].value, &[i_src, j_src], &src_space);
                }
                if n == "reshape" && !args.is_empty() {
                    if args.len() > 2 {
                        return self.err_unsupported(
                            sp,
                            "unsupported construct: reshape with pad or order",
                        );
                    }
                    // Column-major position in the result, then in the source.
                    let src_space = self.space_of(&args[0].value)?;
                    let mut k: Option<Expr> = None;
                    let mut stride_prod: Option<Expr> = None;
                    for (d, (lo, hi, _)) in space.iter().enumerate() {
                        let term = bin(BinOp::Sub, idx[d].clone(), lo.clone(), sp);
                        let term = match &stride_prod {
                            None => term,
                            Some(p) => bin(BinOp::Mul, paren(term, sp), p.clone(), sp),
                        };
                        k = Some(match k {
                            None => term,
                            Some(acc) => bin(BinOp::Add, acc, term, sp),
                        });
                        let n_d = extent(lo, hi, sp);
                        stride_prod = Some(match stride_prod {
                            None => n_d,
                            Some(p) => bin(BinOp::Mul, p, n_d, sp),
                        });
                    }
                    let k = k.ok_or_else(|| FrontError::new(sp, "reshape of a scalar"))?;
                    let mut src_idx = Vec::new();
                    let mut below: Option<Expr> = None;
                    for (lo, hi, _) in &src_space {
                        let q = match &below {
                            None => paren(k.clone(), sp),
                            Some(b) => {
                                bin(BinOp::Div, paren(k.clone(), sp), paren(b.clone(), sp), sp)
                            }
                        };
                        let n_d = extent(lo, hi, sp);
                        let r = Expr::Apply {
                            name: "mod".into(),
                            args: vec![
                                Arg {
                                    keyword: None,
                                    value: q,
                                },
                                Arg {
                                    keyword: None,
                                    value: n_d.clone(),
                                },
                            ],
                            span: sp,
                        };
                        src_idx.push(bin(BinOp::Add, lo.clone(), r, sp));
                        below = Some(match below {
                            None => n_d,
                            Some(b) => bin(BinOp::Mul, b, n_d, sp),
                        });
                    }
                    let src_space: Vec<(Expr, Expr, Option<Expr>)> = src_space
                        .into_iter()
                        .map(|(l, h, _)| (l, h, None))
                        .collect();
                    return self.elementwise(&args[0].value, &src_idx, &src_space);
                }
                if n == "spread" {
                    // The result's index along `dim` is dropped.
                    let (source, d, _) = self.spread_args(args, sp)?;
                    if self.ty(&source).rank == 0 {
                        return Ok(source);
                    }
                    if d >= idx.len() {
                        return self.err(sp, "spread: the result does not conform");
                    }
                    let (mut idx, mut space) = (idx.to_vec(), space.to_vec());
                    idx.remove(d);
                    space.remove(d);
                    return self.elementwise(&source, &idx, &space);
                }
                if n == SHIFT_BY_OFFSET {
                    let (Some(array), Some(off), Some(d)) = (
                        args.first(),
                        args.get(1),
                        args.get(2).and_then(|a| a.value.const_int()),
                    ) else {
                        return self.err(sp, "internal error: malformed shifted read");
                    };
                    let d = d as usize - 1;
                    let step = match &space[d].2 {
                        Some(s) => bin(BinOp::Mul, off.value.clone(), s.clone(), sp),
                        None => off.value.clone(),
                    };
                    let mut idx = idx.to_vec();
                    idx[d] = match step.const_int() {
                        Some(0) => idx[d].clone(),
                        Some(c) if c < 0 => bin(BinOp::Sub, idx[d].clone(), Expr::int(-c, sp), sp),
                        _ => bin(BinOp::Add, idx[d].clone(), step, sp),
                    };
                    return self.elementwise(&array.value, &idx, space);
                }
                if n == "cshift" {
                    // Position p along `dim` reads position
                    // mod(p + mod(shift, n) + n, n) of the argument.
                    let (array, shift, d) = self.cshift_args(args, sp)?;
                    if d >= idx.len() {
                        return self.err(sp, "cshift: the result does not conform");
                    }
                    let (lo, hi, st) = &space[d];
                    let count = trip_count(lo, hi, st.as_ref(), sp);
                    let mut p = bin(BinOp::Sub, idx[d].clone(), lo.clone(), sp);
                    if let Some(s) = st {
                        p = bin(BinOp::Div, paren(p, sp), s.clone(), sp);
                    }
                    let modulo = |a: Expr, b: Expr| Expr::Apply {
                        name: "mod".into(),
                        args: vec![
                            Arg {
                                keyword: None,
                                value: a,
                            },
                            Arg {
                                keyword: None,
                                value: b,
                            },
                        ],
                        span: sp,
                    };
                    let turn = match (shift.const_int(), self.prog.const_int(self.unit, &count)) {
                        (Some(s), Some(c)) if c > 0 => Expr::int(s.rem_euclid(c), sp),
                        _ => bin(
                            BinOp::Add,
                            modulo(shift.clone(), count.clone()),
                            count.clone(),
                            sp,
                        ),
                    };
                    let q = modulo(bin(BinOp::Add, p, turn, sp), count);
                    let q = match st {
                        Some(s) => bin(BinOp::Mul, q, s.clone(), sp),
                        None => q,
                    };
                    let mut idx = idx.to_vec();
                    idx[d] = bin(BinOp::Add, lo.clone(), q, sp);
                    return self.elementwise(&array, &idx, space);
                }
                if n == "matmul" {
                    return self.err(sp, "internal error: matmul left inside an array expression");
                }
                let mut new = Vec::new();
                for a in args {
                    new.push(Arg {
                        keyword: a.keyword.clone(),
                        value: self.elementwise(&a.value, idx, space)?,
                    });
                }
                Expr::Apply {
                    name: n.clone(),
                    args: new,
                    span: sp,
                }
            }
            Expr::Unary(op, x, sp) => {
                Expr::Unary(*op, Box::new(self.elementwise(x, idx, space)?), *sp)
            }
            Expr::Binary(op, l, r, sp) => Expr::Binary(
                *op,
                Box::new(self.elementwise(l, idx, space)?),
                Box::new(self.elementwise(r, idx, space)?),
                *sp,
            ),
            Expr::Paren(x, sp) => Expr::Paren(Box::new(self.elementwise(x, idx, space)?), *sp),
            Expr::ArrayCtor(_, sp) => {
                // Constructors are unrolled only as a whole right side
                // (handled by the caller).
                return self.err_unsupported(
                    *sp,
                    "unsupported construct: array constructor inside an array expression",
                );
            }
            other => other.clone(),
        })
    }

    /// `spread(source, dim, ncopies)`: the source, the 0-based dimension
    /// it is copied along, the number of copies.
    pub(super) fn spread_args(&self, args: &[Arg], span: Span) -> FrontResult<(Expr, usize, Expr)> {
        let (Some(source), Some(dim), Some(ncopies)) = (
            intrinsic_arg(args, "source", 0),
            intrinsic_arg(args, "dim", 1),
            intrinsic_arg(args, "ncopies", 2),
        ) else {
            return self.err(span, "spread needs source, dim and ncopies");
        };
        let rank = self.ty(&source).rank;
        let d = self.dim_argument(&dim, rank + 1, "spread")?;
        Ok((source, d, ncopies))
    }

    /// `cshift(array, shift, dim)`: the array, the (scalar) shift, the
    /// 0-based dimension.
    pub(super) fn cshift_args(&self, args: &[Arg], span: Span) -> FrontResult<(Expr, Expr, usize)> {
        let (Some(array), Some(shift)) = (
            intrinsic_arg(args, "array", 0),
            intrinsic_arg(args, "shift", 1),
        ) else {
            return self.err(span, "cshift needs an array and a shift");
        };
        if self.ty(&shift).rank > 0 {
            return self.err_unsupported(
                shift.span(),
                "unsupported construct: cshift with an array-valued shift",
            );
        }
        let rank = self.ty(&array).rank;
        let d = match intrinsic_arg(args, "dim", 2) {
            Some(e) => self.dim_argument(&e, rank, "cshift")?,
            None => 0,
        };
        Ok((array, shift, d))
    }

    /// Nested loops over `space` (first dimension innermost) around `body`.
    pub(super) fn loops(
        &self,
        vars: &[String],
        space: &[(Expr, Expr, Option<Expr>)],
        body: Vec<Stmt>,
        span: Span,
    ) -> Vec<Stmt> {
        self.directed_loops(vars, space, &vec![false; space.len()], body, span)
    }

    /// Nested loops over `space` (first dimension innermost) around `body`,
    /// dimension `k` running from its upper to its lower bound where
    /// `reversed[k]` (only ever asked of unit-stride dimensions).
    pub(super) fn directed_loops(
        &self,
        vars: &[String],
        space: &[(Expr, Expr, Option<Expr>)],
        reversed: &[bool],
        body: Vec<Stmt>,
        span: Span,
    ) -> Vec<Stmt> {
        let mut inner = body;
        for (k, (lo, hi, st)) in space.iter().enumerate() {
            let control = if reversed.get(k).copied().unwrap_or(false) {
                DoControl {
                    var: vars[k].clone(),
                    lo: hi.clone(),
                    hi: lo.clone(),
                    step: Some(Expr::Unary(UnOp::Neg, Box::new(Expr::int(1, span)), span)),
                }
            } else {
                DoControl {
                    var: vars[k].clone(),
                    lo: lo.clone(),
                    hi: hi.clone(),
                    step: st.clone(),
                }
            };
            inner = vec![stmt(
                StmtKind::Do {
                    construct: None,
                    control: Some(control),
                    body: inner,
                },
                span,
            )];
        }
        inner
    }

    /// Can a constructor be unrolled item by item (scalar items only)?
    fn unrollable(&self, items: &[Expr]) -> bool {
        items
            .iter()
            .all(|it| !matches!(it, Expr::ImpliedDo { .. }) && self.ty(it).rank == 0)
    }

    pub(super) fn array_assign(
        &mut self,
        lhs: Expr,
        rhs: Expr,
        span: Span,
        out: &mut Vec<Stmt>,
    ) -> FrontResult<()> {
        // Before the designator moves constructors into temporaries.
        self.warn_repeated_vector_subscripts(&lhs, span);
        let lhs = self.designator(lhs, out)?;
        let target = self
            .view(&lhs)?
            .ok_or_else(|| FrontError::new(span, "array assignment to a non-array"))?;
        let space: Vec<(Expr, Expr, Option<Expr>)> = target
            .ranges()
            .into_iter()
            .map(|(l, h, s)| (l.clone(), h.clone(), s.cloned()))
            .collect();
        // matmul on the whole right side, straight into the target unless
        // it reads the target (then through a temporary, below).
        if let Expr::Apply { name: n, args, .. } = &rhs {
            let reads_target = args.iter().any(|a| {
                let mut found = false;
                a.value.walk(&mut |x| {
                    if let Expr::Name(m, _) | Expr::Apply { name: m, .. } = x {
                        found |= *m == target.name;
                    }
                });
                found
            });
            if n == "matmul" && self.prog.var(self.unit, n).is_none() && !reads_target {
                let args = args.clone();
                let mut vals = Vec::new();
                for a in args {
                    vals.push(self.value_array(a.value, out)?);
                }
                return self.matmul(vals, &target, &space, span, out);
            }
        }
        let rhs = match rhs {
            // Implied-do loops and array items go through a temporary.
            Expr::ArrayCtor(items, sp) if !self.unrollable(&items) => {
                self.constructor_temporary(items, sp, out)?
            }
            rhs => rhs,
        };
        if let Expr::ArrayCtor(items, _) = rhs {
            if space.len() != 1 {
                return self.err_unsupported(span, "unsupported construct: array constructor assigned to a multi-dimensional array");
            }
            let (lo, _, st) = &space[0];
            let values = self.constructor_items(items, &target.name, out)?;
            for (j, v) in values.into_iter().enumerate() {
                let mut off = Expr::int(j as i64, span);
                if let Some(s) = st {
                    off = bin(BinOp::Mul, off, s.clone(), span);
                }
                let idx = bin(BinOp::Add, lo.clone(), off, span);
                let el = self.element(&target, &[idx], &space, span)?;
                out.push(stmt(StmtKind::Assign { lhs: el, rhs: v }, span));
            }
            return Ok(());
        }
        // reshape of a constructor: element j goes to the j-th position in
        // array element order.
        if let Expr::Apply { name: n, args, .. } = &rhs {
            if n == "reshape" && self.prog.var(self.unit, n).is_none() {
                if let Some(Expr::ArrayCtor(items, _)) = args
                    .first()
                    .map(|a| &a.value)
                    .filter(|v| matches!(v, Expr::ArrayCtor(items, _) if self.unrollable(items)))
                {
                    let extents: Option<Vec<(i64, i64)>> = space
                        .iter()
                        .map(|(lo, hi, st)| {
                            match (
                                self.prog.const_int(self.unit, lo),
                                self.prog.const_int(self.unit, hi),
                                st,
                            ) {
                                (Some(l), Some(h), None) => Some((l, h - l + 1)),
                                _ => None,
                            }
                        })
                        .collect();
                    let extents = extents.ok_or_else(|| FrontError::unsupported(span, "unsupported construct: reshape of a constructor into a non-constant shape"))?;
                    let values = self.constructor_items(items.clone(), &target.name, out)?;
                    for (j, v) in values.into_iter().enumerate() {
                        let mut rest = j as i64;
                        let mut idx = Vec::new();
                        for (lo, n) in &extents {
                            idx.push(Expr::int(lo + rest % n.max(&1), span));
                            rest /= n.max(&1);
                        }
                        let el = self.element(&target, &idx, &space, span)?;
                        out.push(stmt(StmtKind::Assign { lhs: el, rhs: v }, span));
                    }
                    return Ok(());
                }
            }
        }
        // Reductions and function calls first, then the elementwise loop,
        // in the directions and with the copies the dependence test asks.
        let rhs = self.value_array(rhs, out)?;
        let plan = self.untangle(rhs, &target, &space, out)?;
        // An unallocated (or differently shaped) allocatable target is
        // allocated with the right side's shape first (`realloc_lhs.rs`),
        // after any copy of the right side the dependence test made.
        let allocation = self.allocate_on_assignment(&lhs, &plan.rhs, span)?;
        out.extend(self.block(allocation)?);
        let vars: Vec<String> = (0..space.len()).map(|_| self.loop_var(span)).collect();
        let idx: Vec<Expr> = vars.iter().map(|v| name(v, span)).collect();
        let el_l = self.element(&target, &idx, &space, span)?;
        let mut make_body = |c: &Self, rhs: &Expr| -> FrontResult<Vec<Stmt>> {
            Ok(vec![stmt(
                StmtKind::Assign {
                    lhs: el_l.clone(),
                    rhs: c.elementwise(rhs, &idx, &space)?,
                },
                span,
            )])
        };
        match self.peeled_shift_loops(
            &plan.rhs,
            &space,
            &vars,
            &plan.reversed,
            span,
            &mut make_body,
        )? {
            Some(peeled) => out.extend(peeled),
            None => {
                let body = make_body(self, &plan.rhs)?;
                out.extend(self.directed_loops(&vars, &space, &plan.reversed, body, span));
            }
        }
        out.extend(plan.dealloc);
        Ok(())
    }
}
