//! The dependence test that decides how an array assignment whose right
//! side reads its own target is scalarised.
//!
//! Fortran evaluates the whole right side before it assigns, so a loop
//! `do i: a(i) = f(..., a(g(i)), ...)` is correct only if no element is
//! read after the loop has overwritten it. Copying the whole target into a
//! temporary before the loop is always correct, but a time-stepping model
//! that updates `h(2:30, t+1)` from `h(:, t)` would then copy all of
//! `h(31, nt+1)` at every step: O(nt²) time, and a tape that grows the same
//! way in the adjoint. Instead every right-side reference `r` to the target
//! array `a` (by name: a dummy argument cannot legally overlap another one
//! that is assigned, so only references to the same variable can alias) is
//! compared with the target section `w`, dimension by dimension:
//!
//! 1. *Disjoint* when some dimension selects non-overlapping index sets:
//!    two scalar subscripts whose difference is a nonzero constant (`t+1`
//!    against `t`), two triplets whose intervals are separated by a
//!    constant (`1:10` against `n+1:n+5` is not, `1:k` against `k+1:n`
//!    is), or with equal constant stride `s` start points that differ by
//!    a non-multiple of `s`; a scalar subscript outside a triplet's
//!    interval. `r` then reads no element the loop writes.
//! 2. Otherwise, when `r` and `w` have their triplets in the same
//!    dimensions with equal strides and the start points differ by
//!    constants, at the loop point where `w` writes element `p`, `r` reads
//!    element `p + δ`, which the loop writes `δ` iterations (per dimension,
//!    in units of the stride) later. The read sees the old value iff `δ`,
//!    taken lexicographically from the outermost loop (last dimension) to
//!    the innermost, is zero or points forward. A dimension of unit stride
//!    may run backward, which negates its component: `a(2:n) = a(1:n-1)`
//!    (`δ = -1`) is safe with the loop reversed, as compilers do it.
//!    Among the direction choices the one leaving the fewest unsafe
//!    references wins (all forward on ties).
//! 3. Only the references this leaves unsafe, and those the test cannot
//!    analyse (different triplet positions, subscripts not affine in the
//!    same symbols, references inside `transpose`/`reshape`, whose index
//!    maps are not the identity), are read from a copy of exactly the
//!    section they reference (a scalar temporary for an element), made
//!    before the loop. A pointer target is never analysed: every reference
//!    other than the target section itself is copied.
//!
//! Differences are computed on integer affine forms: constants, parameters
//! and sums of constant multiples of atoms, atoms (variables, other
//! subexpressions) compared by their text. Atoms have one value for the
//! whole loop because the loop writes only the target array and the loop
//! indices, which are fresh; a subscript that reads the target array's
//! values makes the reference unanalysable.

use std::collections::BTreeMap;

use crate::ast::*;

use super::{name, same_view, strip, Canon, Scalarised, Sub, View};

/// How one right-side reference relates to the target section.
#[derive(Clone, Debug, PartialEq)]
enum Relation {
    /// Reads no element the assignment writes.
    Disjoint,
    /// At the iteration that writes point `p` of the target's index space
    /// it reads the element written at point `p + δ` (one entry per loop,
    /// first dimension first, in iterations).
    Distance(Vec<i64>),
    /// Not analysable: must read from a copy.
    Unknown,
}

/// `constant + Σ coefficient·atom`, atoms keyed by their text.
#[derive(Clone, Debug, Default, PartialEq)]
struct Affine {
    constant: i64,
    terms: BTreeMap<String, i64>,
}

impl Affine {
    fn constant(c: i64) -> Affine {
        Affine {
            constant: c,
            terms: BTreeMap::new(),
        }
    }

    fn atom(text: String) -> Affine {
        Affine {
            constant: 0,
            terms: BTreeMap::from([(text, 1)]),
        }
    }

    fn scale(mut self, k: i64) -> Option<Affine> {
        self.constant = self.constant.checked_mul(k)?;
        for c in self.terms.values_mut() {
            *c = c.checked_mul(k)?;
        }
        Some(self)
    }

    fn plus(mut self, other: Affine) -> Option<Affine> {
        self.constant = self.constant.checked_add(other.constant)?;
        for (t, c) in other.terms {
            let e = self.terms.entry(t).or_insert(0);
            *e = e.checked_add(c)?;
        }
        self.terms.retain(|_, c| *c != 0);
        Some(self)
    }

    /// The value, if no atom is left.
    fn as_constant(&self) -> Option<i64> {
        self.terms.is_empty().then_some(self.constant)
    }
}

/// Intrinsics whose array arguments are inquired about, not read.
fn is_inquiry(n: &str) -> bool {
    matches!(
        n,
        "size" | "lbound" | "ubound" | "shape" | "allocated" | "associated" | "present" | "kind"
    )
}

impl Canon<'_> {
    /// Scalarisation plan for `target = rhs` (`rhs` canonical, `space` the
    /// target's ranges): references of `rhs` to the target that a direct
    /// loop cannot read correctly in any direction are replaced by copies
    /// made here (statements appended to `out`), and the loop direction
    /// of every dimension is chosen. See the module comment.
    pub(super) fn untangle(
        &mut self,
        rhs: Expr,
        target: &View,
        space: &[(Expr, Expr, Option<Expr>)],
        out: &mut Vec<Stmt>,
    ) -> FrontResult<Scalarised> {
        let forward = vec![false; space.len()];
        let mut rhs = rhs;
        let mut refs = Vec::new();
        self.for_each_read(&mut rhs, &target.name, false, &mut |r, mapped| {
            refs.push((r.clone(), mapped))
        });
        if refs.is_empty() {
            return Ok(Scalarised {
                rhs,
                reversed: forward,
                dealloc: Vec::new(),
            });
        }
        let pointer = self
            .prog
            .var(self.unit, &target.name)
            .is_some_and(|(o, k)| self.prog.symbol(o, k).pointer);
        let mut relations = Vec::new();
        for (r, mapped) in &refs {
            let view = self.reference_view(r)?;
            let rel = if pointer {
                if same_view(&view, target) && !mapped {
                    Relation::Distance(vec![0; space.len()])
                } else {
                    Relation::Unknown
                }
            } else {
                match self.relation(target, &view) {
                    Relation::Distance(_) if *mapped => Relation::Unknown,
                    rel => rel,
                }
            };
            relations.push(rel);
        }
        let reversed = best_directions(&relations, space);
        let copy: Vec<bool> = relations
            .iter()
            .map(|rel| match rel {
                Relation::Disjoint => false,
                Relation::Distance(d) => !reads_before_write(d, &reversed),
                Relation::Unknown => true,
            })
            .collect();
        let mut replacement = Vec::new();
        let mut dealloc = Vec::new();
        // One copy per distinct reference (`cshift(a, 1) - cshift(a, -1)`
        // copies `a` once).
        let mut copied: Vec<(String, Expr)> = Vec::new();
        for ((r, _), copy) in refs.into_iter().zip(copy) {
            if !copy {
                replacement.push(None);
                continue;
            }
            let text = strip(&r);
            if let Some((_, t)) = copied.iter().find(|(s, _)| *s == text) {
                replacement.push(Some(t.clone()));
                continue;
            }
            let sp = r.span();
            if self.view(&r)?.is_some() {
                let (t, d) = self.array_temp_of(r, sp, out)?;
                dealloc.extend(d);
                replacement.push(Some(name(&t, sp)));
            } else {
                replacement.push(Some(self.scalar_temp_of(r, out)?));
            }
            if let Some(Some(t)) = replacement.last() {
                copied.push((text, t.clone()));
            }
        }
        let mut k = 0;
        self.for_each_read(&mut rhs, &target.name, false, &mut |r, _| {
            if let Some(Some(new)) = replacement.get(k) {
                *r = new.clone();
            }
            k += 1;
        });
        Ok(Scalarised {
            rhs,
            reversed,
            dealloc,
        })
    }

    /// The canonical items of an array constructor assigned to `array`.
    /// Fortran evaluates the constructor before assigning, while the
    /// unrolled assignments run one by one: when an item reads `array`,
    /// every item is first evaluated into a scalar temporary.
    pub(super) fn constructor_items(
        &mut self,
        items: Vec<Expr>,
        array: &str,
        out: &mut Vec<Stmt>,
    ) -> FrontResult<Vec<Expr>> {
        let reads = items.iter().any(|it| self.reads_array(it, array));
        let mut values = Vec::new();
        for it in items {
            let v = self.value(it, out)?;
            values.push(if !reads || matches!(v, Expr::Lit(..)) {
                v
            } else {
                self.scalar_temp_of(v, out)?
            });
        }
        Ok(values)
    }

    /// Calls `f` on every reference to array `array` in `e` that reads its
    /// values (not the arguments of `size`, `lbound`, ...), outermost
    /// first and without entering the reference's own subscripts; `mapped`
    /// tells whether it sits under an index map (`transpose`, `reshape`,
    /// `spread`, `cshift`) or a constructor,
    /// whose element (i, j) is not the argument's element (i, j).
    fn for_each_read(
        &self,
        e: &mut Expr,
        array: &str,
        mapped: bool,
        f: &mut dyn FnMut(&mut Expr, bool),
    ) {
        match e {
            Expr::Name(n, _) if n == array => f(e, mapped),
            Expr::Apply { name: n, .. } if n == array => f(e, mapped),
            Expr::Apply { name: n, args, .. } => {
                let intrinsic = self.prog.var(self.unit, n).is_none();
                if intrinsic && is_inquiry(n) {
                    return;
                }
                let mapped = mapped
                    || (intrinsic
                        && matches!(n.as_str(), "transpose" | "reshape" | "spread" | "cshift"));
                for a in args {
                    self.for_each_read(&mut a.value, array, mapped, f);
                }
            }
            Expr::Member { base, args, .. } => {
                self.for_each_read(base, array, mapped, f);
                for a in args.iter_mut().flatten() {
                    self.for_each_read(&mut a.value, array, mapped, f);
                }
            }
            Expr::Unary(_, x, _) | Expr::Paren(x, _) => self.for_each_read(x, array, mapped, f),
            Expr::Binary(_, l, r, _) => {
                self.for_each_read(l, array, mapped, f);
                self.for_each_read(r, array, mapped, f);
            }
            Expr::Range { lo, hi, stride, .. } => {
                for x in [lo, hi, stride].into_iter().flatten() {
                    self.for_each_read(x, array, mapped, f);
                }
            }
            Expr::ArrayCtor(items, _) => {
                for x in items {
                    self.for_each_read(x, array, true, f);
                }
            }
            Expr::ImpliedDo { items, control, .. } => {
                for x in items {
                    self.for_each_read(x, array, true, f);
                }
                for x in [
                    Some(&mut control.lo),
                    Some(&mut control.hi),
                    control.step.as_mut(),
                ]
                .into_iter()
                .flatten()
                {
                    self.for_each_read(x, array, true, f);
                }
            }
            Expr::Lit(..) | Expr::Name(..) => {}
        }
    }

    /// Does `e` read the values of array `array`?
    fn reads_array(&self, e: &Expr, array: &str) -> bool {
        let mut e = e.clone();
        let mut found = false;
        self.for_each_read(&mut e, array, false, &mut |_, _| found = true);
        found
    }

    /// The view of a reference, an element reference being a view whose
    /// dimensions are all fixed.
    fn reference_view(&self, r: &Expr) -> FrontResult<View> {
        if let Some(v) = self.view(r)? {
            return Ok(v);
        }
        Ok(match r {
            Expr::Apply { name: n, args, .. } => View {
                name: n.clone(),
                subs: args.iter().map(|a| Sub::Fixed(a.value.clone())).collect(),
            },
            // A scalar of the same name cannot be the array; be safe.
            other => View {
                name: strip(other),
                subs: Vec::new(),
            },
        })
    }

    /// Compares reference `r` with the target section `w` (module comment).
    fn relation(&self, w: &View, r: &View) -> Relation {
        if w.subs.len() != r.subs.len() {
            return Relation::Unknown;
        }
        let reads_target = |e: &Expr| self.reads_array(e, &w.name);
        let subscripts_read_target = |v: &View| {
            v.subs.iter().any(|s| match s {
                Sub::Fixed(e) => reads_target(e),
                Sub::Range { lo, hi, stride } => {
                    reads_target(lo)
                        || reads_target(hi)
                        || stride.as_ref().is_some_and(reads_target)
                }
                Sub::Vector { vector, .. } => reads_target(vector),
            })
        };
        if subscripts_read_target(w) || subscripts_read_target(r) {
            return Relation::Unknown;
        }
        let mut distance = Vec::new();
        let mut unknown = false;
        for (ws, rs) in w.subs.iter().zip(&r.subs) {
            match (ws, rs) {
                // The same vector subscript reads, at each point, the
                // element written there (the subscripts do not read the
                // target: checked above).
                (Sub::Vector { vector: a, .. }, Sub::Vector { vector: b, .. })
                    if strip(a) == strip(b) =>
                {
                    distance.push(0)
                }
                // Which elements a vector subscript names is known only at
                // run time (another dimension may still prove disjointness).
                (Sub::Vector { .. }, _) | (_, Sub::Vector { .. }) => unknown = true,
                (Sub::Fixed(a), Sub::Fixed(b)) => match self.difference(a, b) {
                    Some(0) => {}
                    Some(_) => return Relation::Disjoint,
                    None => unknown = true,
                },
                (Sub::Fixed(f), range @ Sub::Range { .. })
                | (range @ Sub::Range { .. }, Sub::Fixed(f)) => {
                    if let Some((min, max)) = self.interval(range) {
                        if self.exceeds(f, max) || self.exceeds(min, f) {
                            return Relation::Disjoint;
                        }
                    }
                    unknown = true;
                }
                (
                    wr @ Sub::Range {
                        lo: wlo,
                        stride: wst,
                        ..
                    },
                    rr @ Sub::Range {
                        lo: rlo,
                        stride: rst,
                        ..
                    },
                ) => {
                    if let (Some((wmin, wmax)), Some((rmin, rmax))) =
                        (self.interval(wr), self.interval(rr))
                    {
                        if self.exceeds(rmin, wmax) || self.exceeds(wmin, rmax) {
                            return Relation::Disjoint;
                        }
                    }
                    let d = self.difference(wlo, rlo);
                    let (ws, rs) = (
                        self.stride_value(wst.as_ref()),
                        self.stride_value(rst.as_ref()),
                    );
                    match (d, ws, rs) {
                        (Some(d), Some(s), Some(s2)) if s == s2 && s != 0 => {
                            if d % s != 0 {
                                return Relation::Disjoint;
                            }
                            distance.push(d / s);
                        }
                        // Equal symbolic strides: only the same start is analysable.
                        (Some(0), None, None)
                            if wst.as_ref().map(strip) == rst.as_ref().map(strip) =>
                        {
                            distance.push(0)
                        }
                        _ => unknown = true,
                    }
                }
            }
        }
        if unknown {
            Relation::Unknown
        } else {
            Relation::Distance(distance)
        }
    }

    /// The integer affine form of `e`, if its arithmetic does not overflow.
    fn affine(&self, e: &Expr) -> Option<Affine> {
        if let Some(c) = self.prog.const_int(self.unit, e) {
            return Some(Affine::constant(c));
        }
        match e {
            Expr::Paren(x, _) | Expr::Unary(UnOp::Plus, x, _) => self.affine(x),
            Expr::Unary(UnOp::Neg, x, _) => self.affine(x)?.scale(-1),
            Expr::Binary(BinOp::Add, l, r, _) => self.affine(l)?.plus(self.affine(r)?),
            Expr::Binary(BinOp::Sub, l, r, _) => self.affine(l)?.plus(self.affine(r)?.scale(-1)?),
            Expr::Binary(BinOp::Mul, l, r, _) => {
                let (a, b) = (self.affine(l)?, self.affine(r)?);
                match (a.as_constant(), b.as_constant()) {
                    (Some(k), _) => b.scale(k),
                    (_, Some(k)) => a.scale(k),
                    _ => Some(Affine::atom(strip(e))),
                }
            }
            _ => Some(Affine::atom(strip(e))),
        }
    }

    /// `b - a` when it is a constant.
    fn difference(&self, a: &Expr, b: &Expr) -> Option<i64> {
        self.affine(b)?
            .plus(self.affine(a)?.scale(-1)?)?
            .as_constant()
    }

    /// Is `a - b` a positive constant?
    fn exceeds(&self, a: &Expr, b: &Expr) -> bool {
        self.difference(b, a).is_some_and(|d| d > 0)
    }

    /// A constant stride (1 when absent).
    fn stride_value(&self, s: Option<&Expr>) -> Option<i64> {
        match s {
            None => Some(1),
            Some(e) => self.prog.const_int(self.unit, e),
        }
    }

    /// Lowest and highest subscript a triplet can select (`lo`, `hi` in
    /// the order its stride's sign gives), if the stride is constant.
    fn interval<'e>(&self, s: &'e Sub) -> Option<(&'e Expr, &'e Expr)> {
        let Sub::Range { lo, hi, stride } = s else {
            return None;
        };
        match self.stride_value(stride.as_ref())? {
            st if st > 0 => Some((lo, hi)),
            st if st < 0 => Some((hi, lo)),
            _ => None,
        }
    }
}

/// Does the read at distance `d` happen before the loop writes that
/// element, with dimension `k` running backward where `reversed[k]`? The
/// outermost loop (last dimension) decides first.
fn reads_before_write(d: &[i64], reversed: &[bool]) -> bool {
    for (k, &dk) in d.iter().enumerate().rev() {
        let step = if reversed.get(k).copied().unwrap_or(false) {
            -dk
        } else {
            dk
        };
        if step != 0 {
            return step > 0;
        }
    }
    true
}

/// The loop directions (true: backward) that leave the fewest references
/// unsafe; only unit-stride dimensions may run backward; fewer reversals
/// win ties, all forward first.
fn best_directions(relations: &[Relation], space: &[(Expr, Expr, Option<Expr>)]) -> Vec<bool> {
    let m = space.len();
    let reversible: Vec<bool> = space
        .iter()
        .map(|(_, _, st)| st.as_ref().is_none_or(|s| s.const_int() == Some(1)))
        .collect();
    let unsafe_count = |rev: &[bool]| {
        relations
            .iter()
            .filter(|r| matches!(r, Relation::Distance(d) if !reads_before_write(d, rev)))
            .count()
    };
    let mut best = vec![false; m];
    let mut best_count = unsafe_count(&best);
    if best_count == 0 || m > 7 {
        return best;
    }
    let mut masks: Vec<u32> = (1..(1u32 << m)).collect();
    masks.sort_by_key(|x| x.count_ones());
    for mask in masks {
        let rev: Vec<bool> = (0..m).map(|k| mask & (1 << k) != 0).collect();
        if rev.iter().zip(&reversible).any(|(r, ok)| *r && !ok) {
            continue;
        }
        let c = unsafe_count(&rev);
        if c < best_count {
            best = rev;
            best_count = c;
            if c == 0 {
                break;
            }
        }
    }
    best
}
