//! Shared reciprocals in the replay of a recomputed run (`recompute.rs`).
//!
//! The replay computes `a/b` again for the values later partials read, and
//! the partials of the division are `1/b` and `-(a*(1/b))*(1/b)`; other
//! partials divide by the same `b` (`g*p/b` next to `m/b`). The compiler
//! computes each distinct division once but does not turn `a/b` into
//! `a*(1/b)` (not the same rounding), so a face of hllflux divides 9 times
//! in the reverse sweep against 5 in the original. Here every real division
//! whose divisor (the same value: same expression, nothing it reads assigned
//! in between) divides two or more different numerators in the replay
//! becomes a multiplication by `r = 1/b`, computed once before its first
//! use.
//!
//! Allowed because the replay's values feed only the partials and later
//! replayed statements of the same reverse piece, never a program variable
//! or a branch of the program: `a*(1/b)` may differ from `a/b` in the last
//! bit, which changes a derivative by a relative 1e-16. The only place a
//! replayed value chooses anything is the selector of a `min`/`max`/`abs`
//! partial (`sign(1, u - v)`), which a last-bit change flips only when the
//! two arguments are equal to the last bit: at a kink, where either
//! one-sided derivative is one the forward sweep could have taken
//! (docs/adjoint.md, "Recomputed partials"). Divisions by constants stay
//! (the compiler turns a division by a power of two into a product itself).

use std::collections::{HashMap, HashSet};

use xaif_schema::model::{
    Assignment, AssignmentLhs, Constant, ConstantType, ExpressionVertex, SymbolType,
};

use super::temps::{AdjointTemp, AdjointTemps};
use crate::error::StatementError;
use crate::expr::{base_symbol, symbols_in_reference, ExprBuilder, ExprView};

/// A divisor's identity: its structural key and how often something it
/// reads was assigned before (a new value, a new reciprocal).
type Divisor = (String, usize);

/// Rewrites `replay` (the replay's assignments in order) so that a divisor
/// that divides two or more different numerators is inverted once; `id`
/// names the new statements. Repeats of one quotient (`1/b` in both
/// partials of `a/b` when the value is not replayed) are left to the
/// compiler, which computes them once already: rewriting them would only
/// add a product and change the rounding.
pub(super) fn share_reciprocals(
    replay: Vec<Assignment>,
    temps: &mut AdjointTemps,
    id: &str,
) -> Result<Vec<Assignment>, StatementError> {
    let mut uses: HashMap<Divisor, HashSet<String>> = HashMap::new();
    walk(&replay, |d, numerator| {
        uses.entry(d).or_default().insert(numerator);
    })?;
    if uses.values().all(|n| n.len() < 2) {
        return Ok(replay);
    }
    let mut out = Vec::with_capacity(replay.len() + uses.len());
    let mut inverted: HashMap<Divisor, xaif_schema::model::VariableReference> = HashMap::new();
    let mut generations = Generations::default();
    let mut count = 0;
    for a in replay {
        let view = ExprView::new(&a.rhs)?;
        let root = view.root()?;
        let mut b = ExprBuilder::new();
        let mut rewrite = Rewrite {
            view: &view,
            generations: &generations,
            uses: &uses,
            inverted: &mut inverted,
            temps,
            before: Vec::new(),
            id,
            line: a.line_number,
            count: &mut count,
        };
        let new_root = rewrite.copy(root, &mut b);
        let before = std::mem::take(&mut rewrite.before);
        out.extend(before);
        let rhs = b.finish(new_root);
        generations.assigned(&a);
        out.push(Assignment { rhs, ..a });
    }
    Ok(out)
}

/// Calls `f` with each real division's divisor and numerator (its key), in
/// replay order.
fn walk(replay: &[Assignment], mut f: impl FnMut(Divisor, String)) -> Result<(), StatementError> {
    let mut generations = Generations::default();
    for a in replay {
        let view = ExprView::new(&a.rhs)?;
        let root = view.root()?;
        for v in view.postorder(root) {
            if let Some(d) = shared_divisor(&view, v) {
                let numerator = view.args[v][0];
                let key = if is_one(view.vertex(numerator)) {
                    "1".to_string()
                } else {
                    view.key(numerator)
                };
                f(generations.divisor(&view, d), key);
            }
        }
        generations.assigned(a);
    }
    Ok(())
}

/// The divisor of vertex `v` when `v` is a real division by something
/// that is not a constant.
fn shared_divisor(view: &ExprView, v: usize) -> Option<usize> {
    let ExpressionVertex::Intrinsic(i) = view.vertex(v) else {
        return None;
    };
    if i.name != "div_scal_scal" || i.r_type != SymbolType::Real {
        return None;
    }
    let d = *view.args[v].get(1)?;
    reads_variable(view, d).then_some(d)
}

fn reads_variable(view: &ExprView, v: usize) -> bool {
    matches!(view.vertex(v), ExpressionVertex::VariableReference(_))
        || view.args[v].iter().any(|&a| reads_variable(view, a))
}

fn symbols_below(view: &ExprView, v: usize, out: &mut Vec<(String, u64)>) {
    if let ExpressionVertex::VariableReference(r) = view.vertex(v) {
        symbols_in_reference(r, out);
    }
    for &a in &view.args[v] {
        symbols_below(view, a, out);
    }
}

/// Per symbol, how often the replay assigned it so far: a divisor's
/// generation is the sum over the symbols it reads. The flattener lets a
/// run read a variable only before or only after all its assignments, so
/// a divisor has one value in a run today; the generation keeps that from
/// being an assumption of this module.
#[derive(Default)]
struct Generations(HashMap<(String, u64), usize>);

impl Generations {
    fn divisor(&self, view: &ExprView, d: usize) -> Divisor {
        let mut symbols = Vec::new();
        symbols_below(view, d, &mut symbols);
        let symbols: HashSet<(String, u64)> = symbols.into_iter().collect();
        let generation = symbols.iter().filter_map(|s| self.0.get(s)).sum();
        (view.key(d), generation)
    }

    fn assigned(&mut self, a: &Assignment) {
        if let Some((s, scope)) = base_symbol(&a.lhs.reference) {
            *self.0.entry((s.to_string(), scope)).or_default() += 1;
        }
    }
}

struct Rewrite<'v, 'a, 't> {
    view: &'v ExprView<'v>,
    generations: &'v Generations,
    uses: &'v HashMap<Divisor, HashSet<String>>,
    inverted: &'v mut HashMap<Divisor, xaif_schema::model::VariableReference>,
    temps: &'v mut AdjointTemps<'a>,
    /// Reciprocals to compute before the statement.
    before: Vec<Assignment>,
    id: &'t str,
    line: u64,
    /// Reciprocals made so far in the piece (their statement ids).
    count: &'t mut usize,
}

impl Rewrite<'_, '_, '_> {
    /// Copies vertex `v` into `b`, a shared division as a product.
    fn copy(&mut self, v: usize, b: &mut ExprBuilder) -> usize {
        if let Some(d) = shared_divisor(self.view, v) {
            let divisor = self.generations.divisor(self.view, d);
            if self.uses.get(&divisor).is_some_and(|n| n.len() > 1) {
                let r = self.reciprocal(divisor, d);
                let numerator = self.view.args[v][0];
                if is_one(self.view.vertex(numerator)) {
                    return b.variable(&r);
                }
                let n = self.copy(numerator, b);
                let r = b.variable(&r);
                return b.intrinsic("mul_scal_scal", &[n, r]);
            }
        }
        let args: Vec<usize> = self.view.args[v].iter().map(|&a| self.copy(a, b)).collect();
        let w = b.copy_vertex(self.view.vertex(v));
        for (k, &a) in args.iter().enumerate() {
            b.edge(a, w, k as i64 + 1);
        }
        w
    }

    /// The temporary holding `1/divisor`, assigned before the statement
    /// the first time it is needed.
    fn reciprocal(&mut self, divisor: Divisor, d: usize) -> xaif_schema::model::VariableReference {
        if let Some(r) = self.inverted.get(&divisor) {
            return r.clone();
        }
        let mut b = ExprBuilder::new();
        let one = b.copy_vertex(&ExpressionVertex::Constant(Constant {
            vertex_id: "1".into(),
            annotation: Default::default(),
            type_: ConstantType::Double,
            fe_type: Default::default(),
            value: "1.0d0".into(),
        }));
        let divisor_copy = self.copy(d, &mut b);
        let quotient = b.intrinsic("div_scal_scal", &[one, divisor_copy]);
        let r = self.temps.take(AdjointTemp::Replay);
        *self.count += 1;
        self.before.push(Assignment {
            statement_id: format!("{}_oad_rcp{}", self.id, self.count).into(),
            do_chain: 0,
            line_number: self.line,
            lhs: AssignmentLhs {
                reference: r.clone(),
                live: true,
            },
            rhs: b.finish(quotient),
        });
        self.inverted.insert(divisor, r.clone());
        r
    }
}

/// A literal one (`1`, `1.0d0`, `1.e0`).
fn is_one(v: &ExpressionVertex) -> bool {
    let ExpressionVertex::Constant(c) = v else {
        return false;
    };
    let text = c.value.to_ascii_lowercase().replace(['d', 'q'], "e");
    let text = text.split('_').next().unwrap_or_default();
    text.parse::<f64>().is_ok_and(|x| x == 1.0)
}
