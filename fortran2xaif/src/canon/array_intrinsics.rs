//! Array values that no index map can address element by element are
//! computed into a temporary array before the statement that uses them, by
//! plain element loops the booster differentiates like any other:
//!
//! - `sum`/`product`/`maxval`/`minval` with `dim=` (and `mask=`) on an
//!   array of rank 2 or more: one accumulation loop per result element;
//! - `matmul` inside a larger expression (as a whole right side it is
//!   scalarised into its target directly, `reductions.rs`);
//! - `eoshift`: the shifted elements copied, the boundary value where the
//!   shift runs off the end;
//! - `pack`: a counter over the elements whose mask is true (the result's
//!   size, `count(mask)` or `size(vector)`, is known only at run time; the
//!   mask is passive, only the packed values carry derivatives);
//! - `maxloc`/`minloc` without `dim` (integer, opaque), e.g. as a vector
//!   subscript;
//! - array constructors inside expressions, and every constructor with an
//!   implied-do loop: a counter over the items, the implied-do loops as
//!   `do` loops over fresh indices (the implied-do variable of a
//!   constructor is local to it and never changes the variable of that
//!   name).
//!
//! The temporary is computed where the statement is, so it reads the values
//! before the statement assigns anything: Fortran's "evaluate the right
//! side first" holds whatever the statement's target.

use crate::ast::*;
use crate::sema::Cat;
use crate::unparse;

use super::{bin, intrinsic_arg, name, rename, stmt, trip_count, Canon, Space};

impl Canon<'_> {
    /// The value of an array-valued intrinsic in the module comment's list,
    /// as a temporary array.
    pub(super) fn intrinsic_into_temporary(
        &mut self,
        n: &str,
        args: Vec<Arg>,
        span: Span,
        out: &mut Vec<Stmt>,
    ) -> FrontResult<Expr> {
        match n {
            "matmul" => self.matmul_temporary(args, span, out),
            "eoshift" => self.eoshift_temporary(args, span, out),
            "pack" => self.pack_temporary(args, span, out),
            "unpack" => self.unpack_temporary(args, span, out),
            "maxloc" | "minloc" => self.location_temporary(n, args, span, out),
            _ => self.err(span, format!("internal error: {n} into a temporary")),
        }
    }

    /// A constant `dim=` argument, checked against the rank.
    pub(super) fn dim_argument(&self, dim: &Expr, rank: usize, what: &str) -> FrontResult<usize> {
        match self.prog.const_int(self.unit, dim) {
            Some(d) if d >= 1 && (d as usize) <= rank => Ok(d as usize - 1),
            Some(d) => self.err(
                dim.span(),
                format!("{what}: dim={d} is outside the rank {rank} of the array"),
            ),
            None => self.err_unsupported(
                dim.span(),
                format!("unsupported construct: {what} with a dim that is not a constant"),
            ),
        }
    }

    fn matmul_temporary(
        &mut self,
        args: Vec<Arg>,
        span: Span,
        out: &mut Vec<Stmt>,
    ) -> FrontResult<Expr> {
        let mut vals = Vec::new();
        for a in args {
            vals.push(self.value_array(a.value, out)?);
        }
        if vals.len() != 2 {
            return self.err(span, "matmul needs two arguments");
        }
        let (sa, sb) = (self.space_of(&vals[0])?, self.space_of(&vals[1])?);
        let count = |s: &(Expr, Expr, Option<Expr>)| trip_count(&s.0, &s.1, s.2.as_ref(), span);
        let extents = match (sa.len(), sb.len()) {
            (2, 2) => vec![count(&sa[0]), count(&sb[1])],
            (2, 1) => vec![count(&sa[0])],
            (1, 2) => vec![count(&sb[1])],
            _ => return self.err(span, "matmul needs rank-1 or rank-2 arrays"),
        };
        let cat = self
            .ty(&bin(BinOp::Mul, vals[0].clone(), vals[1].clone(), span))
            .cat;
        let (view, space) = self.new_temp_array(cat, &extents, span, out)?;
        self.matmul(vals, &view, &space, span, out)?;
        Ok(name(&view.name, span))
    }

    /// `eoshift(array, shift, boundary, dim)`: element `p` along `dim` is
    /// element `p + shift` of `array` where that exists, else `boundary`.
    fn eoshift_temporary(
        &mut self,
        args: Vec<Arg>,
        span: Span,
        out: &mut Vec<Stmt>,
    ) -> FrontResult<Expr> {
        let (Some(array), Some(shift)) = (
            intrinsic_arg(&args, "array", 0),
            intrinsic_arg(&args, "shift", 1),
        ) else {
            return self.err(span, "eoshift needs an array and a shift");
        };
        let array = self.value_array(array, out)?;
        let shift = self.value(shift, out)?;
        if self.ty(&shift).rank > 0 {
            return self.err_unsupported(
                shift.span(),
                "unsupported construct: eoshift with an array-valued shift",
            );
        }
        let boundary = match intrinsic_arg(&args, "boundary", 2) {
            Some(b) => self.value(b, out)?,
            None => Expr::int(0, span),
        };
        if self.ty(&boundary).rank > 0 {
            return self.err_unsupported(
                boundary.span(),
                "unsupported construct: eoshift with an array-valued boundary",
            );
        }
        let space = self.space_of(&array)?;
        let d = match intrinsic_arg(&args, "dim", 3) {
            Some(e) => self.dim_argument(&e, space.len(), "eoshift")?,
            None => 0,
        };
        let cat = self.ty(&array).cat;
        let extents: Vec<Expr> = space
            .iter()
            .map(|(l, h, s)| trip_count(l, h, s.as_ref(), span))
            .collect();
        let (view, tspace) = self.new_temp_array(cat, &extents, span, out)?;
        let shift = self.loop_invariant(shift, out)?;
        // Loops over the temporary's 1-based indices; the source index along
        // `dim` is the shifted position in the array's own range.
        let vars: Vec<String> = (0..tspace.len()).map(|_| self.loop_var(span)).collect();
        let idx: Vec<Expr> = vars.iter().map(|v| name(v, span)).collect();
        let el_t = self.element(&view, &idx, &tspace, span)?;
        let moved = bin(BinOp::Add, idx[d].clone(), shift, span);
        let inside = bin(
            BinOp::And,
            bin(BinOp::Ge, moved.clone(), Expr::int(1, span), span),
            bin(BinOp::Le, moved.clone(), extents[d].clone(), span),
            span,
        );
        let mut src_idx = idx.clone();
        src_idx[d] = moved;
        let el_a = self.elementwise(&array, &src_idx, &tspace)?;
        let body = vec![stmt(
            StmtKind::If {
                arms: vec![(
                    inside,
                    vec![stmt(
                        StmtKind::Assign {
                            lhs: el_t.clone(),
                            rhs: el_a,
                        },
                        span,
                    )],
                )],
                otherwise: Some(vec![stmt(
                    StmtKind::Assign {
                        lhs: el_t,
                        rhs: boundary,
                    },
                    span,
                )]),
            },
            span,
        )];
        out.extend(self.loops(&vars, &tspace, body, span));
        Ok(name(&view.name, span))
    }

    /// `pack(array, mask[, vector])`: the elements of `array` whose mask is
    /// true, in array element order, then the rest of `vector`.
    fn pack_temporary(
        &mut self,
        args: Vec<Arg>,
        span: Span,
        out: &mut Vec<Stmt>,
    ) -> FrontResult<Expr> {
        let (Some(array), Some(mask)) = (
            intrinsic_arg(&args, "array", 0),
            intrinsic_arg(&args, "mask", 1),
        ) else {
            return self.err(span, "pack needs an array and a mask");
        };
        let array = self.value_array(array, out)?;
        let mask = self.value_array(mask, out)?;
        let vector = intrinsic_arg(&args, "vector", 2)
            .map(|v| self.value_array(v, out))
            .transpose()?;
        let space = self.space_of(&array)?;
        if self.ty(&mask).rank == 0 {
            return self.err_unsupported(
                mask.span(),
                "unsupported construct: pack with a scalar mask",
            );
        }
        // The result's size: count(mask), or the size of vector.
        let size_of = match &vector {
            Some(v) => {
                let s = self.space_of(v)?;
                trip_count(&s[0].0, &s[0].1, s[0].2.as_ref(), span)
            }
            None => {
                let e = Expr::Apply {
                    name: "count".into(),
                    args: vec![Arg {
                        keyword: None,
                        value: mask.clone(),
                    }],
                    span,
                };
                let t = self.temp(Cat::Int, span)?;
                out.push(stmt(
                    StmtKind::Opaque {
                        kind: OpaqueKind::PassiveAssign,
                        text: format!("{t} = {}", unparse::expr(&e)),
                        reads: vec![mask.clone()],
                        writes: vec![name(&t, span)],
                    },
                    span,
                ));
                name(&t, span)
            }
        };
        let cat = self.ty(&array).cat;
        let (view, tspace) = self.new_temp_array(cat, &[size_of], span, out)?;
        if let Some(v) = &vector {
            let k = self.loop_var(span);
            let kk = [name(&k, span)];
            let lhs = self.element(&view, &kk, &tspace, span)?;
            let rhs = self.elementwise(v, &kk, &tspace)?;
            let body = vec![stmt(StmtKind::Assign { lhs, rhs }, span)];
            out.extend(self.loops(&[k], &tspace, body, span));
        }
        let c = self.zero_counter(span, out)?;
        let vars: Vec<String> = (0..space.len()).map(|_| self.loop_var(span)).collect();
        let idx: Vec<Expr> = vars.iter().map(|v| name(v, span)).collect();
        let el_m = self.elementwise(&mask, &idx, &space)?;
        let el_a = self.elementwise(&array, &idx, &space)?;
        let el_t = self.element(&view, std::slice::from_ref(&c), &tspace, span)?;
        let body = vec![counted_store(el_m, c, el_t, el_a, span)];
        out.extend(self.loops(&vars, &space, body, span));
        Ok(name(&view.name, span))
    }

    /// A new integer temporary set to 0 (the count of true mask elements
    /// `pack` and `unpack` keep).
    fn zero_counter(&mut self, span: Span, out: &mut Vec<Stmt>) -> FrontResult<Expr> {
        let counter = self.temp(Cat::Int, span)?;
        let c = name(&counter, span);
        out.push(stmt(
            StmtKind::Assign {
                lhs: c.clone(),
                rhs: Expr::int(0, span),
            },
            span,
        ));
        Ok(c)
    }

    /// `unpack(vector, mask, field)`: a temporary of the mask's shape
    /// holding `field` (an array conforming with the mask, or a scalar),
    /// then the next element of `vector` at each true element of the mask
    /// in array element order (a counter, as `pack` keeps one).
    fn unpack_temporary(
        &mut self,
        args: Vec<Arg>,
        span: Span,
        out: &mut Vec<Stmt>,
    ) -> FrontResult<Expr> {
        let (Some(vector), Some(mask), Some(field)) = (
            intrinsic_arg(&args, "vector", 0),
            intrinsic_arg(&args, "mask", 1),
            intrinsic_arg(&args, "field", 2),
        ) else {
            return self.err(span, "unpack needs a vector, a mask and a field");
        };
        let vector = self.value_array(vector, out)?;
        let mask = self.value_array(mask, out)?;
        if self.ty(&mask).rank == 0 {
            return self.err_unsupported(
                mask.span(),
                "unsupported construct: unpack with a scalar mask",
            );
        }
        let field_is_array = self.ty(&field).rank > 0;
        let field = if field_is_array {
            self.value_array(field, out)?
        } else {
            self.value(field, out)?
        };
        let space = self.space_of(&mask)?;
        let vspace = self.space_of(&vector)?;
        let extents: Vec<Expr> = space
            .iter()
            .map(|(lo, hi, st)| trip_count(lo, hi, st.as_ref(), span))
            .collect();
        let cat = self.ty(&vector).cat;
        let (view, tspace) = self.new_temp_array(cat, &extents, span, out)?;
        let vars: Vec<String> = (0..space.len()).map(|_| self.loop_var(span)).collect();
        let idx: Vec<Expr> = vars.iter().map(|v| name(v, span)).collect();
        // The temporary at the mask's positions (its own space starts at 1).
        let tidx: Vec<Expr> = idx
            .iter()
            .zip(&space)
            .zip(&tspace)
            .map(|((i, (lo, _, st)), _)| {
                let offset = bin(BinOp::Sub, i.clone(), lo.clone(), span);
                let step = match st {
                    Some(st) => bin(BinOp::Div, offset, st.clone(), span),
                    None => offset,
                };
                bin(BinOp::Add, step, Expr::int(1, span), span)
            })
            .collect();
        let el_t = self.element(&view, &tidx, &tspace, span)?;
        let el_f = if field_is_array {
            self.elementwise(&field, &idx, &space)?
        } else {
            field
        };
        out.extend(self.loops(
            &vars,
            &space,
            vec![stmt(
                StmtKind::Assign {
                    lhs: el_t.clone(),
                    rhs: el_f,
                },
                span,
            )],
            span,
        ));
        let c = self.zero_counter(span, out)?;
        let el_m = self.elementwise(&mask, &idx, &space)?;
        // The vector's element number `c` in its own space.
        let (vlo, _, vst) = &vspace[0];
        let vpos = {
            let k = bin(BinOp::Sub, c.clone(), Expr::int(1, span), span);
            let k = match vst {
                Some(st) => bin(BinOp::Mul, k, st.clone(), span),
                None => k,
            };
            bin(BinOp::Add, vlo.clone(), k, span)
        };
        let el_v = self.elementwise(&vector, std::slice::from_ref(&vpos), &vspace)?;
        let body = vec![counted_store(el_m, c, el_t, el_v, span)];
        out.extend(self.loops(&vars, &space, body, span));
        Ok(name(&view.name, span))
    }

    /// `maxloc(a)` / `minloc(a)` without `dim`: an integer array of one
    /// position per dimension of `a`, computed by an opaque statement.
    fn location_temporary(
        &mut self,
        n: &str,
        args: Vec<Arg>,
        span: Span,
        out: &mut Vec<Stmt>,
    ) -> FrontResult<Expr> {
        let e = Expr::Apply {
            name: n.to_string(),
            args: args.clone(),
            span,
        };
        let rank = match args.first() {
            Some(a) => self.ty(&a.value).rank,
            None => return self.err(span, format!("{n} needs an array")),
        };
        let (view, _) =
            self.new_temp_array(Cat::Int, &[Expr::int(rank as i64, span)], span, out)?;
        let reads = args.into_iter().map(|a| a.value).collect();
        out.push(stmt(
            StmtKind::Opaque {
                kind: OpaqueKind::PassiveAssign,
                text: format!("{} = {}", view.name, unparse::expr(&e)),
                reads,
                writes: vec![name(&view.name, span)],
            },
            span,
        ));
        Ok(name(&view.name, span))
    }

    /// A scalar that loop bodies read: a constant or a variable stays, any
    /// other expression is evaluated once into a temporary.
    pub(super) fn loop_invariant(&mut self, e: Expr, out: &mut Vec<Stmt>) -> FrontResult<Expr> {
        match e {
            Expr::Lit(..) | Expr::Name(..) => Ok(e),
            e if self.prog.const_int(self.unit, &e).is_some() => Ok(e),
            e => self.scalar_temp_of(e, out),
        }
    }

    /// An array constructor (its items canonical or not) as a temporary of
    /// one dimension, filled by a counter.
    pub(super) fn constructor_temporary(
        &mut self,
        items: Vec<Expr>,
        span: Span,
        out: &mut Vec<Stmt>,
    ) -> FrontResult<Expr> {
        let items = self.fresh_implied_do_variables(items, span);
        let cat = self.ty(&Expr::ArrayCtor(items.clone(), span)).cat;
        let size = self.constructor_size(&items, span)?;
        let (view, tspace) = self.new_temp_array(cat, &[size], span, out)?;
        let c = self.zero_counter(span, out)?;
        let target = (view, tspace);
        let fill = self.constructor_fill(items, &c, &target, span)?;
        out.extend(fill);
        Ok(name(&target.0.name, span))
    }

    /// Renames every implied-do variable to a fresh loop index (the
    /// variable of a constructor's implied-do loop is local to it).
    fn fresh_implied_do_variables(&mut self, items: Vec<Expr>, span: Span) -> Vec<Expr> {
        items
            .into_iter()
            .map(|it| match it {
                Expr::ImpliedDo {
                    items,
                    mut control,
                    span: sp,
                } => {
                    let fresh = self.loop_var(span);
                    let items = items
                        .into_iter()
                        .map(|x| rename(x, &control.var, &fresh))
                        .collect();
                    control.var = fresh;
                    Expr::ImpliedDo {
                        items: self.fresh_implied_do_variables(items, span),
                        control,
                        span: sp,
                    }
                }
                other => other,
            })
            .collect()
    }

    /// The number of elements of a constructor's items (an expression:
    /// implied-do trip counts may be known only at run time).
    fn constructor_size(&self, items: &[Expr], span: Span) -> FrontResult<Expr> {
        let mut constant = 0i64;
        let mut terms: Vec<Expr> = Vec::new();
        for it in items {
            match it {
                Expr::ImpliedDo {
                    items: inner,
                    control,
                    ..
                } => {
                    let DoControl { var, lo, hi, step } = &**control;
                    let per_trip = self.constructor_size(inner, span)?;
                    let mut depends = false;
                    per_trip.walk(&mut |x| depends |= matches!(x, Expr::Name(n, _) if n == var));
                    if depends {
                        return self.err_unsupported(
                            it.span(),
                            "unsupported construct: implied-do loop whose inner bounds depend on its variable",
                        );
                    }
                    // max(0, (hi - lo + step) / step) trips.
                    let st = step.clone().unwrap_or(Expr::int(1, span));
                    let trips = Expr::Apply {
                        name: "max".into(),
                        args: vec![
                            Arg {
                                keyword: None,
                                value: Expr::int(0, span),
                            },
                            Arg {
                                keyword: None,
                                value: bin(
                                    BinOp::Div,
                                    Expr::Paren(
                                        Box::new(bin(
                                            BinOp::Add,
                                            bin(BinOp::Sub, hi.clone(), lo.clone(), span),
                                            st.clone(),
                                            span,
                                        )),
                                        span,
                                    ),
                                    st,
                                    span,
                                ),
                            },
                        ],
                        span,
                    };
                    let constant_trips = match (
                        self.prog.const_int(self.unit, lo),
                        self.prog.const_int(self.unit, hi),
                        step.as_ref()
                            .map_or(Some(1), |s| self.prog.const_int(self.unit, s)),
                    ) {
                        (Some(l), Some(h), Some(s)) if s != 0 => Some(((h - l + s) / s).max(0)),
                        _ => None,
                    };
                    let trips = match constant_trips {
                        Some(c) => Expr::int(c, span),
                        None => trips,
                    };
                    terms.push(self.fold(bin(BinOp::Mul, trips, per_trip, span)));
                }
                e if self.ty(e).rank > 0 => {
                    let s = self.space_of(e)?;
                    let mut size = Expr::int(1, span);
                    for (l, h, st) in &s {
                        size = bin(BinOp::Mul, size, trip_count(l, h, st.as_ref(), span), span);
                    }
                    terms.push(self.fold(size));
                }
                _ => constant += 1,
            }
        }
        let mut size = Expr::int(constant, span);
        for t in terms {
            size = self.fold(bin(BinOp::Add, size, t, span));
        }
        Ok(size)
    }

    /// A constant integer expression as its value.
    fn fold(&self, e: Expr) -> Expr {
        match self.prog.const_int(self.unit, &e) {
            Some(c) => Expr::int(c, e.span()),
            None => e,
        }
    }

    /// Statements storing the items of a constructor at `counter + 1`,
    /// `counter + 2`, ... of `target` (a 1-based temporary).
    fn constructor_fill(
        &mut self,
        items: Vec<Expr>,
        counter: &Expr,
        target: &(super::View, Space),
        span: Span,
    ) -> FrontResult<Vec<Stmt>> {
        let mut stmts = Vec::new();
        let next = stmt(
            StmtKind::Assign {
                lhs: counter.clone(),
                rhs: bin(BinOp::Add, counter.clone(), Expr::int(1, span), span),
            },
            span,
        );
        for it in items {
            match it {
                Expr::ImpliedDo {
                    items,
                    control,
                    span: sp,
                } => {
                    let DoControl { var, lo, hi, step } = *control;
                    let mut pre = Vec::new();
                    let lo = self.value(lo, &mut pre)?;
                    let hi = self.value(hi, &mut pre)?;
                    let step = step.map(|s| self.value(s, &mut pre)).transpose()?;
                    stmts.extend(pre);
                    let body = self.constructor_fill(items, counter, target, span)?;
                    stmts.push(stmt(
                        StmtKind::Do {
                            construct: None,
                            control: Some(DoControl { var, lo, hi, step }),
                            body,
                        },
                        sp,
                    ));
                }
                e if self.ty(&e).rank > 0 => {
                    // An array item: its elements in array element order.
                    let e = self.value_array(e, &mut stmts)?;
                    let space = self.space_of(&e)?;
                    let vars: Vec<String> = (0..space.len()).map(|_| self.loop_var(span)).collect();
                    let idx: Vec<Expr> = vars.iter().map(|v| name(v, span)).collect();
                    let el = self.elementwise(&e, &idx, &space)?;
                    let lhs =
                        self.element(&target.0, std::slice::from_ref(counter), &target.1, span)?;
                    let body = vec![next.clone(), stmt(StmtKind::Assign { lhs, rhs: el }, span)];
                    stmts.extend(self.loops(&vars, &space, body, span));
                }
                e => {
                    let v = self.value(e, &mut stmts)?;
                    let lhs =
                        self.element(&target.0, std::slice::from_ref(counter), &target.1, span)?;
                    stmts.push(next.clone());
                    stmts.push(stmt(StmtKind::Assign { lhs, rhs: v }, span));
                }
            }
        }
        Ok(stmts)
    }
}

/// `if (mask) then; c = c + 1; lhs = rhs; end if`: one element of `pack`
/// or `unpack`, `c` counting the true mask elements met so far.
fn counted_store(mask: Expr, c: Expr, lhs: Expr, rhs: Expr, span: Span) -> Stmt {
    stmt(
        StmtKind::If {
            arms: vec![(
                mask,
                vec![
                    stmt(
                        StmtKind::Assign {
                            lhs: c.clone(),
                            rhs: bin(BinOp::Add, c, Expr::int(1, span), span),
                        },
                        span,
                    ),
                    stmt(StmtKind::Assign { lhs, rhs }, span),
                ],
            )],
            otherwise: None,
        },
        span,
    )
}
