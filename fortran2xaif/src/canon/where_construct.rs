//! `where` / `elsewhere`: every assignment becomes a loop over its target
//! with its arm's mask (and the negation of the earlier masks) as an `if`
//! around the element assignment. Masks are evaluated once in Fortran, so
//! they must not read what the construct assigns.

use crate::ast::*;

use super::{bin, name, stmt, Canon};

impl Canon<'_> {
    /// `where`: every assignment becomes a loop over its target with the
    /// element of its arm's mask (and the negated earlier masks) as an `if`.
    /// Masks are evaluated once in Fortran, so they must not read what the
    /// construct assigns.
    pub(super) fn where_construct(
        &mut self,
        arms: Vec<(Option<Expr>, Vec<Stmt>)>,
        span: Span,
        out: &mut Vec<Stmt>,
    ) -> FrontResult<()> {
        let mut assigned = Vec::new();
        for (_, body) in &arms {
            for st in body {
                if let StmtKind::Assign {
                    lhs: Expr::Name(n, _) | Expr::Apply { name: n, .. },
                    ..
                } = &st.kind
                {
                    assigned.push(n.clone());
                }
            }
        }
        let mut masks = Vec::new();
        for (m, _) in &arms {
            if let Some(m) = m {
                let mut clash = None;
                m.walk(&mut |x| {
                    if let Expr::Name(n, sp)
                    | Expr::Apply {
                        name: n, span: sp, ..
                    } = x
                    {
                        if assigned.contains(n) {
                            clash = Some((n.clone(), *sp));
                        }
                    }
                });
                if let Some((n, sp)) = clash {
                    return self.err(sp, format!("unsupported construct: where mask reads '{n}', which the construct assigns"));
                }
                masks.push(Some(self.value_array(m.clone(), out)?));
            } else {
                masks.push(None);
            }
        }
        for (k, (_, body)) in arms.into_iter().enumerate() {
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
                    return self.err(
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
        Ok(())
    }
}
