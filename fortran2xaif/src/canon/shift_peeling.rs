//! `cshift` with constant shifts, peeled: the index map of `arrays.rs`
//! reads position `mod(p + s + n, n)`, an integer division per element
//! and reference. When the right side of an array assignment reads
//! `cshift`s with constant shifts along one dimension of the target, that
//! dimension's loop is split at the positions where some shift wraps
//! around (`-s` for a negative shift, `n - s` for a positive one): inside
//! each piece every shifted reference reads at a constant offset (`s`,
//! `s + n` or `s - n`), as a hand-written periodic loop would.
//!
//! The pieces are in that order only when `n >= max(-s) + max(s)`; when
//! the extent is not a known constant the peeled loops run under that
//! test and the `mod` loops in the other branch, so a short array is
//! still right.

use crate::ast::*;

use super::{bin, stmt, trip_count, Canon, Space, SHIFT_BY_OFFSET};

/// An end of a piece: a constant position `c`, or `n - c`.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Position {
    FromStart(i64),
    FromEnd(std::cmp::Reverse<i64>),
}

impl Canon<'_> {
    /// The loops of `target = rhs` (element assignment `body` built by
    /// `make_body` from a right side), peeled as in the module comment, or
    /// `None` when the right side has no top-level `cshift` with constant
    /// shifts along one dimension (or that dimension runs backward).
    pub(super) fn peeled_shift_loops(
        &mut self,
        rhs: &Expr,
        space: &Space,
        vars: &[String],
        reversed: &[bool],
        span: Span,
        make_body: &mut dyn FnMut(&Self, &Expr) -> FrontResult<Vec<Stmt>>,
    ) -> FrontResult<Option<Vec<Stmt>>> {
        let mut shifts = Vec::new();
        if !self.top_level_shifts(rhs, &mut shifts)? || shifts.is_empty() {
            return Ok(None);
        }
        let d = shifts[0].0;
        if d >= space.len()
            || shifts.iter().any(|(k, _)| *k != d)
            || reversed.get(d).copied().unwrap_or(true)
        {
            return Ok(None);
        }
        let (lo, hi, st) = &space[d];
        let n = trip_count(lo, hi, st.as_ref(), span);
        let below = shifts.iter().map(|(_, s)| -s).max().unwrap_or(0).max(0);
        let above = shifts.iter().map(|(_, s)| *s).max().unwrap_or(0).max(0);
        let known = self.prog.const_int(self.unit, &n);
        if known.is_some_and(|n| n < below + above) {
            return Ok(None);
        }
        let mut ends = vec![
            Position::FromStart(0),
            Position::FromEnd(std::cmp::Reverse(0)),
        ];
        for (_, s) in &shifts {
            ends.push(match *s {
                s if s < 0 => Position::FromStart(-s),
                s => Position::FromEnd(std::cmp::Reverse(s)),
            });
        }
        ends.sort();
        ends.dedup();
        let at = |p: Position| match p {
            Position::FromStart(c) => Expr::int(c, span),
            Position::FromEnd(std::cmp::Reverse(0)) => n.clone(),
            Position::FromEnd(std::cmp::Reverse(c)) => {
                bin(BinOp::Sub, n.clone(), Expr::int(c, span), span)
            }
        };
        let mut pieces = Vec::new();
        for w in ends.windows(2) {
            let (a, b) = (w[0], w[1]);
            // The offset of a shift inside [a, b).
            let offset = |s: i64| -> Expr {
                let wraps_low = s < 0 && matches!(b, Position::FromStart(c) if c <= -s);
                let wraps_high =
                    s > 0 && matches!(a, Position::FromEnd(std::cmp::Reverse(c)) if c <= s);
                if wraps_low {
                    bin(BinOp::Add, Expr::int(s, span), n.clone(), span)
                } else if wraps_high {
                    bin(BinOp::Sub, Expr::int(s, span), n.clone(), span)
                } else {
                    Expr::int(s, span)
                }
            };
            let piece_rhs = self.with_offsets(rhs, &offset);
            let body = make_body(self, &piece_rhs)?;
            let index = |p: Expr| -> Expr {
                let p = match st {
                    Some(s) => bin(BinOp::Mul, p, s.clone(), span),
                    None => p,
                };
                let e = bin(BinOp::Add, lo.clone(), p, span);
                match self.prog.const_int(self.unit, &e) {
                    Some(c) => Expr::int(c, span),
                    None => e,
                }
            };
            let last = bin(BinOp::Sub, at(b), Expr::int(1, span), span);
            let mut piece_space = space.clone();
            piece_space[d] = (index(at(a)), index(last), st.clone());
            pieces.extend(self.directed_loops(vars, &piece_space, reversed, body, span));
        }
        Ok(Some(match known {
            Some(_) => pieces,
            None => {
                let modular = make_body(self, rhs)?;
                let modular = self.directed_loops(vars, space, reversed, modular, span);
                vec![stmt(
                    StmtKind::If {
                        arms: vec![(
                            bin(BinOp::Ge, n, Expr::int(below + above, span), span),
                            pieces,
                        )],
                        otherwise: Some(modular),
                    },
                    span,
                )]
            }
        }))
    }

    /// Collects `(dimension, shift)` of the `cshift`s of `e` outside any
    /// index map; false when one of them has a shift that is not a
    /// constant.
    fn top_level_shifts(&self, e: &Expr, out: &mut Vec<(usize, i64)>) -> FrontResult<bool> {
        match e {
            Expr::Apply {
                name: n,
                args,
                span,
            } if self.prog.var(self.unit, n).is_none() => {
                if n == "cshift" {
                    let (_, shift, d) = self.cshift_args(args, *span)?;
                    return Ok(match self.prog.const_int(self.unit, &shift) {
                        Some(s) => {
                            out.push((d, s));
                            true
                        }
                        None => false,
                    });
                }
                if matches!(n.as_str(), "transpose" | "reshape" | "spread") {
                    return Ok(true);
                }
                for a in args {
                    if !self.top_level_shifts(&a.value, out)? {
                        return Ok(false);
                    }
                }
                Ok(true)
            }
            Expr::Unary(_, x, _) | Expr::Paren(x, _) => self.top_level_shifts(x, out),
            Expr::Binary(_, l, r, _) => {
                Ok(self.top_level_shifts(l, out)? && self.top_level_shifts(r, out)?)
            }
            _ => Ok(true),
        }
    }

    /// `e` with every top-level `cshift(a, s, d)` replaced by a read of `a`
    /// at the constant offset `offset(s)` along `d`.
    fn with_offsets(&self, e: &Expr, offset: &dyn Fn(i64) -> Expr) -> Expr {
        match e {
            Expr::Apply {
                name: n,
                args,
                span,
            } if self.prog.var(self.unit, n).is_none() => {
                if n == "cshift" {
                    if let Ok((array, shift, d)) = self.cshift_args(args, *span) {
                        if let Some(s) = self.prog.const_int(self.unit, &shift) {
                            let arg = |value| Arg {
                                keyword: None,
                                value,
                            };
                            return Expr::Apply {
                                name: SHIFT_BY_OFFSET.into(),
                                args: vec![
                                    arg(array),
                                    arg(offset(s)),
                                    arg(Expr::int(d as i64 + 1, *span)),
                                ],
                                span: *span,
                            };
                        }
                    }
                }
                if matches!(n.as_str(), "transpose" | "reshape" | "spread") {
                    return e.clone();
                }
                Expr::Apply {
                    name: n.clone(),
                    args: args
                        .iter()
                        .map(|a| Arg {
                            keyword: a.keyword.clone(),
                            value: self.with_offsets(&a.value, offset),
                        })
                        .collect(),
                    span: *span,
                }
            }
            Expr::Unary(op, x, sp) => Expr::Unary(*op, Box::new(self.with_offsets(x, offset)), *sp),
            Expr::Paren(x, sp) => Expr::Paren(Box::new(self.with_offsets(x, offset)), *sp),
            Expr::Binary(op, l, r, sp) => Expr::Binary(
                *op,
                Box::new(self.with_offsets(l, offset)),
                Box::new(self.with_offsets(r, offset)),
                *sp,
            ),
            other => other.clone(),
        }
    }
}
