//! Statements and control flow: dispatch on the statement kind, `if` chains
//! (an `else if` condition that needs statements becomes a nested `if`),
//! `do` and `do while` (a condition that calls functions is re-evaluated
//! at the end of each trip), `select case` (kept when its cases are single
//! integer constants, which XAIF's Branch can express; otherwise an `if`
//! chain over a selector evaluated once).

use crate::ast::*;
use crate::intrinsics;
use crate::sema::{Binding, Cat};

use super::{bin, first_user_call, name, stmt, Canon};

impl Canon<'_> {
    pub(super) fn block(&mut self, stmts: Vec<Stmt>) -> FrontResult<Vec<Stmt>> {
        let mut out = Vec::new();
        for s in stmts {
            let label = s.label.clone();
            let start = out.len();
            // Temporaries of an enclosing statement are released after it,
            // not inside its body.
            let enclosing = std::mem::take(&mut self.pending_dealloc);
            self.stmt(s, &mut out)?;
            out.append(&mut self.pending_dealloc);
            self.pending_dealloc = enclosing;
            if let Some(l) = label {
                if out.len() == start {
                    out.push(Stmt {
                        id: 0,
                        label: None,
                        span: Span::default(),
                        kind: StmtKind::Continue,
                    });
                }
                out[start].label = Some(l);
            }
        }
        Ok(out)
    }

    fn stmt(&mut self, s: Stmt, out: &mut Vec<Stmt>) -> FrontResult<()> {
        let span = s.span;
        match s.kind {
            StmtKind::Assign { lhs, rhs } => self.assign(lhs, rhs, span, out),
            StmtKind::Call { name, args } => self.call(name, args, span, out),
            StmtKind::If { arms, otherwise } => self.if_chain(arms, otherwise, span, out),
            StmtKind::Do {
                construct,
                control,
                body,
            } => {
                let control = match control {
                    Some(c) => {
                        match self.prog.var(self.unit, &c.var) {
                            Some((o, k))
                                if self.prog.cat_of(o, &self.prog.symbol(o, k).ty.clone())
                                    == Cat::Int => {}
                            _ => {
                                return self.err(
                                    span,
                                    format!("do variable '{}' must be an integer variable", c.var),
                                )
                            }
                        }
                        let lo = self.value(c.lo, out)?;
                        let hi = self.value(c.hi, out)?;
                        let step = match c.step {
                            Some(st) => Some(self.value(st, out)?),
                            None => None,
                        };
                        Some(DoControl {
                            var: c.var,
                            lo,
                            hi,
                            step,
                        })
                    }
                    None => None,
                };
                let body = self.block(body)?;
                out.push(stmt(
                    StmtKind::Do {
                        construct,
                        control,
                        body,
                    },
                    span,
                ));
                Ok(())
            }
            StmtKind::DoWhile {
                construct,
                cond,
                body,
            } => {
                let mut pre = Vec::new();
                let enclosing = std::mem::take(&mut self.pending_dealloc);
                let c = self.value(cond.clone(), &mut pre)?;
                if !std::mem::replace(&mut self.pending_dealloc, enclosing).is_empty() {
                    // Re-evaluated every trip, it would allocate again.
                    return self.err_unsupported(
                        span,
                        "unsupported construct: do while condition that needs an allocatable array temporary",
                    );
                }
                let mut body = self.block(body)?;
                if !pre.is_empty() {
                    if contains_cycle(&body, construct.as_deref(), 0) {
                        return self.err_unsupported(span, "unsupported construct: cycle in a do while loop whose condition calls a function");
                    }
                    // Re-evaluate the condition's calls at the end of each trip.
                    // The second canonicalisation names new temporaries; the
                    // loop tests the first ones, so copy the new values there.
                    let mut again = Vec::new();
                    let c2 = self.value(cond, &mut again)?;
                    match temporaries_renamed(&c, &c2, span) {
                        Some(copies) => again.extend(copies),
                        None => return self.err(span, "internal error: a do while condition canonicalised twice differs in shape"),
                    }
                    out.extend(pre);
                    body.extend(again);
                }
                out.push(stmt(
                    StmtKind::DoWhile {
                        construct,
                        cond: c,
                        body,
                    },
                    span,
                ));
                Ok(())
            }
            StmtKind::Select { selector, cases } => self.select(selector, cases, span, out),
            StmtKind::Where { arms } => self.where_construct(arms, span, out),
            StmtKind::Forall {
                controls,
                mask,
                body,
            } => self.forall(controls, mask, body, span, out),
            StmtKind::Continue => {
                // Only a labelled continue matters (a jump target).
                if s.label.is_some() {
                    out.push(stmt(StmtKind::Continue, span));
                }
                Ok(())
            }
            k @ (StmtKind::Exit(_) | StmtKind::Cycle(_) | StmtKind::Goto(_) | StmtKind::Return) => {
                out.push(stmt(k, span));
                Ok(())
            }
            StmtKind::Opaque {
                kind,
                text,
                reads,
                writes,
            } => {
                for e in reads.iter().chain(&writes) {
                    if let Some((f, sp)) = first_user_call(self.prog, self.unit, e) {
                        return self.err_unsupported(sp, format!("unsupported construct: reference to user function '{f}' in an I/O or other opaque statement; assign it to a variable first"));
                    }
                }
                let read_targets = if kind == OpaqueKind::Io {
                    writes.clone()
                } else {
                    Vec::new()
                };
                out.push(stmt(
                    StmtKind::Opaque {
                        kind,
                        text,
                        reads,
                        writes,
                    },
                    span,
                ));
                for w in read_targets {
                    self.reset_derivative_after_read(w, span, out)?;
                }
                Ok(())
            }
        }
    }

    /// A READ gives the real data it writes new values without
    /// derivatives. A whole scalar is a full definition, which the
    /// analyses already see as passive; an array (or an element of one)
    /// is only partly defined, so its old derivative would survive. Such
    /// data is passed through a passive temporary: `t = w` (opaque), then
    /// `w = t` in the numerical core, which zeroes the derivative of `w`
    /// (and its adjoint in the reverse sweep).
    fn reset_derivative_after_read(
        &mut self,
        w: Expr,
        span: Span,
        out: &mut Vec<Stmt>,
    ) -> FrontResult<()> {
        let ty = self.ty(&w);
        let (Expr::Name(array, _) | Expr::Apply { name: array, .. }) = &w else {
            return Ok(());
        };
        let is_array = self
            .prog
            .var(self.unit, array)
            .is_some_and(|(o, k)| self.prog.symbol(o, k).rank() > 0);
        if !ty.cat.is_real() || !is_array {
            return Ok(());
        }
        let w = self.designator(w, out)?;
        let t = if ty.rank > 0 {
            let space = self.space_of(&w)?;
            let extents: Vec<Expr> = space
                .iter()
                .map(|(l, h, s)| super::trip_count(l, h, s.as_ref(), span))
                .collect();
            self.new_temp_array(ty.cat, &extents, span, out)?.0.name
        } else {
            self.temp(ty.cat, span)?
        };
        out.push(stmt(
            StmtKind::Opaque {
                kind: OpaqueKind::PassiveAssign,
                text: format!("{t} = {}", crate::unparse::expr(&w)),
                reads: vec![w.clone()],
                writes: vec![name(&t, span)],
            },
            span,
        ));
        if ty.rank > 0 {
            self.array_assign(w, name(&t, span), span, out)
        } else {
            self.assign_scalar(w, name(&t, span), span, out)
        }
    }

    /// An if / else if chain. An `else if` condition that needs statements
    /// (function calls) turns the rest of the chain into a nested `if` in
    /// the `else` branch, after those statements.
    fn if_chain(
        &mut self,
        arms: Vec<(Expr, Vec<Stmt>)>,
        otherwise: Option<Vec<Stmt>>,
        span: Span,
        out: &mut Vec<Stmt>,
    ) -> FrontResult<()> {
        let mut rest = arms.into_iter();
        let (c0, b0) = rest
            .next()
            .ok_or_else(|| FrontError::new(span, "if without a condition"))?;
        let c = self.value(c0, out)?;
        let mut new_arms = vec![(c, self.block(b0)?)];
        let mut rest: Vec<(Expr, Vec<Stmt>)> = rest.collect();
        while !rest.is_empty() {
            if self.needs_statements(&rest[0].0) {
                let mut else_body = Vec::new();
                self.if_chain(rest, otherwise, span, &mut else_body)?;
                out.push(stmt(
                    StmtKind::If {
                        arms: new_arms,
                        otherwise: Some(else_body),
                    },
                    span,
                ));
                return Ok(());
            }
            let (c, b) = rest.remove(0);
            let mut pre = Vec::new();
            let cv = self.value(c, &mut pre)?;
            debug_assert!(pre.is_empty());
            out.extend(pre);
            new_arms.push((cv, self.block(b)?));
        }
        let otherwise = match otherwise {
            Some(o) => Some(self.block(o)?),
            None => None,
        };
        out.push(stmt(
            StmtKind::If {
                arms: new_arms,
                otherwise,
            },
            span,
        ));
        Ok(())
    }

    /// Does canonicalising this expression emit statements?
    fn needs_statements(&self, e: &Expr) -> bool {
        let mut needs = false;
        e.walk(&mut |x| match x {
            Expr::Apply { name, .. } => match self.prog.resolve(self.unit, name) {
                Some(Binding::Proc(_)) | Some(Binding::StmtFunction(..)) => needs = true,
                Some(Binding::Var { .. }) => {}
                _ => {
                    if intrinsics::xaif_name(name).is_none() {
                        needs = true;
                    }
                }
            },
            Expr::Member { .. } => needs = true,
            _ => {}
        });
        needs
    }

    fn select(
        &mut self,
        selector: Expr,
        cases: Vec<CaseBlock>,
        span: Span,
        out: &mut Vec<Stmt>,
    ) -> FrontResult<()> {
        let sel = self.value(selector, out)?;
        let sel_ty = self.ty(&sel);
        let simple = sel_ty.cat == Cat::Int
            && cases.iter().all(|c| match &c.values {
                None => true,
                Some(vs) => vs.len() == 1 && vs[0].const_int().is_some(),
            });
        if simple {
            let mut new_cases = Vec::new();
            for c in cases {
                new_cases.push(CaseBlock {
                    values: c.values,
                    body: self.block(c.body)?,
                });
            }
            out.push(stmt(
                StmtKind::Select {
                    selector: sel,
                    cases: new_cases,
                },
                span,
            ));
            return Ok(());
        }
        // Lower to an if chain over a selector evaluated once. A character
        // selector (`trim(scheme)`) is compared as it is in every arm: it
        // is passive, `value` has already moved any user function call
        // out of it, and a character temporary would need a length.
        let sel = match &sel {
            Expr::Name(..) => sel,
            _ if sel_ty.cat == Cat::Char => sel,
            _ => {
                let t = self.temp(sel_ty.cat, span)?;
                out.push(stmt(
                    StmtKind::Assign {
                        lhs: name(&t, span),
                        rhs: sel,
                    },
                    span,
                ));
                name(&t, span)
            }
        };
        let mut arms = Vec::new();
        let mut default = None;
        for c in cases {
            let body = self.block(c.body)?;
            match c.values {
                None => default = Some(body),
                Some(vs) => {
                    let mut cond: Option<Expr> = None;
                    for v in vs {
                        let test = match v {
                            Expr::Range { lo, hi, .. } => {
                                let a = lo.map(|l| bin(BinOp::Ge, sel.clone(), *l, span));
                                let b = hi.map(|h| bin(BinOp::Le, sel.clone(), *h, span));
                                match (a, b) {
                                    (Some(a), Some(b)) => bin(BinOp::And, a, b, span),
                                    (Some(a), None) => a,
                                    (None, Some(b)) => b,
                                    (None, None) => return self.err(span, "empty case range"),
                                }
                            }
                            v => {
                                let op = if sel_ty.cat == Cat::Logical {
                                    BinOp::Eqv
                                } else {
                                    BinOp::Eq
                                };
                                bin(op, sel.clone(), v, span)
                            }
                        };
                        cond = Some(match cond {
                            None => test,
                            Some(c) => bin(BinOp::Or, c, test, span),
                        });
                    }
                    let cond = cond.ok_or_else(|| FrontError::new(span, "case without values"))?;
                    arms.push((cond, body));
                }
            }
        }
        if arms.is_empty() {
            out.extend(default.unwrap_or_default());
            return Ok(());
        }
        out.push(stmt(
            StmtKind::If {
                arms,
                otherwise: default,
            },
            span,
        ));
        Ok(())
    }
}

/// `old = new` for each name where two canonicalisations of the same
/// expression differ (their temporaries); `None` when they differ in
/// anything but names.
fn temporaries_renamed(old: &Expr, new: &Expr, span: Span) -> Option<Vec<Stmt>> {
    let (mut a, mut b) = (Vec::new(), Vec::new());
    old.collect_names(&mut a);
    new.collect_names(&mut b);
    if a.len() != b.len() {
        return None;
    }
    let mut copies: Vec<Stmt> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for (o, n) in a.iter().zip(&b) {
        if o != n && seen.insert(o.clone()) {
            copies.push(stmt(
                StmtKind::Assign {
                    lhs: name(o, span),
                    rhs: name(n, span),
                },
                span,
            ));
        }
    }
    Some(copies)
}

fn contains_cycle(stmts: &[Stmt], construct: Option<&str>, depth: usize) -> bool {
    stmts.iter().any(|s| match &s.kind {
        StmtKind::Cycle(None) => depth == 0,
        StmtKind::Cycle(Some(n)) => Some(n.as_str()) == construct,
        StmtKind::Do { body, .. } | StmtKind::DoWhile { body, .. } => {
            contains_cycle(body, construct, depth + 1)
        }
        StmtKind::If { arms, otherwise } => {
            arms.iter()
                .any(|(_, b)| contains_cycle(b, construct, depth))
                || otherwise
                    .as_ref()
                    .is_some_and(|b| contains_cycle(b, construct, depth))
        }
        StmtKind::Select { cases, .. } => cases
            .iter()
            .any(|c| contains_cycle(&c.body, construct, depth)),
        _ => false,
    })
}
