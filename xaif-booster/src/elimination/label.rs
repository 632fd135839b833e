//! Edge labels and the operations that combine them.
//!
//! Every edge label lives in a [`Labels`] arena and is referred to by a
//! [`LabelId`].  The caller supplies the labels of the original edges as
//! [`Label`]s (a number, a symbolic expression id, or a structural ±1); every
//! elimination step appends operations (`Mul`, `Add`, `Neg`) that each define
//! one new label.  The operation list is in single-assignment form, so a code
//! generator can emit one assignment per operation in order.

use std::fmt;

/// The label of an original edge, as supplied by the caller.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Label {
    /// A known numeric partial derivative (testing, benchmarking).
    Value(f64),
    /// A symbolic partial: an id the caller maps to an expression.
    Symbol(u32),
    /// Structurally exactly +1 (e.g. `a+b`, `y=x`): products with it are free.
    One,
    /// Structurally exactly −1 (e.g. `a-b`, `-a`): products with it are negations.
    MinusOne,
}

/// Index of a label in the [`Labels`] arena.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LabelId(pub u32);

impl fmt::Display for LabelId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "L{}", self.0)
    }
}

/// How a label is defined.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LabelDef {
    /// A caller-supplied label (or one of the two unit constants).
    Input(Label),
    /// `lhs * rhs`
    Mul(LabelId, LabelId),
    /// `lhs + rhs`
    Add(LabelId, LabelId),
    /// `-arg` (a product with a −1 label)
    Neg(LabelId),
}

/// One Jacobian-accumulation operation; `out` is a fresh label.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Mul {
        lhs: LabelId,
        rhs: LabelId,
        out: LabelId,
    },
    Add {
        lhs: LabelId,
        rhs: LabelId,
        out: LabelId,
    },
    Neg {
        arg: LabelId,
        out: LabelId,
    },
}

impl fmt::Display for Op {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Op::Mul { lhs, rhs, out } => write!(f, "{out} = {lhs} * {rhs}"),
            Op::Add { lhs, rhs, out } => write!(f, "{out} = {lhs} + {rhs}"),
            Op::Neg { arg, out } => write!(f, "{out} = -{arg}"),
        }
    }
}

/// Operation counts of an elimination.
///
/// `multiplications` counts the products actually emitted: a product with a
/// structural ±1 label is free (a copy or a negation) and is counted in
/// `unit_products` instead.  The paper's convention (every product of two
/// edge labels, see `multiplications_with_units`) is the sum of both.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OpCounts {
    /// Products of two labels neither of which is structurally ±1.
    pub multiplications: usize,
    /// Products where at least one factor is structurally ±1 (no code, or a negation).
    pub unit_products: usize,
    /// Additions (absorption, merges of parallel edges / line-graph vertices).
    pub additions: usize,
    /// Negations emitted for products with −1.
    pub negations: usize,
}

impl OpCounts {
    /// Every product of two edge labels, unit or not: the count used by the
    /// paper (forward vertex elimination of its example costs 13).
    pub fn multiplications_with_units(&self) -> usize {
        self.multiplications + self.unit_products
    }
}

impl fmt::Display for OpCounts {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} multiplications ({} counting unit products), {} additions, {} negations",
            self.multiplications,
            self.multiplications_with_units(),
            self.additions,
            self.negations
        )
    }
}

/// The label arena: definitions, numeric values where known, and the
/// operation list in execution order.
#[derive(Clone, Debug)]
pub struct Labels {
    defs: Vec<LabelDef>,
    values: Vec<Option<f64>>,
    /// +1 / −1 for structurally unit labels, 0 otherwise.
    unit: Vec<i8>,
    ops: Vec<Op>,
    counts: OpCounts,
}

impl Default for Labels {
    fn default() -> Self {
        Self::new()
    }
}

impl Labels {
    /// The constant +1 label, shared by all structural unit results.
    pub const ONE: LabelId = LabelId(0);
    /// The constant −1 label.
    pub const MINUS_ONE: LabelId = LabelId(1);

    pub fn new() -> Self {
        let mut labels = Labels {
            defs: Vec::new(),
            values: Vec::new(),
            unit: Vec::new(),
            ops: Vec::new(),
            counts: OpCounts::default(),
        };
        labels.input(Label::One);
        labels.input(Label::MinusOne);
        labels
    }

    /// Register a caller-supplied label.
    pub fn input(&mut self, label: Label) -> LabelId {
        let (value, unit) = match label {
            Label::Value(v) => (Some(v), 0),
            Label::Symbol(_) => (None, 0),
            Label::One => (Some(1.0), 1),
            Label::MinusOne => (Some(-1.0), -1),
        };
        self.push(LabelDef::Input(label), value, unit)
    }

    fn push(&mut self, def: LabelDef, value: Option<f64>, unit: i8) -> LabelId {
        let id = LabelId(self.defs.len() as u32);
        self.defs.push(def);
        self.values.push(value);
        self.unit.push(unit);
        id
    }

    /// Product `lhs * rhs`.  Unit factors produce no multiplication: the
    /// result is the other factor itself (+1) or its negation (−1).
    pub fn mul(&mut self, lhs: LabelId, rhs: LabelId) -> LabelId {
        let (ul, ur) = (self.unit_sign(lhs), self.unit_sign(rhs));
        if ul != 0 || ur != 0 {
            self.counts.unit_products += 1;
            return match (ul, ur) {
                (0, s) | (s, 0) => {
                    let other = if ul == 0 { lhs } else { rhs };
                    if s > 0 {
                        other
                    } else {
                        self.neg(other)
                    }
                }
                (a, b) if a * b > 0 => Self::ONE,
                _ => Self::MINUS_ONE,
            };
        }
        self.counts.multiplications += 1;
        let value = match (self.values[lhs.0 as usize], self.values[rhs.0 as usize]) {
            (Some(a), Some(b)) => Some(a * b),
            _ => None,
        };
        let out = self.push(LabelDef::Mul(lhs, rhs), value, 0);
        self.ops.push(Op::Mul { lhs, rhs, out });
        out
    }

    fn neg(&mut self, arg: LabelId) -> LabelId {
        self.counts.negations += 1;
        let value = self.values[arg.0 as usize].map(|v| -v);
        let out = self.push(LabelDef::Neg(arg), value, 0);
        self.ops.push(Op::Neg { arg, out });
        out
    }

    /// Sum `lhs + rhs` (absorption or merge).
    pub fn add(&mut self, lhs: LabelId, rhs: LabelId) -> LabelId {
        self.counts.additions += 1;
        let value = match (self.values[lhs.0 as usize], self.values[rhs.0 as usize]) {
            (Some(a), Some(b)) => Some(a + b),
            _ => None,
        };
        let out = self.push(LabelDef::Add(lhs, rhs), value, 0);
        self.ops.push(Op::Add { lhs, rhs, out });
        out
    }

    /// +1 or −1 for a structurally unit label, 0 otherwise.
    pub fn unit_sign(&self, id: LabelId) -> i8 {
        self.unit[id.0 as usize]
    }

    pub fn is_unit(&self, id: LabelId) -> bool {
        self.unit_sign(id) != 0
    }

    pub fn def(&self, id: LabelId) -> LabelDef {
        self.defs[id.0 as usize]
    }

    /// Numeric value, known when every input it depends on is numeric.
    pub fn value(&self, id: LabelId) -> Option<f64> {
        self.values[id.0 as usize]
    }

    /// All operations in execution order.
    pub fn ops(&self) -> &[Op] {
        &self.ops
    }

    pub fn counts(&self) -> OpCounts {
        self.counts
    }

    pub fn len(&self) -> usize {
        self.defs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.defs.is_empty()
    }
}
