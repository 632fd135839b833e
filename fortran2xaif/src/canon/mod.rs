//! Canonicalisation (C1–C5 of the design): after this pass every assignment
//! writes one scalar variable from a side-effect-free expression over
//! variables, constants and catalogue intrinsics; user functions are
//! subroutine calls whose result lands in a temporary; non-variable actual
//! arguments are temporaries; statement functions are expanded; array
//! assignments and real array intrinsics are `do` loops; n-ary min/max are
//! nested binary calls. Statements the booster must not touch become
//! `Opaque`.
//!
//! The pass is one context type, `Canon` (the program, the unit being
//! rewritten, its temporary counters), defined here with the array operand
//! model (`View`, `Sub`) and small expression builders. Each child
//! module adds an `impl Canon` block for one concern and imports only from
//! this module, never from a sibling:
//!
//! | module | concern |
//! |---|---|
//! | `generic_calls` | references to generic procedures given their specific procedure, first of all |
//! | `statement_functions` | statement functions expanded in place before anything else |
//! | `control_flow` | statement dispatch, `if` chains, `do`/`do while`, `select case` |
//! | `calls` | subroutine calls, user functions turned into subroutine calls, actual arguments |
//! | `black_box_calls` | calls of routines without source declared with `--black-box`, checked against their declaration |
//! | `mpi_calls` | calls of MPI routines on real data, checked against the built-in table of `mpi.rs` |
//! | `assignments` | scalar assignments, passive (opaque) assignments |
//! | `complex_parts` | `complex(8)` arithmetic as real arithmetic on the parts `z%re`, `z%im` |
//! | `expressions` | expressions to canonical form, subscripts, intrinsics |
//! | `temporaries` | scalar, loop-index and array temporaries |
//! | `views` | array operands as explicit sections, their bounds and elements |
//! | `arrays` | array assignments and expressions scalarised into loop nests; index maps (`transpose`, `reshape`, `spread`, `cshift`) |
//! | `array_results` | temporaries of the result's shape for array-valued user functions |
//! | `array_intrinsics` | array values computed into temporaries first: reductions with `dim`, `matmul` inside expressions, `eoshift`, `pack`, `maxloc`/`minloc`, constructors with implied-do loops |
//! | `dependence` | does the right side read what the loop overwrites? loop directions, copies of the sections that need them |
//! | `where_construct` | `where` / `elsewhere` as masked loops |
//! | `forall` | `forall` as loop nests, through temporaries where Fortran's evaluate-then-assign order needs them |
//! | `shift_peeling` | `cshift` with constant shifts: the loop split where the shifts wrap, constant offsets instead of `mod` |
//! | `structure_constructors` | `s = state(h0, q0)` assigned component by component |
//! | `intrinsic_rewrites` | `merge` on real data as an `if` on its mask, `norm2` as `sqrt(sum(x**2))` |
//! | `reductions` | `sum`, `product`, `maxval`, `minval`, `dot_product`, `matmul` as loops |

mod array_intrinsics;
mod array_results;
mod arrays;
mod assignments;
mod black_box_calls;
mod calls;
mod complex_parts;
mod control_flow;
mod dependence;
mod derived_values;
mod elemental_calls;
mod expressions;
mod forall;
mod generic_calls;
mod intrinsic_rewrites;
mod mpi_calls;
mod realloc_lhs;
mod reductions;
mod repeated_subscripts;
mod shift_peeling;
mod statement_functions;
mod structure_constructors;
mod temporaries;
#[cfg(test)]
mod tests;
mod views;
mod where_construct;

use crate::ast::*;
use crate::sema::{Binding, Program, Ty};
// Shared with `generic_calls`.
use crate::unparse;
use statement_functions::map_stmt_exprs;

/// Canonicalises every unit with a body.
pub fn canonicalise(prog: &mut Program) -> FrontResult<()> {
    for i in 0..prog.units.len() {
        if prog.units[i].interface_of.is_some() || prog.units[i].ast.kind == UnitKind::Module {
            continue;
        }
        let mut body = std::mem::take(&mut prog.units[i].ast.body);
        crate::components::rewrite_members(prog, i, &mut body)?;
        let allocated_explicitly = realloc_lhs::allocated_explicitly(&mut body)?;
        let mut c = Canon {
            prog,
            unit: i,
            temps: 0,
            loops: 0,
            pending_dealloc: Vec::new(),
            irecv_buffers: mpi_calls::irecv_buffers(&body),
            allocated_explicitly,
        };
        let body = c.resolve_generic_calls_in(body)?;
        let body = c.expand_stmt_functions_in(body)?;
        let mut body = c.block(body)?;
        // A return as the last statement is the normal end: dropping it
        // keeps the control flow structured.
        if matches!(
            body.last(),
            Some(Stmt {
                kind: StmtKind::Return,
                label: None,
                ..
            })
        ) {
            body.pop();
        }
        prog.units[i].ast.body = body;
    }
    Ok(())
}

/// The pass's context: the program (whose symbol tables receive the
/// temporaries), the unit being rewritten and its temporary counters.
struct Canon<'p> {
    prog: &'p mut Program,
    unit: usize,
    temps: usize,
    loops: usize,
    /// Deallocations of allocatable temporaries made for the statement
    /// being rewritten, emitted after it.
    pending_dealloc: Vec<Stmt>,
    /// The receive buffers of the unit's `mpi_irecv` calls: its waits
    /// write them (`mpi_calls.rs`).
    irecv_buffers: Vec<Expr>,
    /// The arrays the unit's own `allocate` statements allocate: their
    /// assignments are not preceded by allocation on assignment
    /// (`realloc_lhs.rs`).
    allocated_explicitly: std::collections::HashSet<String>,
}

/// One dimension of an array operand: a fixed subscript, a range, or a
/// vector subscript (a rank-1 integer array expression whose elements are
/// the subscripts; `lo:hi:stride` is that expression's own index range).
#[derive(Clone, Debug)]
enum Sub {
    Fixed(Expr),
    Range {
        lo: Expr,
        hi: Expr,
        stride: Option<Expr>,
    },
    Vector {
        vector: Expr,
        lo: Expr,
        hi: Expr,
        stride: Option<Expr>,
    },
}

/// An array operand with every section dimension made explicit.
#[derive(Clone, Debug)]
struct View {
    name: String,
    subs: Vec<Sub>,
}

/// How to scalarise an array assignment (`dependence.rs`): the right side
/// with the references that need it read from copies, the direction of the
/// loop over each dimension of the target's index space (true: backward)
/// and the deallocations of allocatable copies, for after the loop.
struct Scalarised {
    rhs: Expr,
    reversed: Vec<bool>,
    dealloc: Vec<Stmt>,
}

impl View {
    /// Does some dimension take its subscripts from a vector?
    fn has_vector(&self) -> bool {
        self.subs.iter().any(|s| matches!(s, Sub::Vector { .. }))
    }

    fn ranges(&self) -> Vec<(&Expr, &Expr, Option<&Expr>)> {
        self.subs
            .iter()
            .filter_map(|s| match s {
                Sub::Range { lo, hi, stride } | Sub::Vector { lo, hi, stride, .. } => {
                    Some((lo, hi, stride.as_ref()))
                }
                Sub::Fixed(_) => None,
            })
            .collect()
    }
}

fn stmt(kind: StmtKind, span: Span) -> Stmt {
    Stmt {
        id: 0,
        label: None,
        span,
        kind,
    }
}

fn bin(op: BinOp, a: Expr, b: Expr, span: Span) -> Expr {
    Expr::Binary(op, Box::new(a), Box::new(b), span)
}

fn name(n: &str, span: Span) -> Expr {
    Expr::Name(n.to_string(), span)
}

fn first_user_call(prog: &Program, unit: usize, e: &Expr) -> Option<(String, Span)> {
    let mut found = None;
    e.walk(&mut |x| {
        if found.is_some() {
            return;
        }
        if let Expr::Apply { name, span, .. } = x {
            match prog.resolve(unit, name) {
                Some(Binding::Proc(_)) | Some(Binding::StmtFunction(..)) => {
                    found = Some((name.clone(), *span))
                }
                _ => {}
            }
        }
    });
    found
}

impl Canon<'_> {
    fn err<T>(&self, span: Span, msg: impl Into<String>) -> FrontResult<T> {
        Err(FrontError::new(span, msg))
    }

    /// Refuses a construct the canonicaliser cannot rewrite; `msg` names it.
    fn err_unsupported<T>(&self, span: Span, msg: impl Into<String>) -> FrontResult<T> {
        Err(FrontError::unsupported(span, msg))
    }

    fn ty(&self, e: &Expr) -> Ty {
        self.prog.type_of(self.unit, e)
    }
}

/// `lo + (i - base)`.
fn offset(lo: &Expr, i: &Expr, base: &Expr, span: Span) -> Expr {
    if strip(lo) == strip(base) {
        return i.clone();
    }
    bin(
        BinOp::Add,
        lo.clone(),
        paren(bin(BinOp::Sub, i.clone(), base.clone(), span), span),
        span,
    )
}

/// The index ranges of an array expression, one `(lo, hi, stride)` per
/// dimension.
type Space = Vec<(Expr, Expr, Option<Expr>)>;

/// What `elementwise_temporary` makes.
struct ElementwiseTemporary {
    view: View,
    space: Space,
    vars: Vec<String>,
    target: Expr,
    operand_idx: Vec<Expr>,
}

/// The number of indices in `lo:hi:stride` (`hi - lo + 1` for unit stride).
fn trip_count(lo: &Expr, hi: &Expr, stride: Option<&Expr>, span: Span) -> Expr {
    match stride {
        None => extent(lo, hi, span),
        Some(s) => bin(
            BinOp::Add,
            bin(
                BinOp::Div,
                paren(bin(BinOp::Sub, hi.clone(), lo.clone(), span), span),
                s.clone(),
                span,
            ),
            Expr::int(1, span),
            span,
        ),
    }
}

/// `hi - lo + 1`.
fn extent(lo: &Expr, hi: &Expr, span: Span) -> Expr {
    match (lo.const_int(), hi.const_int()) {
        (Some(1), _) => hi.clone(),
        (Some(l), Some(h)) => Expr::int(h - l + 1, span),
        _ => bin(
            BinOp::Add,
            bin(BinOp::Sub, hi.clone(), lo.clone(), span),
            Expr::int(1, span),
            span,
        ),
    }
}

fn paren(e: Expr, span: Span) -> Expr {
    match e {
        Expr::Name(..) | Expr::Lit(..) | Expr::Apply { .. } | Expr::Paren(..) => e,
        e => Expr::Paren(Box::new(e), span),
    }
}

fn same_view(a: &View, b: &View) -> bool {
    a.subs.len() == b.subs.len()
        && a.subs.iter().zip(&b.subs).all(|(x, y)| match (x, y) {
            (Sub::Fixed(p), Sub::Fixed(q)) => strip(p) == strip(q),
            (
                Sub::Range {
                    lo: l1,
                    hi: h1,
                    stride: s1,
                },
                Sub::Range {
                    lo: l2,
                    hi: h2,
                    stride: s2,
                },
            ) => {
                strip(l1) == strip(l2)
                    && strip(h1) == strip(h2)
                    && s1.as_ref().map(strip) == s2.as_ref().map(strip)
            }
            (Sub::Vector { vector: v1, .. }, Sub::Vector { vector: v2, .. }) => {
                strip(v1) == strip(v2)
            }
            _ => false,
        })
}

/// Expression text without positions, for structural comparison.
fn strip(e: &Expr) -> String {
    unparse::expr(e)
}

/// Internal index map `oad_shift(a, offset, dim)`: `a` read at a constant
/// offset along `dim` (a piece of a peeled `cshift`, `shift_peeling.rs`).
/// Only ever built after the dependence test, never seen by users.
const SHIFT_BY_OFFSET: &str = "oad_shift";

/// Array-valued intrinsics whose results are computed into a temporary.
fn computed_into_temporary(n: &str) -> bool {
    matches!(
        n,
        "matmul" | "eoshift" | "pack" | "unpack" | "maxloc" | "minloc"
    )
}

/// Argument `keyword`, else the one at `position`, of an intrinsic reference.
fn intrinsic_arg(args: &[Arg], keyword: &str, position: usize) -> Option<Expr> {
    args.iter()
        .find(|a| a.keyword.as_deref() == Some(keyword))
        .or_else(|| args.get(position).filter(|a| a.keyword.is_none()))
        .map(|a| a.value.clone())
}

/// `e` with every reference to variable `from` renamed `to`.
fn rename(e: Expr, from: &str, to: &str) -> Expr {
    let r = |x: Box<Expr>| Box::new(rename(*x, from, to));
    let args = |a: Vec<Arg>| {
        a.into_iter()
            .map(|a| Arg {
                keyword: a.keyword,
                value: rename(a.value, from, to),
            })
            .collect()
    };
    match e {
        Expr::Name(n, sp) if n == from => Expr::Name(to.to_string(), sp),
        Expr::Apply {
            name,
            args: a,
            span,
        } => Expr::Apply {
            name,
            args: args(a),
            span,
        },
        Expr::Member {
            base,
            field,
            args: a,
            span,
        } => Expr::Member {
            base: r(base),
            field,
            args: a.map(args),
            span,
        },
        Expr::Unary(op, x, sp) => Expr::Unary(op, r(x), sp),
        Expr::Binary(op, a, b, sp) => Expr::Binary(op, r(a), r(b), sp),
        Expr::Paren(x, sp) => Expr::Paren(r(x), sp),
        Expr::Range {
            lo,
            hi,
            stride,
            span,
        } => Expr::Range {
            lo: lo.map(r),
            hi: hi.map(r),
            stride: stride.map(r),
            span,
        },
        Expr::ArrayCtor(items, sp) => {
            Expr::ArrayCtor(items.into_iter().map(|x| rename(x, from, to)).collect(), sp)
        }
        // An inner loop over the same name hides the outer variable.
        Expr::ImpliedDo {
            items,
            control,
            span,
        } => {
            let DoControl { var, lo, hi, step } = *control;
            let items = if var == from {
                items
            } else {
                items.into_iter().map(|x| rename(x, from, to)).collect()
            };
            Expr::ImpliedDo {
                items,
                control: Box::new(DoControl {
                    var,
                    lo: rename(lo, from, to),
                    hi: rename(hi, from, to),
                    step: step.map(|s| rename(s, from, to)),
                }),
                span,
            }
        }
        other => other,
    }
}
