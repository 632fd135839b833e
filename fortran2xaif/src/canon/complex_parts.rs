//! Active complex data: `complex(8)` arithmetic rewritten as real
//! arithmetic on the parts `z%re`, `z%im` (component paths of the
//! synthetic type `complex`, `components.rs`), so the booster and the
//! back end see real data only (docs/xaif.md, "Active complex data").
//!
//! An assignment to a `complex(8)` variable becomes two real assignments;
//! `real`, `dble`, `aimag` and `abs` of complex data inside real
//! expressions become expressions of the parts. Supported on complex
//! values: `+ - * /`, `**` by a small integer constant, `conjg`, `cmplx`,
//! `dcmplx`, `exp`, complex literals and passive complex values
//! (parameters, `complex(4)`), which are read through `real`/`aimag` into
//! passive temporaries. Anything else on complex data with parts is a
//! named error.

use crate::ast::*;
use crate::sema::{Binding, Cat};

use super::{bin, name, paren, Canon};

/// The parts of a complex value; `None` for an imaginary part that is
/// zero (real data in complex arithmetic).
type Parts = (Expr, Option<Expr>);

const SUPPORTED: &str = "supported on complex(8) data: + - * /, ** by an integer constant 1 to 4, conjg, cmplx, dcmplx, exp, real, dble, aimag, abs";

fn zero(span: Span) -> Expr {
    Expr::Lit(Literal::Real("0.0d0".into()), span)
}

fn neg(e: Expr, span: Span) -> Expr {
    Expr::Unary(UnOp::Neg, Box::new(paren(e, span)), span)
}

fn call(n: &str, args: Vec<Expr>, span: Span) -> Expr {
    Expr::Apply {
        name: n.into(),
        args: args
            .into_iter()
            .map(|value| Arg {
                keyword: None,
                value,
            })
            .collect(),
        span,
    }
}

/// The parts of a complex literal `(1.5d0, -2)` as real literals.
fn literal_parts(text: &str, span: Span) -> Option<Parts> {
    let inner = text.trim().strip_prefix('(')?.strip_suffix(')')?;
    let (a, b) = inner.split_once(',')?;
    let part = |t: &str| {
        let t = t.trim();
        let (negative, t) = match t.strip_prefix('-') {
            Some(r) => (true, r.trim()),
            None => (false, t.strip_prefix('+').unwrap_or(t).trim()),
        };
        let lit = if t.chars().all(|c| c.is_ascii_digit()) {
            Expr::Lit(Literal::Int(t.to_string()), span)
        } else {
            Expr::Lit(Literal::Real(t.to_string()), span)
        };
        if negative {
            neg(lit, span)
        } else {
            lit
        }
    };
    Some((part(a), Some(part(b))))
}

fn mul(a: Expr, b: Expr, span: Span) -> Expr {
    bin(BinOp::Mul, paren(a, span), paren(b, span), span)
}

impl Canon<'_> {
    /// The component path of part `leaf` of the `complex(8)` variable `n`
    /// and the variable's rank, when it has parts.
    fn complex_part_path(&self, n: &str, leaf: &str) -> Option<(String, usize)> {
        let (o, k) = self.prog.var(self.unit, n)?;
        let s = self.prog.symbol(o, k);
        if s.component.is_some() || self.prog.cat_of(o, &s.ty) != Cat::Complex(8) {
            return None;
        }
        let r = s.rank();
        let path = if r > 0 {
            format!("{n}({r})%{leaf}")
        } else {
            format!("{n}%{leaf}")
        };
        self.prog.resolve_component_path(self.unit, &path)?;
        Some((path, r))
    }

    /// A reference to part `leaf` of a complex variable reference.
    fn part_ref(&self, e: &Expr, leaf: &str) -> Option<Expr> {
        match e {
            Expr::Name(n, span) => {
                let (path, rank) = self.complex_part_path(n, leaf)?;
                if rank == 0 {
                    return Some(name(&path, *span));
                }
                let args = (0..rank)
                    .map(|_| Arg {
                        keyword: None,
                        value: Expr::Range {
                            lo: None,
                            hi: None,
                            stride: None,
                            span: *span,
                        },
                    })
                    .collect();
                Some(Expr::Apply {
                    name: path,
                    args,
                    span: *span,
                })
            }
            Expr::Apply {
                name: n,
                args,
                span,
            } => {
                let (path, _) = self.complex_part_path(n, leaf)?;
                Some(Expr::Apply {
                    name: path,
                    args: args.clone(),
                    span: *span,
                })
            }
            _ => None,
        }
    }

    /// The base variable of a reference to a complex variable with parts.
    fn complex_base(&self, e: &Expr) -> Option<String> {
        match e {
            Expr::Name(n, _) | Expr::Apply { name: n, .. } => {
                self.complex_part_path(n, "re").map(|_| n.clone())
            }
            _ => None,
        }
    }

    /// Whether `e` reads a complex variable with parts.
    pub(super) fn reads_complex_parts(&self, e: &Expr) -> bool {
        let mut found = false;
        e.walk(&mut |x| {
            if !found && self.complex_base(x).is_some() {
                found = true;
            }
        });
        found
    }

    /// Whether `e` reads data that may carry derivatives: a real variable
    /// or a complex variable with parts.
    fn reads_differentiable(&self, e: &Expr) -> bool {
        let mut found = self.reads_complex_parts(e);
        e.walk(&mut |x| {
            if let Expr::Name(n, _) | Expr::Apply { name: n, .. } = x {
                if let Some((o, k)) = self.prog.var(self.unit, n) {
                    let s = self.prog.symbol(o, k);
                    found |= !s.parameter && self.prog.cat_of(o, &s.ty).is_real();
                }
            }
        });
        found
    }

    /// Whether an assignment to `lhs` is rewritten into its parts.
    pub(super) fn is_complex_parts_target(&self, lhs: &Expr) -> bool {
        self.complex_base(lhs).is_some()
    }

    /// `lhs = rhs` for a complex variable with parts: one assignment per
    /// part. The imaginary part goes through a temporary when the right
    /// side reads the target (the real part is written first).
    pub(super) fn complex_assign(
        &mut self,
        lhs: Expr,
        rhs: Expr,
        span: Span,
        out: &mut Vec<Stmt>,
    ) -> FrontResult<()> {
        let base = self.complex_base(&lhs).unwrap_or_default();
        let (Some(lre), Some(lim)) = (self.part_ref(&lhs, "re"), self.part_ref(&lhs, "im")) else {
            return self.err_unsupported(
                span,
                "unsupported construct: this complex assignment target",
            );
        };
        let mut reads_target = false;
        rhs.walk(&mut |x| {
            if let Expr::Name(n, _) | Expr::Apply { name: n, .. } = x {
                if *n == base {
                    reads_target = true;
                }
            }
        });
        let rank = self.ty(&lhs).rank;
        let (re, im) = self.complex_parts(&rhs, rank == 0, out)?;
        let mut im = im.unwrap_or_else(|| zero(span));
        let mut dealloc = None;
        if reads_target {
            if self.ty(&im).rank == 0 {
                let t = self.temp(Cat::Real(8), span)?;
                self.assign(name(&t, span), im, span, out)?;
                im = name(&t, span);
            } else {
                // An array of imaginary parts, computed before the real
                // parts change.
                let (t, d) = self.array_temp_of(im, span, out)?;
                im = name(&t, span);
                dealloc = d;
            }
        }
        self.assign(lre, re, span, out)?;
        self.assign(lim, im, span, out)?;
        out.extend(dealloc);
        Ok(())
    }

    /// A scalar operand used twice: a real temporary unless it is a
    /// variable or constant (arrays are repeated as they are).
    fn atom(&mut self, e: Expr, scalar: bool, out: &mut Vec<Stmt>) -> FrontResult<Expr> {
        if !scalar || matches!(e, Expr::Name(..) | Expr::Lit(..)) {
            return Ok(e);
        }
        if let Expr::Apply { name: n, .. } = &e {
            if self.prog.var(self.unit, n).is_some() {
                return Ok(e);
            }
        }
        let span = e.span();
        let t = self.temp(Cat::Real(8), span)?;
        self.assign(name(&t, span), e, span, out)?;
        Ok(name(&t, span))
    }

    fn atom_parts(&mut self, p: Parts, scalar: bool, out: &mut Vec<Stmt>) -> FrontResult<Parts> {
        let re = self.atom(p.0, scalar, out)?;
        let im = match p.1 {
            Some(x) => Some(self.atom(x, scalar, out)?),
            None => None,
        };
        Ok((re, im))
    }

    /// The real and imaginary parts of a complex-valued (or real-valued)
    /// expression as real expressions.
    fn complex_parts(&mut self, e: &Expr, scalar: bool, out: &mut Vec<Stmt>) -> FrontResult<Parts> {
        let span = e.span();
        let cat = self.ty(e).cat;
        if !matches!(cat, Cat::Complex(_)) {
            return Ok((self.lower_complex_reads(e.clone(), out)?, None));
        }
        if let Expr::Lit(Literal::Complex(text), _) = e {
            if let Some(p) = literal_parts(text, span) {
                return Ok(p);
            }
        }
        let opaque_value = match e {
            Expr::Name(..) => true,
            Expr::Apply { name: f, .. } => self.prog.var(self.unit, f).is_some(),
            Expr::Lit(..) => true,
            _ => false,
        };
        if opaque_value && !self.reads_differentiable(e) {
            // Passive complex value: its parts through passive temporaries.
            let kind8 = Arg {
                keyword: Some("kind".into()),
                value: Expr::int(8, span),
            };
            let re = Expr::Apply {
                name: "real".into(),
                args: vec![
                    Arg {
                        keyword: None,
                        value: e.clone(),
                    },
                    kind8.clone(),
                ],
                span,
            };
            let im = call("real", vec![call("aimag", vec![e.clone()], span)], span);
            let im = match im {
                Expr::Apply {
                    name,
                    mut args,
                    span,
                } => {
                    args.push(kind8);
                    Expr::Apply { name, args, span }
                }
                x => x,
            };
            return Ok((re, Some(im)));
        }
        if let (Some(re), Some(im)) = (self.part_ref(e, "re"), self.part_ref(e, "im")) {
            return Ok((re, Some(im)));
        }
        match e {
            Expr::Paren(x, _) => self.complex_parts(x, scalar, out),
            Expr::Unary(UnOp::Plus, x, _) => self.complex_parts(x, scalar, out),
            Expr::Unary(UnOp::Neg, x, _) => {
                let (re, im) = self.complex_parts(x, scalar, out)?;
                Ok((neg(re, span), im.map(|i| neg(i, span))))
            }
            Expr::Binary(op @ (BinOp::Add | BinOp::Sub), a, b, _) => {
                let (ar, ai) = self.complex_parts(a, scalar, out)?;
                let (br, bi) = self.complex_parts(b, scalar, out)?;
                let re = bin(*op, ar, paren(br, span), span);
                let im = match (ai, bi) {
                    (None, None) => None,
                    (Some(x), None) => Some(x),
                    (None, Some(y)) if *op == BinOp::Add => Some(y),
                    (None, Some(y)) => Some(neg(y, span)),
                    (Some(x), Some(y)) => Some(bin(*op, x, paren(y, span), span)),
                };
                Ok((re, im))
            }
            Expr::Binary(BinOp::Mul, a, b, _) => {
                let pa = self.complex_parts(a, scalar, out)?;
                let pb = self.complex_parts(b, scalar, out)?;
                self.product(pa, pb, scalar, span, out)
            }
            Expr::Binary(BinOp::Div, a, b, _) => {
                let (ar, ai) = self.complex_parts(a, scalar, out)?;
                let (br, bi) = self.complex_parts(b, scalar, out)?;
                let Some(bi) = bi else {
                    let br = self.atom(br, scalar, out)?;
                    let re = bin(BinOp::Div, paren(ar, span), br.clone(), span);
                    return Ok((re, ai.map(|i| bin(BinOp::Div, paren(i, span), br, span))));
                };
                let (ar, ai) = self.atom_parts((ar, ai), scalar, out)?;
                let (c, d) = self.atom_parts((br, Some(bi)), scalar, out)?;
                let d = d.unwrap_or_else(|| zero(span));
                if scalar {
                    return self.smith_quotient((ar, ai), (c, d), span, out);
                }
                // Arrays, element by element:
                // (a + ib)/(c + id) = ((ac + bd) + i(bc - ad)) / (c² + d²)
                let den = bin(
                    BinOp::Add,
                    mul(c.clone(), c.clone(), span),
                    mul(d.clone(), d.clone(), span),
                    span,
                );
                let den = paren(den, span);
                let (num_re, num_im) = match ai {
                    Some(b) => (
                        bin(
                            BinOp::Add,
                            mul(ar.clone(), c.clone(), span),
                            mul(b.clone(), d.clone(), span),
                            span,
                        ),
                        bin(BinOp::Sub, mul(b, c, span), mul(ar, d, span), span),
                    ),
                    None => (mul(ar.clone(), c, span), neg(mul(ar, d, span), span)),
                };
                Ok((
                    bin(BinOp::Div, paren(num_re, span), den.clone(), span),
                    Some(bin(BinOp::Div, paren(num_im, span), den, span)),
                ))
            }
            Expr::Binary(BinOp::Pow, a, b, _) => {
                let n = b.const_int().filter(|n| (1..=4).contains(n));
                let Some(n) = n else {
                    return self.err_unsupported(
                        span,
                        format!("unsupported construct: '**' on active complex data with this exponent ({SUPPORTED})"),
                    );
                };
                let pa = self.complex_parts(a, scalar, out)?;
                let pa = self.atom_parts(pa, scalar, out)?;
                let mut acc = pa.clone();
                for i in 1..n {
                    acc = self.product(acc, pa.clone(), scalar, span, out)?;
                    if i + 1 < n {
                        acc = self.atom_parts(acc, scalar, out)?;
                    }
                }
                Ok(acc)
            }
            Expr::Apply { name: f, .. }
                if matches!(self.prog.resolve(self.unit, f), Some(Binding::Proc(_))) =>
            {
                // A user function: its result lands in a complex temporary
                // with parts.
                let v = self.value(e.clone(), out)?;
                if self.complex_base(&v).is_none() {
                    return self.err_unsupported(
                        span,
                        format!("unsupported construct: complex result of '{f}' on active data"),
                    );
                }
                self.complex_parts(&v, scalar, out)
            }
            Expr::Apply { name: f, args, .. } => self.complex_intrinsic(f, args, scalar, span, out),
            _ => self.err_unsupported(
                span,
                format!(
                    "unsupported construct: this expression on active complex data ({SUPPORTED})"
                ),
            ),
        }
    }

    /// (a + ib)/(c + id) by Smith's algorithm, operation for operation as
    /// gfortran divides complex numbers inline (so the canonical source
    /// gives the same bits, and no overflow in c² + d²): with |c| < |d|,
    /// r = c/d, q = c r + d, ((a r + b) + i(b r - a))/q; else r = d/c,
    /// q = d r + c, ((b r + a) + i(b - a r))/q.
    fn smith_quotient(
        &mut self,
        (a, b): Parts,
        (c, d): (Expr, Expr),
        span: Span,
        out: &mut Vec<Stmt>,
    ) -> FrontResult<Parts> {
        let re = self.temp(Cat::Real(8), span)?;
        let im = self.temp(Cat::Real(8), span)?;
        let b = b.unwrap_or_else(|| zero(span));
        let branch = |this: &mut Self,
                      first: &Expr,
                      second: &Expr,
                      d_larger: bool|
         -> FrontResult<Vec<Stmt>> {
            let mut body = Vec::new();
            let r = this.temp(Cat::Real(8), span)?;
            let q = this.temp(Cat::Real(8), span)?;
            let rn = name(&r, span);
            let qn = name(&q, span);
            this.assign(
                rn.clone(),
                bin(BinOp::Div, first.clone(), second.clone(), span),
                span,
                &mut body,
            )?;
            this.assign(
                qn.clone(),
                bin(
                    BinOp::Add,
                    mul(first.clone(), rn.clone(), span),
                    second.clone(),
                    span,
                ),
                span,
                &mut body,
            )?;
            let (x, y) = if d_larger {
                (
                    bin(
                        BinOp::Add,
                        mul(a.clone(), rn.clone(), span),
                        paren(b.clone(), span),
                        span,
                    ),
                    bin(
                        BinOp::Sub,
                        mul(b.clone(), rn.clone(), span),
                        paren(a.clone(), span),
                        span,
                    ),
                )
            } else {
                (
                    bin(
                        BinOp::Add,
                        mul(b.clone(), rn.clone(), span),
                        paren(a.clone(), span),
                        span,
                    ),
                    bin(BinOp::Sub, b.clone(), mul(a.clone(), rn, span), span),
                )
            };
            this.assign(
                name(&re, span),
                bin(BinOp::Div, paren(x, span), qn.clone(), span),
                span,
                &mut body,
            )?;
            this.assign(
                name(&im, span),
                bin(BinOp::Div, paren(y, span), qn, span),
                span,
                &mut body,
            )?;
            Ok(body)
        };
        let then = branch(self, &c, &d, true)?;
        let otherwise = branch(self, &d, &c, false)?;
        let cond = bin(
            BinOp::Lt,
            call("abs", vec![c.clone()], span),
            call("abs", vec![d.clone()], span),
            span,
        );
        out.push(super::stmt(
            StmtKind::If {
                arms: vec![(cond, then)],
                otherwise: Some(otherwise),
            },
            span,
        ));
        Ok((name(&re, span), Some(name(&im, span))))
    }

    /// (a + ib)(c + id) = (ac - bd) + i(ad + bc).
    fn product(
        &mut self,
        pa: Parts,
        pb: Parts,
        scalar: bool,
        span: Span,
        out: &mut Vec<Stmt>,
    ) -> FrontResult<Parts> {
        let (ar, ai) = self.atom_parts(pa, scalar, out)?;
        let (br, bi) = self.atom_parts(pb, scalar, out)?;
        let re = match (&ai, &bi) {
            (Some(x), Some(y)) => bin(
                BinOp::Sub,
                mul(ar.clone(), br.clone(), span),
                mul(x.clone(), y.clone(), span),
                span,
            ),
            _ => mul(ar.clone(), br.clone(), span),
        };
        let im = match (ai, bi) {
            (Some(x), Some(y)) => Some(bin(BinOp::Add, mul(ar, y, span), mul(x, br, span), span)),
            (Some(x), None) => Some(mul(x, br, span)),
            (None, Some(y)) => Some(mul(ar, y, span)),
            (None, None) => None,
        };
        Ok((re, im))
    }

    fn complex_intrinsic(
        &mut self,
        f: &str,
        args: &[Arg],
        scalar: bool,
        span: Span,
        out: &mut Vec<Stmt>,
    ) -> FrontResult<Parts> {
        let positional = |k: usize, kw: &str| {
            args.iter()
                .enumerate()
                .find(|(i, a)| match &a.keyword {
                    Some(w) => w == kw,
                    None => *i == k,
                })
                .map(|(_, a)| a.value.clone())
        };
        match f {
            "conjg" | "dconjg" => {
                let x = positional(0, "z").unwrap_or_else(|| zero(span));
                let (re, im) = self.complex_parts(&x, scalar, out)?;
                Ok((re, im.map(|i| neg(i, span))))
            }
            "cmplx" | "dcmplx" => {
                let x = positional(0, "x").unwrap_or_else(|| zero(span));
                if matches!(self.ty(&x).cat, Cat::Complex(_)) {
                    return self.complex_parts(&x, scalar, out);
                }
                let re = self.lower_complex_reads(x, out)?;
                let im = match positional(1, "y") {
                    Some(y) => Some(self.lower_complex_reads(y, out)?),
                    None => None,
                };
                Ok((re, im))
            }
            "exp" | "cdexp" | "zexp" => {
                let x = positional(0, "x").unwrap_or_else(|| zero(span));
                let (re, im) = self.complex_parts(&x, scalar, out)?;
                let ex = call("exp", vec![re], span);
                let Some(im) = im else {
                    return Ok((ex, None));
                };
                // exp(a + ib) = exp(a) (cos b + i sin b)
                let ex = self.atom(ex, scalar, out)?;
                let im = self.atom(im, scalar, out)?;
                Ok((
                    mul(ex.clone(), call("cos", vec![im.clone()], span), span),
                    Some(mul(ex, call("sin", vec![im], span), span)),
                ))
            }
            _ => self.err_unsupported(
                span,
                format!(
                    "unsupported construct: intrinsic '{f}' on active complex data ({SUPPORTED})"
                ),
            ),
        }
    }

    /// A real-valued expression with `real`, `dble`, `aimag`, `abs` of
    /// complex data with parts replaced by expressions of the parts.
    pub(super) fn lower_complex_reads(
        &mut self,
        e: Expr,
        out: &mut Vec<Stmt>,
    ) -> FrontResult<Expr> {
        if !self.reads_complex_parts(&e) {
            return Ok(e);
        }
        let span = e.span();
        let t = self.ty(&e);
        if matches!(t.cat, Cat::Complex(_)) {
            // Complex to real conversion keeps the real part.
            return Ok(self.complex_parts(&e, t.rank == 0, out)?.0);
        }
        Ok(match e {
            Expr::Apply { name: f, args, span } => {
                let first = args.first().map(|a| a.value.clone());
                let complex_arg = first
                    .as_ref()
                    .is_some_and(|x| matches!(self.ty(x).cat, Cat::Complex(_)));
                let scalar = self.ty(&Expr::Apply { name: f.clone(), args: args.clone(), span }).rank == 0;
                match (f.as_str(), first) {
                    ("real" | "dble" | "dreal", Some(x)) if complex_arg => self.complex_parts(&x, scalar, out)?.0,
                    ("aimag" | "dimag", Some(x)) if complex_arg => {
                        self.complex_parts(&x, scalar, out)?.1.unwrap_or_else(|| zero(span))
                    }
                    ("abs" | "cabs" | "cdabs" | "zabs", Some(x)) if complex_arg => {
                        let (re, im) = self.complex_parts(&x, scalar, out)?;
                        let (re, im) = self.atom_parts((re, im), scalar, out)?;
                        match im {
                            // |z| = sqrt(re² + im²); not differentiable at 0, as abs.
                            Some(im) => call(
                                "sqrt",
                                vec![bin(BinOp::Add, mul(re.clone(), re, span), mul(im.clone(), im, span), span)],
                                span,
                            ),
                            None => call("abs", vec![re], span),
                        }
                    }
                    (_, _) if self.prog.var(self.unit, &f).is_some() => Expr::Apply { name: f, args, span },
                    (_, _) if complex_arg => {
                        return self.err_unsupported(
                            span,
                            format!("unsupported construct: intrinsic '{f}' on active complex data ({SUPPORTED})"),
                        )
                    }
                    (_, _) => {
                        let mut new = Vec::new();
                        for a in args {
                            new.push(Arg {
                                keyword: a.keyword,
                                value: self.lower_complex_reads(a.value, out)?,
                            });
                        }
                        Expr::Apply { name: f, args: new, span }
                    }
                }
            }
            Expr::Paren(x, s) => Expr::Paren(Box::new(self.lower_complex_reads(*x, out)?), s),
            Expr::Unary(op, x, s) => Expr::Unary(op, Box::new(self.lower_complex_reads(*x, out)?), s),
            Expr::Binary(op, a, b, s) => {
                let a = self.lower_complex_reads(*a, out)?;
                let b = self.lower_complex_reads(*b, out)?;
                Expr::Binary(op, Box::new(a), Box::new(b), s)
            }
            _ => {
                return self.err_unsupported(
                    span,
                    format!("unsupported construct: complex data with parts in this real expression ({SUPPORTED})"),
                )
            }
        })
    }
}
