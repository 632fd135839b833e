//! `forall`: each assignment of the construct, in order, becomes a loop
//! nest over the index tuples (first index innermost), the mask an `if`
//! around the element assignment.
//!
//! Fortran's semantics are "for each assignment in turn: evaluate the mask
//! for all index tuples (once, before any assignment of the construct),
//! then evaluate the right side and the subscripts for all tuples, then
//! assign". A loop nest is the same when
//!
//! - the mask reads nothing the construct assigns; otherwise it is
//!   evaluated first into a logical temporary over the index space;
//! - the assignment reads its own target only at the element it assigns
//!   (the same subscript text); an earlier assignment's target is complete
//!   by then and may be read anywhere. Otherwise the right side is
//!   evaluated for all tuples into a temporary first, then assigned.
//!
//! The index variables are local to the construct: they become fresh loop
//! indices, so a variable of the same name outside keeps its value.

use crate::ast::*;
use crate::sema::Cat;

use super::{name, rename, stmt, trip_count, Canon, Space, View};

impl Canon<'_> {
    pub(super) fn forall(
        &mut self,
        controls: Vec<DoControl>,
        mask: Option<Expr>,
        body: Vec<Stmt>,
        span: Span,
        out: &mut Vec<Stmt>,
    ) -> FrontResult<()> {
        // Fresh indices, renamed everywhere in the construct (a bound may
        // not use another index of the same construct: Fortran).
        let mut vars = Vec::new();
        let mut mask = mask;
        let mut body = body;
        let mut space: Space = Vec::new();
        for c in controls {
            let fresh = self.loop_var(span);
            let lo = self.value(c.lo, out)?;
            let hi = self.value(c.hi, out)?;
            let step = c.step.map(|s| self.value(s, out)).transpose()?;
            let lo = self.loop_invariant(lo, out)?;
            let hi = self.loop_invariant(hi, out)?;
            let step = step.map(|s| self.loop_invariant(s, out)).transpose()?;
            mask = mask.map(|m| rename(m, &c.var, &fresh));
            for st in &mut body {
                if let StmtKind::Assign { lhs, rhs } = &mut st.kind {
                    *lhs = rename(std::mem::replace(lhs, Expr::int(0, span)), &c.var, &fresh);
                    *rhs = rename(std::mem::replace(rhs, Expr::int(0, span)), &c.var, &fresh);
                }
            }
            vars.push(fresh);
            space.push((lo, hi, step));
        }
        let idx: Vec<Expr> = vars.iter().map(|v| name(v, span)).collect();
        let assigned: Vec<String> = body
            .iter()
            .filter_map(|s| match &s.kind {
                StmtKind::Assign {
                    lhs: Expr::Apply { name, .. },
                    ..
                } => Some(name.clone()),
                _ => None,
            })
            .collect();
        // The mask, element by element, or from a temporary.
        let mask = match mask {
            Some(m) if reads_any(&m, &assigned) => {
                let (view, _) = self.index_space_temporary(Cat::Logical, &space, span, out)?;
                let mut fill = Vec::new();
                let m = self.per_element(&mut fill, |c, f| c.value(m, f))?;
                let el = self.element(&view, &idx, &space, span)?;
                fill.push(stmt(StmtKind::Assign { lhs: el, rhs: m }, span));
                out.extend(self.loops(&vars, &space, fill, span));
                Some(MaskSource::Temporary(view))
            }
            Some(m) => Some(MaskSource::Inline(m)),
            None => None,
        };
        for st in body {
            let sp = st.span;
            let StmtKind::Assign { lhs, rhs } = st.kind else {
                return self.err_unsupported(
                    sp,
                    "unsupported construct: statement other than an assignment in forall",
                );
            };
            if self.ty(&lhs).rank > 0 {
                return self.err_unsupported(
                    sp,
                    "unsupported construct: forall assigning an array section (assign elements)",
                );
            }
            let Expr::Apply { name: target, .. } = &lhs else {
                return self.err_unsupported(
                    sp,
                    "unsupported construct: forall assigning something other than array elements",
                );
            };
            let own = super::strip(&lhs);
            let mut elsewhere = false;
            let mut check = |e: &Expr| {
                e.walk(&mut |x| {
                    if let Expr::Apply { name, .. } | Expr::Name(name, _) = x {
                        if name == target && super::strip(x) != own {
                            elsewhere = true;
                        }
                    }
                })
            };
            check(&rhs);
            if let Expr::Apply { args, .. } = &lhs {
                args.iter().for_each(|a| check(&a.value));
            }
            if elsewhere {
                // Every right side first, then every assignment.
                let cat = self.ty(&lhs).cat;
                let (view, _) = self.index_space_temporary(cat, &space, span, out)?;
                let el_t = self.element(&view, &idx, &space, sp)?;
                let mut first = Vec::new();
                let v = self.per_element(&mut first, |c, f| c.value(rhs, f))?;
                first.push(stmt(
                    StmtKind::Assign {
                        lhs: el_t.clone(),
                        rhs: v,
                    },
                    sp,
                ));
                let first = self.masked(first, &mask, &idx, &space)?;
                out.extend(self.loops(&vars, &space, first, sp));
                let mut second = Vec::new();
                let l = self.designator(lhs, &mut second)?;
                second.push(stmt(StmtKind::Assign { lhs: l, rhs: el_t }, sp));
                let second = self.masked(second, &mask, &idx, &space)?;
                out.extend(self.loops(&vars, &space, second, sp));
            } else {
                let mut inner = Vec::new();
                self.per_element(&mut inner, |c, f| c.assign(lhs, rhs, sp, f))?;
                let inner = self.masked(inner, &mask, &idx, &space)?;
                out.extend(self.loops(&vars, &space, inner, sp));
            }
        }
        Ok(())
    }

    /// Runs `f`, which canonicalises into `body`, a loop body over the
    /// index tuples: temporaries it allocates are released in the same
    /// trip, not after the construct.
    fn per_element<T>(
        &mut self,
        body: &mut Vec<Stmt>,
        f: impl FnOnce(&mut Self, &mut Vec<Stmt>) -> FrontResult<T>,
    ) -> FrontResult<T> {
        let enclosing = std::mem::take(&mut self.pending_dealloc);
        let r = f(self, body);
        body.append(&mut self.pending_dealloc);
        self.pending_dealloc = enclosing;
        r
    }

    /// `body` under the construct's mask at the index tuple `idx`.
    fn masked(
        &mut self,
        body: Vec<Stmt>,
        mask: &Option<MaskSource>,
        idx: &[Expr],
        space: &[(Expr, Expr, Option<Expr>)],
    ) -> FrontResult<Vec<Stmt>> {
        let span = body.first().map(|s| s.span).unwrap_or_default();
        let (mut pre, cond) = match mask {
            None => return Ok(body),
            Some(MaskSource::Inline(m)) => {
                let mut pre = Vec::new();
                let c = self.per_element(&mut pre, |c, f| c.value(m.clone(), f))?;
                (pre, c)
            }
            // The temporary's element at a tuple is its position in the space.
            Some(MaskSource::Temporary(view)) => {
                (Vec::new(), self.element(view, idx, space, span)?)
            }
        };
        pre.push(stmt(
            StmtKind::If {
                arms: vec![(cond, body)],
                otherwise: None,
            },
            span,
        ));
        Ok(pre)
    }

    /// A temporary with one element per index tuple of `space`.
    fn index_space_temporary(
        &mut self,
        cat: Cat,
        space: &[(Expr, Expr, Option<Expr>)],
        span: Span,
        out: &mut Vec<Stmt>,
    ) -> FrontResult<(View, Space)> {
        let extents: Vec<Expr> = space
            .iter()
            .map(|(l, h, s)| trip_count(l, h, s.as_ref(), span))
            .collect();
        self.new_temp_array(cat, &extents, span, out)
    }
}

/// Where the mask's value at a tuple comes from.
enum MaskSource {
    Inline(Expr),
    Temporary(View),
}

/// Does `e` reference any of `names`?
fn reads_any(e: &Expr, names: &[String]) -> bool {
    let mut found = false;
    e.walk(&mut |x| {
        if let Expr::Apply { name, .. } | Expr::Name(name, _) = x {
            found |= names.contains(name);
        }
    });
    found
}
