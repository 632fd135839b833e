//! Replay of recorded elimination operations as factor arithmetic, with
//! deferred scale factors.
//!
//! An elimination sequence multiplies edge labels along paths. Some labels
//! are the same value on many edges: a time step `dt` that scales every
//! right-hand side of an explicit update, literal rate coefficients. Vertex
//! elimination multiplies such a label into every path through its edge,
//! one product per path, although `dt·a + dt·b = dt·(a + b)`. The replay
//! therefore may keep *scale atoms* (constants and variables used as
//! partials without a temporary) out of the products: a value is
//! `scale₁·…·scaleₖ · base`; products merge the scales for free, sums keep
//! the scales both terms share and multiply out only the others, and a
//! Jacobian entry multiplies out its scales at the end. Whether deferring
//! pays depends on the graph, so `block_accumulate` counts both replays on
//! an abstract domain first (`CostCounter`) and emits the cheaper one.

use std::collections::HashMap;

use crate::elimination::{Label, LabelDef, LabelId, Labels, Op};

/// The arithmetic a replay runs on: code emission or counting.
pub trait FactorArith {
    type V: Clone;
    fn mul(&mut self, a: &Self::V, b: &Self::V) -> Self::V;
    fn add(&mut self, a: &Self::V, b: &Self::V) -> Self::V;
    fn int(&self, k: i64) -> Self::V;
    fn is_zero(&self, v: &Self::V) -> bool;
    /// Identity of a value (equal keys: equal values), for sharing the
    /// multiplied-out form of a deferred product.
    fn key(&self, v: &Self::V) -> String;
    /// `(true, -v)` for a negated value, `(false, v)` otherwise: deferred
    /// products are shared regardless of sign (negation is free).
    fn split_sign(&self, v: &Self::V) -> (bool, Self::V);
    fn negate(&self, v: &Self::V) -> Self::V;
    /// The product of two literal constants as one literal, if both are.
    fn fold_literals(&self, a: &Self::V, b: &Self::V) -> Option<Self::V>;
}

/// An input label of the replay: its value, and the key under which it is
/// a scale atom if it may be deferred.
#[derive(Debug, Clone)]
pub struct InputValue<V> {
    pub value: V,
    /// `Some((key, negative))`: a scale atom `±value`; products with it may
    /// be deferred.
    pub scale: Option<(String, bool)>,
}

/// `scale[0]·…·scale[k-1]·base`, scales sorted by key.
#[derive(Debug, Clone)]
struct Scaled<V> {
    scale: Vec<(String, V)>,
    base: V,
}

/// An elimination sequence that does not replay: a bug of the elimination
/// (its labels are the booster's own), so an internal error.
#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    #[error("internal error: elimination label {0} has no partial")]
    NoPartial(LabelId),
    #[error("internal error: elimination label {0} used before defined")]
    Undefined(String),
}

impl From<ReplayError> for crate::error::StatementError {
    fn from(e: ReplayError) -> Self {
        crate::error::StatementError::internal(None, e.to_string())
    }
}

/// Replays `ops` and returns the value of each label in `wanted`.
/// `defer`: keep scale atoms out of products (see the module doc).
pub fn replay<A: FactorArith>(
    arith: &mut A,
    labels: &Labels,
    ops: &[Op],
    inputs: &[InputValue<A::V>],
    wanted: &[LabelId],
    defer: bool,
) -> Result<Vec<A::V>, ReplayError> {
    let mut r = Replayer {
        arith,
        values: HashMap::new(),
        multiplied_out: HashMap::new(),
    };
    let input = |r: &mut Replayer<A>, id: LabelId| -> Result<Scaled<A::V>, ReplayError> {
        if let Some(v) = r.values.get(&id) {
            return Ok(v.clone());
        }
        match labels.def(id) {
            LabelDef::Input(Label::One) => Ok(r.plain(r.arith.int(1))),
            LabelDef::Input(Label::MinusOne) => Ok(r.plain(r.arith.int(-1))),
            LabelDef::Input(Label::Symbol(k)) => {
                let i = inputs.get(k as usize).ok_or(ReplayError::NoPartial(id))?;
                Ok(match (&i.scale, defer) {
                    (Some((key, negative)), true) => Scaled {
                        scale: vec![(key.clone(), i.value.clone())],
                        base: r.arith.int(if *negative { -1 } else { 1 }),
                    },
                    _ => r.plain(i.value.clone()),
                })
            }
            other => Err(ReplayError::Undefined(format!("{id} ({other:?})"))),
        }
    };
    for op in ops {
        let (out, v) = match *op {
            Op::Mul { lhs, rhs, out } => {
                let a = input(&mut r, lhs)?;
                let b = input(&mut r, rhs)?;
                (out, r.mul(a, b))
            }
            Op::Add { lhs, rhs, out } => {
                let a = input(&mut r, lhs)?;
                let b = input(&mut r, rhs)?;
                (out, r.add(a, b))
            }
            Op::Neg { arg, out } => {
                let a = input(&mut r, arg)?;
                let minus = r.plain(r.arith.int(-1));
                (out, r.mul(minus, a))
            }
        };
        r.values.insert(out, v);
    }
    let mut out = Vec::with_capacity(wanted.len());
    for &id in wanted {
        let v = input(&mut r, id)?;
        out.push(r.multiply_out(&v.scale, v.base));
    }
    Ok(out)
}

struct Replayer<'a, A: FactorArith> {
    arith: &'a mut A,
    values: HashMap<LabelId, Scaled<A::V>>,
    /// (scale keys, base key) → the product already emitted.
    multiplied_out: HashMap<(Vec<String>, String), A::V>,
}

impl<A: FactorArith> Replayer<'_, A> {
    fn plain(&self, v: A::V) -> Scaled<A::V> {
        Scaled {
            scale: Vec::new(),
            base: v,
        }
    }

    fn mul(&mut self, a: Scaled<A::V>, b: Scaled<A::V>) -> Scaled<A::V> {
        if self.arith.is_zero(&a.base) || self.arith.is_zero(&b.base) {
            return self.plain(self.arith.int(0));
        }
        let mut scale = a.scale;
        scale.extend(b.scale);
        scale.sort_by(|x, y| x.0.cmp(&y.0));
        Scaled {
            scale,
            base: self.arith.mul(&a.base, &b.base),
        }
    }

    fn add(&mut self, a: Scaled<A::V>, b: Scaled<A::V>) -> Scaled<A::V> {
        if self.arith.is_zero(&a.base) {
            return b;
        }
        if self.arith.is_zero(&b.base) {
            return a;
        }
        // Keep the scales both terms share (multiset intersection of the
        // sorted lists), multiply out the rest.
        let (mut common, mut rest_a, mut rest_b) = (Vec::new(), Vec::new(), Vec::new());
        let (mut i, mut j) = (0, 0);
        while i < a.scale.len() || j < b.scale.len() {
            match (a.scale.get(i), b.scale.get(j)) {
                (Some(x), Some(y)) if x.0 == y.0 => {
                    common.push(x.clone());
                    i += 1;
                    j += 1;
                }
                (Some(x), Some(y)) if x.0 < y.0 => {
                    rest_a.push(x.clone());
                    i += 1;
                }
                (Some(_), Some(y)) => {
                    rest_b.push(y.clone());
                    j += 1;
                }
                (Some(x), None) => {
                    rest_a.push(x.clone());
                    i += 1;
                }
                (None, Some(y)) => {
                    rest_b.push(y.clone());
                    j += 1;
                }
                (None, None) => unreachable!(),
            }
        }
        let x = self.multiply_out(&rest_a, a.base);
        let y = self.multiply_out(&rest_b, b.base);
        Scaled {
            scale: common,
            base: self.arith.add(&x, &y),
        }
    }

    /// `scale·base` as a plain value: literal scales folded into one
    /// literal, every prefix product shared (whatever the sign of base).
    fn multiply_out(&mut self, scale: &[(String, A::V)], base: A::V) -> A::V {
        let mut folded: Vec<(String, A::V)> = Vec::with_capacity(scale.len());
        for (key, atom) in scale {
            let lit = folded
                .iter()
                .position(|(_, f)| self.arith.fold_literals(f, atom).is_some());
            match lit {
                Some(k) => {
                    let product = self.arith.fold_literals(&folded[k].1, atom);
                    if let Some(p) = product {
                        folded[k] = (self.arith.key(&p), p);
                    }
                }
                None => folded.push((key.clone(), atom.clone())),
            }
        }
        folded.sort_by(|x, y| x.0.cmp(&y.0));
        let (negative, base) = self.arith.split_sign(&base);
        let base_key = self.arith.key(&base);
        let mut v = base;
        let mut keys = Vec::new();
        for (key, atom) in &folded {
            keys.push(key.clone());
            let memo = (keys.clone(), base_key.clone());
            v = match self.multiplied_out.get(&memo) {
                Some(done) => done.clone(),
                None => {
                    let p = self.arith.mul(atom, &v);
                    self.multiplied_out.insert(memo, p.clone());
                    p
                }
            };
        }
        if negative {
            self.arith.negate(&v)
        } else {
            v
        }
    }
}

/// A value of the counting domain: a known integer or an opaque number.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Counted {
    Int(i64),
    Opaque(String),
}

/// Counts the multiplications and additions a replay would emit, with the
/// folding rules of `preaccumulate::FactorCode` (products with 0 and ±1 and
/// integer arithmetic are free).
#[derive(Debug, Default)]
pub struct CostCounter {
    pub multiplications: usize,
    pub additions: usize,
    next: usize,
}

impl CostCounter {
    fn fresh(&mut self) -> Counted {
        self.next += 1;
        Counted::Opaque(format!("#{}", self.next))
    }

    /// An opaque input value with the given identity.
    pub fn opaque(key: String) -> Counted {
        Counted::Opaque(key)
    }
}

impl FactorArith for CostCounter {
    type V = Counted;

    fn mul(&mut self, a: &Counted, b: &Counted) -> Counted {
        match (a, b) {
            (Counted::Int(0), _) | (_, Counted::Int(0)) => Counted::Int(0),
            (Counted::Int(x), Counted::Int(y)) => Counted::Int(x.saturating_mul(*y)),
            (Counted::Int(1), f) | (f, Counted::Int(1)) => f.clone(),
            (Counted::Int(-1), Counted::Opaque(s)) | (Counted::Opaque(s), Counted::Int(-1)) => {
                Counted::Opaque(match s.strip_prefix('-') {
                    Some(t) => t.to_string(),
                    None => format!("-{s}"),
                })
            }
            _ => {
                self.multiplications += 1;
                self.fresh()
            }
        }
    }

    fn add(&mut self, a: &Counted, b: &Counted) -> Counted {
        match (a, b) {
            (Counted::Int(0), f) | (f, Counted::Int(0)) => f.clone(),
            (Counted::Int(x), Counted::Int(y)) => Counted::Int(x.saturating_add(*y)),
            _ => {
                self.additions += 1;
                self.fresh()
            }
        }
    }

    fn int(&self, k: i64) -> Counted {
        Counted::Int(k)
    }

    fn is_zero(&self, v: &Counted) -> bool {
        *v == Counted::Int(0)
    }

    fn key(&self, v: &Counted) -> String {
        match v {
            Counted::Int(k) => format!("i{k}"),
            Counted::Opaque(s) => s.clone(),
        }
    }

    fn split_sign(&self, v: &Counted) -> (bool, Counted) {
        match v {
            Counted::Int(k) if *k < 0 => (true, Counted::Int(k.saturating_neg())),
            Counted::Opaque(s) if s.starts_with('-') => (true, Counted::Opaque(s[1..].to_string())),
            v => (false, v.clone()),
        }
    }

    fn negate(&self, v: &Counted) -> Counted {
        match v {
            Counted::Int(k) => Counted::Int(k.saturating_neg()),
            Counted::Opaque(s) => Counted::Opaque(match s.strip_prefix('-') {
                Some(t) => t.to_string(),
                None => format!("-{s}"),
            }),
        }
    }

    fn fold_literals(&self, a: &Counted, b: &Counted) -> Option<Counted> {
        match (a, b) {
            (Counted::Opaque(x), Counted::Opaque(y))
                if x.starts_with("c:Double:") && y.starts_with("c:Double:") =>
            {
                Some(Counted::Opaque(format!("c:Double:({x})*({y})")))
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Evaluates numerically (identity of a value: its bits).
    struct Numeric;

    impl FactorArith for Numeric {
        type V = f64;
        fn mul(&mut self, a: &f64, b: &f64) -> f64 {
            a * b
        }
        fn add(&mut self, a: &f64, b: &f64) -> f64 {
            a + b
        }
        fn int(&self, k: i64) -> f64 {
            k as f64
        }
        fn is_zero(&self, v: &f64) -> bool {
            *v == 0.0
        }
        fn key(&self, v: &f64) -> String {
            format!("{:x}", v.to_bits())
        }
        fn split_sign(&self, v: &f64) -> (bool, f64) {
            (*v < 0.0, v.abs())
        }
        fn negate(&self, v: &f64) -> f64 {
            -v
        }
        fn fold_literals(&self, _: &f64, _: &f64) -> Option<f64> {
            None
        }
    }

    fn counted(inputs: &[(i64, bool)]) -> Vec<InputValue<Counted>> {
        inputs
            .iter()
            .enumerate()
            .map(|(k, &(_, scale))| InputValue {
                value: Counted::Opaque(format!("in{k}")),
                scale: scale.then(|| (format!("in{k}"), false)),
            })
            .collect()
    }

    #[test]
    fn a_shared_scale_is_multiplied_once() {
        // dt·a + dt·b: two products and a sum plainly; a sum and one
        // product when dt is deferred.
        let mut labels = Labels::new();
        let dt = labels.input(Label::Symbol(0));
        let a = labels.input(Label::Symbol(1));
        let b = labels.input(Label::Symbol(2));
        let x = labels.mul(dt, a);
        let y = labels.mul(dt, b);
        let s = labels.add(x, y);
        let inputs = counted(&[(0, true), (1, false), (2, false)]);
        let ops = labels.ops().to_vec();
        let mut plain = CostCounter::default();
        replay(&mut plain, &labels, &ops, &inputs, &[s], false).unwrap();
        assert_eq!((plain.multiplications, plain.additions), (2, 1));
        let mut deferred = CostCounter::default();
        replay(&mut deferred, &labels, &ops, &inputs, &[s], true).unwrap();
        assert_eq!((deferred.multiplications, deferred.additions), (1, 1));
    }

    #[test]
    fn deferred_and_plain_replays_compute_the_same_values() {
        // Random sequences of products and sums over inputs of which some
        // are scale atoms; every label's value must agree.
        let mut seed: u64 = 12345;
        let mut next = |n: usize| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((seed >> 33) as usize) % n
        };
        for _ in 0..200 {
            let mut labels = Labels::new();
            let n_in = 2 + next(5);
            let values: Vec<f64> = (0..n_in).map(|_| next(1000) as f64 / 250.0 - 2.0).collect();
            let mut ids: Vec<LabelId> = (0..n_in)
                .map(|k| labels.input(Label::Symbol(k as u32)))
                .collect();
            ids.push(labels.input(Label::One));
            ids.push(labels.input(Label::MinusOne));
            for _ in 0..(3 + next(25)) {
                let a = ids[next(ids.len())];
                let b = ids[next(ids.len())];
                let c = if next(2) == 0 {
                    labels.mul(a, b)
                } else {
                    labels.add(a, b)
                };
                ids.push(c);
            }
            let inputs: Vec<InputValue<f64>> = values
                .iter()
                .enumerate()
                .map(|(k, v)| InputValue {
                    value: v.abs(),
                    scale: (next(2) == 0).then(|| (format!("in{k}"), *v < 0.0)),
                })
                .collect();
            // Plain inputs carry their sign in the value.
            let inputs: Vec<InputValue<f64>> = inputs
                .into_iter()
                .zip(&values)
                .map(|(mut i, v)| {
                    if i.scale.is_none() {
                        i.value = *v;
                    }
                    i
                })
                .collect();
            let ops = labels.ops().to_vec();
            let plain_inputs: Vec<InputValue<f64>> = values
                .iter()
                .map(|v| InputValue {
                    value: *v,
                    scale: None,
                })
                .collect();
            let want = replay(&mut Numeric, &labels, &ops, &plain_inputs, &ids, false).unwrap();
            let got = replay(&mut Numeric, &labels, &ops, &inputs, &ids, true).unwrap();
            for (w, g) in want.iter().zip(&got) {
                assert!(
                    (w - g).abs() <= 1e-9 * w.abs().max(1.0),
                    "deferred {g} against plain {w}"
                );
            }
        }
    }
}
