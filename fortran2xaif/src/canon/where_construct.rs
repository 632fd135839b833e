//! `where` / `elsewhere`: every assignment becomes a loop over its target
//! with its arm's mask (and the negation of the earlier masks) as an `if`
//! around the element assignment.
//!
//! Fortran evaluates each mask once, when its `where` or `elsewhere`
//! statement executes: after the assignments of the earlier arms, before
//! those of its own arm (gfortran agrees). A mask that reads nothing its
//! own or a later arm assigns therefore gives the same values when it is
//! re-evaluated per element inside each loop; any other mask is evaluated
//! into a logical temporary array first, and the loops read that, except
//! in the common clipping form `where (a(s) > c) a(s) = ...` (see
//! `mask_reads_only_last_target`).
//!
//! The common form with one assignment per arm, every arm assigning the
//! same target, and no mask or right side reading that target (`where
//! (un > 1) u = ... elsewhere (un < 0) u = ... elsewhere u = un`) becomes
//! one loop nest with an `if` / `else if` / `else` per element
//! (`fused_where`): each element takes exactly one arm and nothing an arm
//! writes is read, so the order of the element assignments cannot matter,
//! and the loops the hand-written program would have are generated instead
//! of one loop per arm re-evaluating the earlier masks.

use crate::ast::*;

use super::{bin, name, stmt, strip, Canon};

impl Canon<'_> {
    /// `where`: every assignment becomes a loop over its target with the
    /// element of its arm's mask (and the negated earlier masks) as an `if`.
    /// Can arm `k`'s mask be evaluated per element although it reads what
    /// the construct assigns? Yes when `k` is the last arm and the mask
    /// reads assigned data only through the target of the arm's last
    /// assignment, at exactly the element that assignment writes: each
    /// element's mask is then read before its own assignment, and no other
    /// element's assignment changes it.
    fn mask_reads_only_last_target(
        &self,
        mask: &Expr,
        arms: &[(Option<Expr>, Vec<Stmt>)],
        k: usize,
    ) -> bool {
        let Some((_, body)) = arms.get(k).filter(|_| k + 1 == arms.len()) else {
            return false;
        };
        let Some(StmtKind::Assign { lhs, .. }) = body.last().map(|s| &s.kind) else {
            return false;
        };
        let (Expr::Name(target, _) | Expr::Apply { name: target, .. }) = lhs else {
            return false;
        };
        let own = strip(lhs);
        let earlier: Vec<&str> = body[..body.len() - 1]
            .iter()
            .filter_map(|s| match &s.kind {
                StmtKind::Assign {
                    lhs: Expr::Name(n, _) | Expr::Apply { name: n, .. },
                    ..
                } => Some(n.as_str()),
                _ => None,
            })
            .collect();
        let mut ok = true;
        mask.walk(&mut |x| {
            if let Expr::Name(n, _) | Expr::Apply { name: n, .. } = x {
                if earlier.contains(&n.as_str()) || (n == target && strip(x) != own) {
                    ok = false;
                }
            }
        });
        ok && !self.reads_in_subscripts(lhs, target)
    }

    /// Does a subscript of `lhs` read `array`?
    fn reads_in_subscripts(&self, lhs: &Expr, array: &str) -> bool {
        let Expr::Apply { args, .. } = lhs else {
            return false;
        };
        let mut found = false;
        for a in args {
            a.value.walk(&mut |x| {
                if let Expr::Name(n, _) | Expr::Apply { name: n, .. } = x {
                    found |= n == array;
                }
            });
        }
        found
    }

    pub(super) fn where_construct(
        &mut self,
        arms: Vec<(Option<Expr>, Vec<Stmt>)>,
        span: Span,
        out: &mut Vec<Stmt>,
    ) -> FrontResult<()> {
        if fusable(&arms) {
            return self.fused_where(arms, span, out);
        }
        // Names assigned by each arm.
        let assigned: Vec<Vec<String>> = arms
            .iter()
            .map(|(_, body)| {
                body.iter()
                    .filter_map(|st| match &st.kind {
                        StmtKind::Assign {
                            lhs: Expr::Name(n, _) | Expr::Apply { name: n, .. },
                            ..
                        } => Some(n.clone()),
                        _ => None,
                    })
                    .collect()
            })
            .collect();
        let mut masks: Vec<Option<Expr>> = Vec::new();
        let mut dealloc = Vec::new();
        let mut arm_stmts: Vec<Vec<Stmt>> = Vec::new();
        for (k, (m, _)) in arms.iter().enumerate() {
            // Statements that evaluate this arm's mask go before the arm's
            // assignments (after the earlier arms', as in Fortran).
            let mut pre = Vec::new();
            match m {
                Some(m) => {
                    let mut reads_assigned = false;
                    m.walk(&mut |x| {
                        if let Expr::Name(n, _) | Expr::Apply { name: n, .. } = x {
                            reads_assigned |= assigned[k..].iter().flatten().any(|a| a == n);
                        }
                    });
                    if reads_assigned && !self.mask_reads_only_last_target(m, &arms, k) {
                        // The mask reads what this or a later arm assigns:
                        // evaluate it once into a logical array first.
                        let (t, d) = self.array_temp_of(m.clone(), m.span(), &mut pre)?;
                        dealloc.extend(d);
                        masks.push(Some(name(&t, m.span())));
                    } else {
                        masks.push(Some(self.value_array(m.clone(), &mut pre)?));
                    }
                }
                None => masks.push(None),
            }
            arm_stmts.push(pre);
        }
        for (k, ((_, body), pre)) in arms.into_iter().zip(arm_stmts).enumerate() {
            out.extend(pre);
            // This arm's condition: its mask and none of the earlier ones.
            let mut cond: Option<Expr> = masks[k].clone();
            for m in masks[..k].iter().flatten() {
                let not = Expr::Unary(
                    UnOp::Not,
                    Box::new(Expr::Paren(Box::new(m.clone()), span)),
                    span,
                );
                cond = Some(match cond {
                    None => not,
                    Some(c) => bin(BinOp::And, c, not, span),
                });
            }
            for st in body {
                let sp = st.span;
                let StmtKind::Assign { lhs, rhs } = st.kind else {
                    return self.err_unsupported(
                        sp,
                        "unsupported construct: statement other than an assignment in where",
                    );
                };
                let lhs = self.designator(lhs, out)?;
                let target = self
                    .view(&lhs)?
                    .ok_or_else(|| FrontError::new(sp, "where assigns a non-array"))?;
                let space: Vec<(Expr, Expr, Option<Expr>)> = target
                    .ranges()
                    .into_iter()
                    .map(|(l, h, s)| (l.clone(), h.clone(), s.cloned()))
                    .collect();
                let rhs = self.value_array(rhs, out)?;
                // The mask only removes writes: the dependence test's
                // verdict for the unmasked loop holds.
                let plan = self.untangle(rhs, &target, &space, out)?;
                let vars: Vec<String> = (0..space.len()).map(|_| self.loop_var(sp)).collect();
                let idx: Vec<Expr> = vars.iter().map(|v| name(v, sp)).collect();
                let el_l = self.element(&target, &idx, &space, sp)?;
                let el_r = self.elementwise(&plan.rhs, &idx, &space)?;
                let assign = stmt(
                    StmtKind::Assign {
                        lhs: el_l,
                        rhs: el_r,
                    },
                    sp,
                );
                let inner = match &cond {
                    Some(c) => {
                        let el_c = self.elementwise(c, &idx, &space)?;
                        vec![stmt(
                            StmtKind::If {
                                arms: vec![(el_c, vec![assign])],
                                otherwise: None,
                            },
                            sp,
                        )]
                    }
                    None => vec![assign],
                };
                out.extend(self.directed_loops(&vars, &space, &plan.reversed, inner, sp));
                out.extend(plan.dealloc);
            }
        }
        out.extend(dealloc);
        Ok(())
    }
}

impl Canon<'_> {
    /// `where` arms that `fusable` accepted, as one loop nest over the
    /// common target with an `if` / `else if` / `else` inside.
    fn fused_where(
        &mut self,
        arms: Vec<(Option<Expr>, Vec<Stmt>)>,
        span: Span,
        out: &mut Vec<Stmt>,
    ) -> FrontResult<()> {
        let mut pairs = Vec::new();
        for (m, body) in arms {
            let Some(StmtKind::Assign { lhs, rhs }) = body.into_iter().next().map(|s| s.kind)
            else {
                unreachable!("fusable: one assignment per arm");
            };
            pairs.push((m, lhs, rhs));
        }
        let lhs = self.designator(pairs[0].1.clone(), out)?;
        let target = self
            .view(&lhs)?
            .ok_or_else(|| FrontError::new(span, "where assigns a non-array"))?;
        let space: Vec<(Expr, Expr, Option<Expr>)> = target
            .ranges()
            .into_iter()
            .map(|(l, h, s)| (l.clone(), h.clone(), s.cloned()))
            .collect();
        let vars: Vec<String> = (0..space.len()).map(|_| self.loop_var(span)).collect();
        let idx: Vec<Expr> = vars.iter().map(|v| name(v, span)).collect();
        let mut branches = Vec::new();
        let mut otherwise = None;
        let mut dealloc = Vec::new();
        for (m, _, rhs) in pairs {
            let sp = rhs.span();
            let rhs = self.value_array(rhs, out)?;
            // Nothing reads the target: a plain forward loop, no copies.
            let plan = self.untangle(rhs, &target, &space, out)?;
            dealloc.extend(plan.dealloc);
            let assign = stmt(
                StmtKind::Assign {
                    lhs: self.element(&target, &idx, &space, sp)?,
                    rhs: self.elementwise(&plan.rhs, &idx, &space)?,
                },
                sp,
            );
            match m {
                Some(m) => {
                    let m = self.value_array(m, out)?;
                    branches.push((self.elementwise(&m, &idx, &space)?, vec![assign]));
                }
                None => otherwise = Some(vec![assign]),
            }
        }
        let inner = vec![stmt(
            StmtKind::If {
                arms: branches,
                otherwise,
            },
            span,
        )];
        let forward = vec![false; space.len()];
        out.extend(self.directed_loops(&vars, &space, &forward, inner, span));
        out.extend(dealloc);
        Ok(())
    }
}

/// Can the arms of a `where` run as one loop nest (module comment)? At
/// least two arms, each one assignment, all to the same designator whose
/// name no mask, right side or subscript of the target reads, and every
/// mask but the last arm's present.
fn fusable(arms: &[(Option<Expr>, Vec<Stmt>)]) -> bool {
    if arms.len() < 2 || arms[..arms.len() - 1].iter().any(|(m, _)| m.is_none()) {
        return false;
    }
    let mut target: Option<(String, String)> = None;
    for (_, body) in arms {
        let [Stmt {
            kind: StmtKind::Assign { lhs, .. },
            ..
        }] = body.as_slice()
        else {
            return false;
        };
        let (Expr::Name(n, _) | Expr::Apply { name: n, .. }) = lhs else {
            return false;
        };
        let text = strip(lhs);
        match &target {
            None => target = Some((n.clone(), text)),
            Some((_, t)) if *t == text => {}
            Some(_) => return false,
        }
    }
    let (target, _) = target.expect("at least two arms");
    let mut reads = false;
    let mut check = |e: &Expr| {
        e.walk(&mut |x| {
            if let Expr::Name(n, _) | Expr::Apply { name: n, .. } = x {
                reads |= *n == target;
            }
        })
    };
    for (m, body) in arms {
        if let Some(m) = m {
            check(m);
        }
        if let StmtKind::Assign { lhs, rhs } = &body[0].kind {
            check(rhs);
            if let Expr::Apply { args, .. } = lhs {
                for a in args {
                    check(&a.value);
                }
            }
        }
    }
    !reads
}
