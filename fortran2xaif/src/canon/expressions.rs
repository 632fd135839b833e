//! Expressions to canonical form (C1, C5): subscripts canonicalised,
//! function references turned into calls, intrinsics checked against the
//! catalogue (others are evaluated into passive temporaries, or rejected
//! when a derivative could flow through them), n-ary `min`/`max` nested.

use crate::ast::*;
use crate::intrinsics::{self, REDUCTIONS};
use crate::sema::{Binding, Cat};
use crate::unparse;

use super::{first_user_call, name, stmt, Canon};

impl Canon<'_> {
    /// Rewrites an expression into canonical form, appending the statements
    /// it needs (function calls, reductions) to `out`.
    pub(super) fn value(&mut self, e: Expr, out: &mut Vec<Stmt>) -> FrontResult<Expr> {
        match e {
            Expr::Lit(..) => Ok(e),
            Expr::Name(ref n, sp) => match self.prog.resolve(self.unit, n) {
                Some(Binding::Var { .. }) => Ok(e),
                Some(Binding::Proc(_)) => self.err_unsupported(
                    sp,
                    format!("unsupported construct: procedure name '{n}' used as a value"),
                ),
                _ => self.err(sp, format!("'{n}' is not a variable")),
            },
            Expr::Apply {
                name: ref n, span, ..
            } => {
                let n = n.clone();
                match self.prog.resolve(self.unit, &n) {
                    Some(Binding::Var { .. }) => self.designator(e, out),
                    Some(Binding::Proc(p)) => {
                        let elemental_on_arrays =
                            self.prog.units[p].is_elemental() && self.ty(&e).rank > 0;
                        let Expr::Apply { args, .. } = e else {
                            unreachable!()
                        };
                        if elemental_on_arrays {
                            return self.elemental_function_array(p, args, span, out);
                        }
                        self.function_call(p, args, span, out)
                    }
                    Some(Binding::StmtFunction(..)) => {
                        self.err(span, "internal error: statement function left")
                    }
                    Some(Binding::Intrinsic) | None => {
                        let Expr::Apply { args, .. } = e else {
                            unreachable!()
                        };
                        self.intrinsic(n, args, span, out)
                    }
                }
            }
            Expr::Member { span, .. } => {
                // Derived types are passive: read the component into a
                // temporary through an opaque statement.
                let t = self.ty(&e);
                if let Some((f, sp)) = first_user_call(self.prog, self.unit, &e) {
                    return self.err_unsupported(
                        sp,
                        format!(
                            "unsupported construct: user function '{f}' in a component reference"
                        ),
                    );
                }
                if t.rank == 0 && !matches!(t.cat, Cat::Unknown | Cat::Char | Cat::Derived) {
                    let tmp = self.temp(t.cat, span)?;
                    let text = format!("{tmp} = {}", unparse::expr(&e));
                    out.push(stmt(
                        StmtKind::Opaque {
                            kind: OpaqueKind::PassiveAssign,
                            text,
                            reads: vec![e],
                            writes: vec![name(&tmp, span)],
                        },
                        span,
                    ));
                    return Ok(name(&tmp, span));
                }
                self.err_unsupported(span, "unsupported construct: derived-type component in an expression of the numerical core (derived types are passive containers)")
            }
            Expr::Unary(op, x, sp) => Ok(Expr::Unary(op, Box::new(self.value(*x, out)?), sp)),
            Expr::Binary(op, l, r, sp) => {
                let l = self.value(*l, out)?;
                let r = self.value(*r, out)?;
                Ok(Expr::Binary(op, Box::new(l), Box::new(r), sp))
            }
            Expr::Paren(x, sp) => {
                let v = self.value(*x, out)?;
                Ok(match v {
                    Expr::Name(..) | Expr::Lit(..) | Expr::Apply { .. } | Expr::Paren(..) => v,
                    v => Expr::Paren(Box::new(v), sp),
                })
            }
            Expr::Range { span, .. } => self.err(span, "array section outside a subscript"),
            // Constructors are array values (`value_array`).
            Expr::ArrayCtor(_, span) => self.err_unsupported(
                span,
                "unsupported construct: array constructor where a scalar is expected",
            ),
            Expr::ImpliedDo { span, .. } => self.err_unsupported(
                span,
                "unsupported construct: implied-do loop outside an array constructor or I/O list",
            ),
        }
    }

    /// An array element or section reference with canonical subscripts.
    pub(super) fn designator(&mut self, e: Expr, out: &mut Vec<Stmt>) -> FrontResult<Expr> {
        match e {
            Expr::Apply {
                name: n,
                args,
                span,
            } => {
                let mut subs = Vec::new();
                for a in args {
                    if a.keyword.is_some() {
                        return self.err(span, "keyword in an array subscript");
                    }
                    let v = match a.value {
                        Expr::Range {
                            lo,
                            hi,
                            stride,
                            span: rs,
                        } => {
                            let mut f =
                                |x: Option<Box<Expr>>,
                                 out: &mut Vec<Stmt>|
                                 -> FrontResult<Option<Box<Expr>>> {
                                    x.map(|b| self.value(*b, out).map(Box::new)).transpose()
                                };
                            let lo = f(lo, out)?;
                            let hi = f(hi, out)?;
                            let stride = f(stride, out)?;
                            Expr::Range {
                                lo,
                                hi,
                                stride,
                                span: rs,
                            }
                        }
                        // A vector subscript: scalarised with the array.
                        v if self.ty(&v).rank > 0 => self.value_array(v, out)?,
                        v => self.value(v, out)?,
                    };
                    subs.push(Arg {
                        keyword: None,
                        value: v,
                    });
                }
                Ok(Expr::Apply {
                    name: n,
                    args: subs,
                    span,
                })
            }
            other => Ok(other),
        }
    }

    fn intrinsic(
        &mut self,
        n: String,
        args: Vec<Arg>,
        span: Span,
        out: &mut Vec<Stmt>,
    ) -> FrontResult<Expr> {
        if REDUCTIONS.contains(&n.as_str()) {
            return self.reduction(&n, args, span, out);
        }
        if n == "norm2" {
            let e = self.norm2_as_sum(&args, span)?;
            return self.value(e, out);
        }
        if n == "matmul" || n == "transpose" {
            return self.err_unsupported(span, format!("unsupported construct: {n} inside an expression (assign it to an array directly)"));
        }
        // Inquiries about arrays keep the whole array as argument.
        let inquiry = matches!(
            n.as_str(),
            "size"
                | "lbound"
                | "ubound"
                | "present"
                | "allocated"
                | "associated"
                | "len"
                | "kind"
                | "huge"
                | "tiny"
                | "epsilon"
                | "digits"
                | "precision"
                | "shape"
        );
        let mut new_args = Vec::new();
        for a in args {
            let v = if inquiry && matches!(a.value, Expr::Name(..)) {
                a.value
            } else {
                self.value(a.value, out)?
            };
            new_args.push(Arg {
                keyword: a.keyword,
                value: v,
            });
        }
        // n-ary min/max as nested binary calls.
        if (intrinsics::xaif_name(&n) == Some("min_scal_scal")
            || intrinsics::xaif_name(&n) == Some("max_scal_scal"))
            && new_args.len() > 2
        {
            let mut it = new_args.into_iter();
            let first = it.next().expect("args");
            let mut acc = first.value;
            for a in it {
                acc = Expr::Apply {
                    name: n.clone(),
                    args: vec![
                        Arg {
                            keyword: None,
                            value: acc,
                        },
                        Arg {
                            keyword: None,
                            value: a.value,
                        },
                    ],
                    span,
                };
            }
            return Ok(acc);
        }
        let e = Expr::Apply {
            name: n.clone(),
            args: new_args,
            span,
        };
        let t = self.ty(&e);
        if t.rank > 0 {
            return Ok(e); // elemental on arrays: handled by scalarisation
        }
        if n == "merge" && t.cat.is_real() {
            let Expr::Apply { args, .. } = e else {
                unreachable!()
            };
            return self.merge_scalar(&args, t.cat, span, out);
        }
        let complex_arg = {
            let Expr::Apply { args: ref a, .. } = e else {
                unreachable!()
            };
            a.iter()
                .any(|x| matches!(self.ty(&x.value).cat, Cat::Complex(_)))
        };
        if intrinsics::xaif_name(&n).is_some() && !complex_arg {
            return Ok(e);
        }
        // `real`, `aimag`, `abs` of complex data with parts (conditions,
        // actual arguments, ...): an expression of the parts.
        if complex_arg && t.cat.is_real() && self.reads_complex_parts(&e) {
            let lowered = self.lower_complex_reads(e, out)?;
            return self.value(lowered, out);
        }
        // Outside the catalogue: fine when no derivative can flow through.
        let Expr::Apply { args: ref a, .. } = e else {
            unreachable!()
        };
        // Complex data is passive: only real arguments can carry derivatives.
        let real_arg = a
            .iter()
            .any(|x| self.ty(&x.value).cat.is_real() && !matches!(x.value, Expr::Lit(..)));
        let value_free = matches!(
            n.as_str(),
            "huge"
                | "tiny"
                | "epsilon"
                | "kind"
                | "digits"
                | "precision"
                | "present"
                | "allocated"
                | "associated"
                | "size"
                | "shape"
                | "range"
                | "radix"
                | "maxexponent"
                | "minexponent"
        );
        // Bit-level intrinsics stay passive; the pipeline warns when they
        // touch active data (`bit_intrinsics`).
        let bit_level = intrinsics::BIT_LEVEL.contains(&n.as_str());
        if real_arg
            && !value_free
            && !bit_level
            && (t.cat.is_real() || matches!(t.cat, Cat::Complex(_)))
        {
            return self.err_unsupported(
                span,
                format!("unsupported construct: intrinsic '{n}' on real data (no derivative rule)"),
            );
        }
        let tmp = match (&t.cat, self.char_result_bound(&n, &e)) {
            (Cat::Char, Some(len)) => self.char_temp(len, span),
            _ => self.temp(t.cat, span)?,
        };
        let text = format!("{tmp} = {}", unparse::expr(&e));
        out.push(stmt(
            StmtKind::Opaque {
                kind: OpaqueKind::PassiveAssign,
                text,
                reads: vec![e],
                writes: vec![name(&tmp, span)],
            },
            span,
        ));
        Ok(name(&tmp, span))
    }
}
