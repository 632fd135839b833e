//! Allocation on assignment: `d = f(h)` with `d` an allocatable array
//! (Fortran 2003) allocates `d` with the shape of the right side when it
//! is unallocated, and reallocates it when its shape differs. Scalarised
//! into loops over `d`'s bounds, the assignment needs that step written
//! out first, or the loops run over an unallocated array (a crash) or
//! over the old shape (silently wrong values):
//!
//! ```fortran
//! if (allocated(d)) then
//!   if (size(d, 1) /= e1 .or. size(d, 2) /= e2) deallocate(d)
//! end if
//! if (.not. allocated(d)) allocate(d(l1:l1 + e1 - 1, l2:l2 + e2 - 1))
//! ```
//!
//! with `e` the extents of the right side and `l` its lower bounds (those
//! of a whole array variable, 1 for any other expression). A scalar right
//! side allocates nothing, as in Fortran.
//!
//! Not for an array the routine allocates with an `allocate` statement of
//! its own: its author manages its shape, and the prologue, taped in the
//! adjoint sweeps at every execution, cost 14 % of the adjoint of a time
//! loop assigning such an array at every step (glacier_periodic_array,
//! R_a 2.83 -> 3.22). So reshaping such an array by assignment is not
//! handled (the loops run over its allocated bounds, as before).
//!
//! Only for a local array of the routine (not a dummy, `save`d, module,
//! host or component variable): joint mode refuses to allocate or release
//! an active array that outlives the routine (the re-run would find it
//! released). Such an array assigned while unallocated or with another
//! shape stops the program with a message naming it instead of running
//! the loops over the wrong bounds.

use crate::ast::*;

use super::{bin, name, stmt, trip_count, Canon};
use crate::unparse;
use std::collections::HashSet;

fn positional(value: Expr) -> Arg {
    Arg {
        keyword: None,
        value,
    }
}

/// The names of the arrays `allocate` statements of `body` allocate.
pub(super) fn allocated_explicitly(body: &mut [Stmt]) -> FrontResult<HashSet<String>> {
    let mut out = HashSet::new();
    Stmt::walk_mut(body, &mut |s| {
        if let StmtKind::Opaque {
            kind: OpaqueKind::Allocate,
            text,
            writes,
            ..
        } = &s.kind
        {
            if text
                .trim_start()
                .to_ascii_lowercase()
                .starts_with("allocate")
            {
                for w in writes {
                    if let Expr::Name(n, _) = w {
                        out.insert(n.clone());
                    }
                }
            }
        }
        Ok(())
    })?;
    Ok(out)
}

impl Canon<'_> {
    /// The statements allocating or reallocating the whole allocatable
    /// array `lhs` for right side `rhs` (after its function calls and
    /// copies); empty when `lhs` is not such an array or `rhs` is scalar.
    pub(super) fn allocate_on_assignment(
        &self,
        lhs: &Expr,
        rhs: &Expr,
        span: Span,
    ) -> FrontResult<Vec<Stmt>> {
        let Expr::Name(target, _) = lhs else {
            return Ok(Vec::new());
        };
        let Some((owner, k)) = self.prog.var(self.unit, target) else {
            return Ok(Vec::new());
        };
        let sym = self.prog.symbol(owner, k);
        let rank = sym.rank();
        if !sym.allocatable
            || sym.pointer
            || rank == 0
            || self.ty(rhs).rank != rank
            || self.allocated_explicitly.contains(target)
        {
            return Ok(Vec::new());
        }
        let space = self.space_of(rhs)?;
        if space.len() != rank {
            return Ok(Vec::new());
        }
        let extents: Vec<Expr> = space
            .iter()
            .map(|(lo, hi, st)| trip_count(lo, hi, st.as_ref(), span))
            .collect();
        // A whole array keeps its lower bounds; any other expression's are 1.
        let whole = match rhs {
            Expr::Name(n, _) => Some(n.clone()),
            _ => None,
        };
        let lower = |d: usize| match &whole {
            Some(n) => Expr::Apply {
                name: "lbound".into(),
                args: vec![
                    positional(name(n, span)),
                    positional(Expr::int(d as i64 + 1, span)),
                ],
                span,
            },
            None => Expr::int(1, span),
        };
        let size = |d: usize| Expr::Apply {
            name: "size".into(),
            args: vec![
                positional(name(target, span)),
                positional(Expr::int(d as i64 + 1, span)),
            ],
            span,
        };
        let allocated = Expr::Apply {
            name: "allocated".into(),
            args: vec![positional(name(target, span))],
            span,
        };
        let differs = (0..rank)
            .map(|d| bin(BinOp::Ne, size(d), extents[d].clone(), span))
            .reduce(|a, b| bin(BinOp::Or, a, b, span))
            .expect("rank > 0");
        let allocate_text = |text: String, reads: Vec<Expr>| {
            stmt(
                StmtKind::Opaque {
                    kind: OpaqueKind::Allocate,
                    text,
                    reads,
                    writes: vec![name(target, span)],
                },
                span,
            )
        };
        let local = owner == self.unit
            && sym.dummy.is_none()
            && !sym.save
            && sym.component.is_none()
            && !target.contains('%');
        if !local {
            let stop = |why: &str| {
                stmt(
                    StmtKind::Opaque {
                        kind: OpaqueKind::Stop,
                        text: format!("error stop 'OAD: {target} {why}; allocate it first'"),
                        reads: vec![],
                        writes: vec![],
                    },
                    span,
                )
            };
            return Ok(vec![stmt(
                StmtKind::If {
                    arms: vec![(
                        allocated,
                        vec![stmt(
                            StmtKind::If {
                                arms: vec![(differs, vec![stop("reshaped by an assignment")])],
                                otherwise: None,
                            },
                            span,
                        )],
                    )],
                    otherwise: Some(vec![stop("assigned unallocated")]),
                },
                span,
            )]);
        }
        let bounds: Vec<String> = (0..rank)
            .map(|d| {
                let lo = lower(d);
                let hi = bin(
                    BinOp::Sub,
                    bin(BinOp::Add, lo.clone(), extents[d].clone(), span),
                    Expr::int(1, span),
                    span,
                );
                format!("{}:{}", unparse::expr(&lo), unparse::expr(&hi))
            })
            .collect();
        let deallocate = allocate_text(format!("deallocate({target})"), vec![]);
        let allocate = allocate_text(
            format!("allocate({target}({}))", bounds.join(", ")),
            extents.clone(),
        );
        Ok(vec![
            stmt(
                StmtKind::If {
                    arms: vec![(
                        allocated.clone(),
                        vec![stmt(
                            StmtKind::If {
                                arms: vec![(differs, vec![deallocate])],
                                otherwise: None,
                            },
                            span,
                        )],
                    )],
                    otherwise: None,
                },
                span,
            ),
            stmt(
                StmtKind::If {
                    arms: vec![(
                        Expr::Unary(UnOp::Not, Box::new(allocated), span),
                        vec![allocate],
                    )],
                    otherwise: None,
                },
                span,
            ),
        ])
    }
}
