//! Scalarisation of array-valued assignments whose extents are not known
//! at transformation time (`a(1:n) = b(1:n)*c`, whole arrays of dummy
//! extent `x(n)`): the assignment becomes a loop nest over the left-hand
//! side's subscripts, one loop per range dimension (first subscript
//! innermost), whose body assigns one element. `scalarize.rs` unrolls
//! what has constant extents and hands the rest here.
//!
//! Bounds come from the section triplet, else the symbol's
//! `DimensionBounds`, else the bound inquiries `lbound(a, d)` /
//! `ubound(a, d)` (XAIF's bounds are integer constants: a dummy `x(n)`
//! declares none). Strides must be integer constants. Another reference
//! `X` of the right-hand side, paired dimension by dimension with the
//! left-hand side `L`, is subscripted `lo_X + (i - lo_L)` (strides equal)
//! or `lo_X + ((i - lo_L)/st_L)*st_X`, simplified where the bounds are
//! linear in the same variables.
//!
//! Overlap: when the right-hand side reads the left-hand side's array, the
//! difference of the two references' subscripts must be a constant in
//! every dimension (linear forms: `a(2:n) = a(1:n-1)` differs by -1); the
//! loop order (forward, or every loop reversed) in which no element is
//! read after it was stored is taken. Otherwise Fortran's semantics need a
//! temporary of non-constant size, which XAIF cannot declare
//! (`DimensionBounds` are integer constants): refused by name.

use crate::error::StatementError;
use std::collections::BTreeMap;
use xaif_schema::model::*;

use crate::expr::{
    base_symbol, exact_integer_literal, symbols_in_expression, ExprBuilder, ExprView,
};
use crate::symbols::SymbolIndex;

/// One dimension of a reference to an array, bounds as expressions.
#[derive(Debug, Clone)]
enum SymDim {
    Range {
        lo: Expression,
        hi: Expression,
        stride: i64,
    },
    Scalar(Expression),
}

/// A loop nest replacing one array-valued assignment.
#[derive(Debug, Clone)]
pub struct LoopNest {
    /// Outermost first.
    pub headers: Vec<ForLoop>,
    pub body: Assignment,
}

/// The scalarisation's temporaries in one control flow graph, in the
/// graph's scope: loop indices (`oad_si_D`, integer; depth `d` always gets
/// the same name, loops of different statements follow each other) and
/// array copies of constant size (`oad_sa_N`, active real vectors, one per
/// statement that needs one).
pub struct Temporaries {
    pub scope_id: u64,
    names: Vec<String>,
    arrays: Vec<(String, i64)>,
}

impl Temporaries {
    pub fn new(scope_id: u64) -> Temporaries {
        Temporaries {
            scope_id,
            names: Vec::new(),
            arrays: Vec::new(),
        }
    }

    fn fresh(stem: &str, symbols: &SymbolIndex) -> String {
        let mut candidate = stem.to_string();
        let mut k = 0;
        while symbols.is_name_used(&candidate) {
            k += 1;
            candidate = format!("{stem}_{k}");
        }
        candidate
    }

    fn index(&mut self, depth: usize, symbols: &SymbolIndex) -> VariableReference {
        while self.names.len() <= depth {
            let name = Self::fresh(&format!("oad_si_{}", self.names.len() + 1), symbols);
            self.names.push(name);
        }
        crate::temporaries::temp_reference(&self.names[depth], self.scope_id)
    }

    /// A new active real vector `1:len`, as a whole-array reference.
    pub fn array(&mut self, len: i64, symbols: &SymbolIndex) -> VariableReference {
        let name = Self::fresh(&format!("oad_sa_{}", self.arrays.len() + 1), symbols);
        self.arrays.push((name.clone(), len));
        let mut r = crate::temporaries::temp_reference(&name, self.scope_id);
        r.active = ActiveUse::Undefined;
        r
    }

    /// The symbols of the temporaries handed out.
    pub fn symbols(&self) -> Vec<Symbol> {
        let indices = self.names.iter().map(|n| Symbol {
            type_: SymbolType::Integer,
            ..crate::symbols::temporary_symbol(n)
        });
        let arrays = self.arrays.iter().map(|(n, len)| Symbol {
            shape: SymbolShape::Vector,
            active: true,
            dimension_bounds: vec![DimensionBounds {
                lower: 1,
                upper: *len,
            }],
            ..crate::symbols::temporary_symbol(n)
        });
        indices.chain(arrays).collect()
    }
}

// ---------------------------------------------------------------------------
// Linear forms of integer expressions
// ---------------------------------------------------------------------------

/// `constant + Σ coefficient·atom`; an atom is any subexpression that is not
/// `+ - *`-by-a-constant or negation (a variable, `n/2`, `ubound(a,1)`),
/// keyed structurally so that equal atoms cancel.
#[derive(Debug, Clone, Default)]
struct Linear {
    constant: i64,
    terms: BTreeMap<String, (i64, Expression)>,
}

impl Linear {
    fn of(e: &Expression) -> Linear {
        match ExprView::new(e).and_then(|v| v.root().map(|r| (v, r))) {
            Ok((view, root)) => Linear::at(&view, root),
            Err(_) => Linear::atom("?".into(), e.clone()),
        }
    }

    fn atom(key: String, e: Expression) -> Linear {
        let mut terms = BTreeMap::new();
        terms.insert(key, (1, e));
        Linear { constant: 0, terms }
    }

    fn at(view: &ExprView, v: usize) -> Linear {
        let args = &view.args[v];
        match view.vertex(v) {
            ExpressionVertex::Constant(c) => {
                if let Some(k) = exact_integer_literal(c) {
                    return Linear {
                        constant: k,
                        terms: BTreeMap::new(),
                    };
                }
            }
            ExpressionVertex::Intrinsic(i) => match (i.name.as_str(), args.as_slice()) {
                ("add_scal_scal", [a, b]) => {
                    return Linear::at(view, *a).plus(&Linear::at(view, *b), 1)
                }
                ("sub_scal_scal", [a, b]) => {
                    return Linear::at(view, *a).plus(&Linear::at(view, *b), -1)
                }
                ("minus_scal", [a]) => return Linear::default().plus(&Linear::at(view, *a), -1),
                ("mul_scal_scal", [a, b]) => {
                    let (x, y) = (Linear::at(view, *a), Linear::at(view, *b));
                    if let Some(k) = x.constant_value() {
                        return Linear::default().plus(&y, k);
                    }
                    if let Some(k) = y.constant_value() {
                        return Linear::default().plus(&x, k);
                    }
                }
                _ => {}
            },
            _ => {}
        }
        let mut b = ExprBuilder::new();
        let r = b.copy_subexpression(view, v);
        Linear::atom(view.key(v), b.finish(r))
    }

    /// `self + k·other`.
    fn plus(mut self, other: &Linear, k: i64) -> Linear {
        self.constant += k * other.constant;
        for (key, (c, e)) in &other.terms {
            let entry = self.terms.entry(key.clone()).or_insert((0, e.clone()));
            entry.0 += k * c;
        }
        self.terms.retain(|_, (c, _)| *c != 0);
        self
    }

    fn constant_value(&self) -> Option<i64> {
        self.terms.is_empty().then_some(self.constant)
    }

    /// `base + self` built into `b`.
    fn add_to(&self, b: &mut ExprBuilder, base: usize) -> usize {
        let mut acc = base;
        for (coefficient, atom) in self.terms.values() {
            let view = ExprView::new(atom).expect("atoms are built well-formed");
            let root = view.root().expect("atoms have a root");
            let mut x = b.copy_subexpression(&view, root);
            let magnitude = coefficient.abs();
            if magnitude != 1 {
                let k = b.constant_int(magnitude);
                x = int_op(b, "mul_scal_scal", &[k, x]);
            }
            let op = if *coefficient > 0 {
                "add_scal_scal"
            } else {
                "sub_scal_scal"
            };
            acc = int_op(b, op, &[acc, x]);
        }
        if self.constant != 0 {
            let k = b.constant_int(self.constant.abs());
            let op = if self.constant > 0 {
                "add_scal_scal"
            } else {
                "sub_scal_scal"
            };
            acc = int_op(b, op, &[acc, k]);
        }
        acc
    }
}

/// An integer-valued operation.
fn int_op(b: &mut ExprBuilder, name: &str, args: &[usize]) -> usize {
    let v = b.intrinsic(name, args);
    if let Some(ExpressionVertex::Intrinsic(i)) = b.expr.vertices.get_mut(v) {
        if i.name == name {
            i.r_type = SymbolType::Integer;
        }
    }
    v
}

fn copy_into(b: &mut ExprBuilder, e: &Expression) -> usize {
    let view = ExprView::new(e).expect("well-formed bound expression");
    let root = view.root().expect("bound expression with a root");
    b.copy_subexpression(&view, root)
}

// ---------------------------------------------------------------------------
// Shapes with expressions as bounds
// ---------------------------------------------------------------------------

fn is_scalar_triplet(t: &IndexTriplet) -> bool {
    t.index.is_some() && t.bound.is_none() && t.stride.is_none()
}

fn subscripts(r: &VariableReference) -> Vec<&ArrayElementReference> {
    r.vertices
        .iter()
        .filter_map(|v| match v {
            VariableReferenceVertex::ArrayElementReference(a) => Some(a),
            _ => None,
        })
        .collect()
}

/// `lbound(a, d)` / `ubound(a, d)` of the whole array `r` names.
fn inquiry(
    r: &VariableReference,
    which: &str,
    dimension: usize,
) -> Result<Expression, StatementError> {
    let symbol_references: Vec<&SymbolReference> = r
        .vertices
        .iter()
        .filter_map(|v| match v {
            VariableReferenceVertex::SymbolReference(s) => Some(s),
            _ => None,
        })
        .collect();
    let [s] = symbol_references.as_slice() else {
        return Err(refuse(format!(
            "the bounds of the component array in '{}' are not in the XAIF (no DimensionBounds) \
             and a bound inquiry on a component path is not supported: the front end must \
             scalarise this statement (canonical form C3)",
            base_symbol(r).map_or("?", |(s, _)| s)
        )));
    };
    let whole = VariableReference {
        vertex_id: "1".into(),
        active: ActiveUse::False,
        vertices: vec![VariableReferenceVertex::SymbolReference((*s).clone())],
        ..VariableReference::default()
    };
    let mut b = ExprBuilder::new();
    let a = b.variable(&whole);
    let d = b.constant_int(dimension as i64 + 1);
    let v = int_op(&mut b, which, &[a, d]);
    Ok(b.finish(v))
}

fn constant(value: i64) -> Expression {
    crate::expr::integer_expression(value)
}

/// Every dimension of the array `r` refers to (ranges and scalar
/// subscripts), or `None` when `r` is not an array reference.
fn dimensions(
    r: &VariableReference,
    symbols: &SymbolIndex,
) -> Result<Option<Vec<SymDim>>, StatementError> {
    let Some((id, scope)) = base_symbol(r) else {
        return Ok(None);
    };
    let Some(info) = symbols.lookup(scope, id) else {
        return Ok(None);
    };
    let rank = info.shape.rank();
    if rank == 0 {
        return Ok(None);
    }
    let declared = symbols.dimension_bounds(scope, id);
    let declared = (declared.len() == rank).then_some(declared);
    let lower = |k: usize| match declared {
        Some(d) => Ok(constant(d[k].lower)),
        None => inquiry(r, "lbound", k),
    };
    let upper = |k: usize| match declared {
        Some(d) => Ok(constant(d[k].upper)),
        None if info.assumed_size && k + 1 == rank => Err(refuse(format!(
            "whole assumed-size array '{id}' in an array-valued assignment: its last \
             extent is not known anywhere"
        ))),
        None => inquiry(r, "ubound", k),
    };
    let aers = subscripts(r);
    let triplets = match aers.as_slice() {
        [] => {
            return (0..rank)
                .map(|k| {
                    Ok(SymDim::Range {
                        lo: lower(k)?,
                        hi: upper(k)?,
                        stride: 1,
                    })
                })
                .collect::<Result<Vec<_>, StatementError>>()
                .map(Some)
        }
        [one] => &one.index_triplets,
        _ => {
            return Err(refuse(format!(
                "array-valued reference to '{id}' with subscripts at several levels of a \
                 component path: the front end must scalarise this statement (canonical form C3)"
            )))
        }
    };
    let mut dims = Vec::new();
    for (k, t) in triplets.iter().enumerate() {
        if is_scalar_triplet(t) {
            dims.push(SymDim::Scalar(t.index.clone().expect("scalar subscript")));
            continue;
        }
        let stride = match &t.stride {
            None => 1,
            Some(e) => match e.vertices.as_slice() {
                [ExpressionVertex::Constant(c)] => exact_integer_literal(c),
                _ => None,
            }
            .ok_or_else(|| {
                refuse(format!(
                    "section of '{id}' with a stride that is not an integer constant: the \
                     element order is not known at transformation time; the front end must \
                     scalarise this statement (canonical form C3)"
                ))
            })?,
        };
        if stride == 0 {
            return Err(refuse(format!("section of '{id}' with stride 0")));
        }
        let lo = match &t.index {
            Some(e) => e.clone(),
            None => lower(k)?,
        };
        let hi = match &t.bound {
            Some(e) => e.clone(),
            None => upper(k)?,
        };
        dims.push(SymDim::Range { lo, hi, stride });
    }
    Ok(Some(dims))
}

fn range_count(dims: &[SymDim]) -> usize {
    dims.iter()
        .filter(|d| matches!(d, SymDim::Range { .. }))
        .count()
}

/// The constant extent of a range, when its bounds differ by a constant.
fn constant_extent(d: &SymDim) -> Option<i64> {
    let SymDim::Range { lo, hi, stride } = d else {
        return None;
    };
    let span = Linear::of(hi).plus(&Linear::of(lo), -1).constant_value()?;
    Some(((span + stride) / stride).max(0))
}

// ---------------------------------------------------------------------------
// Overlap of the left-hand side with a read of the same array
// ---------------------------------------------------------------------------

enum Overlap {
    /// No element read is ever written.
    Disjoint,
    /// Iteration `t` reads the element iteration `t + e` writes (per loop
    /// dimension, innermost first).
    Offset(Vec<i64>),
    Unknown,
}

/// The symbols and components of a reference, subscripts left out.
fn path_key(r: &VariableReference) -> String {
    r.vertices
        .iter()
        .filter_map(|v| match v {
            VariableReferenceVertex::SymbolReference(s) => {
                let props: String = s
                    .properties
                    .iter()
                    .map(|p| format!("[{}={}]", p.name, p.value))
                    .collect();
                Some(format!("{}@{}{props};", s.symbol_id, s.scope_id))
            }
            _ => None,
        })
        .collect()
}

fn overlap(lhs: &[SymDim], read: &[SymDim]) -> Overlap {
    if lhs.len() != read.len() {
        return Overlap::Unknown;
    }
    let mut offsets = Vec::new();
    for (l, x) in lhs.iter().zip(read) {
        match (l, x) {
            (SymDim::Scalar(a), SymDim::Scalar(b)) => {
                match Linear::of(b).plus(&Linear::of(a), -1).constant_value() {
                    Some(0) => {}
                    Some(_) => return Overlap::Disjoint,
                    None => return Overlap::Unknown,
                }
            }
            (
                SymDim::Range {
                    lo: lo_l,
                    stride: st_l,
                    ..
                },
                SymDim::Range {
                    lo: lo_x,
                    stride: st_x,
                    ..
                },
            ) if st_l == st_x => {
                let Some(c) = Linear::of(lo_x)
                    .plus(&Linear::of(lo_l), -1)
                    .constant_value()
                else {
                    return Overlap::Unknown;
                };
                if c % st_l != 0 {
                    return Overlap::Disjoint;
                }
                offsets.push(c / st_l);
            }
            _ => return Overlap::Unknown,
        }
    }
    Overlap::Offset(offsets)
}

/// The sign of an iteration offset in loop order (the outermost loop, the
/// last range dimension, decides first).
fn lexicographic_sign(e: &[i64]) -> i64 {
    e.iter().rev().find(|&&x| x != 0).map_or(0, |x| x.signum())
}

// ---------------------------------------------------------------------------
// The loop nest
// ---------------------------------------------------------------------------

/// `lo_X + (i - lo_L)` (equal strides) or `lo_X + ((i - lo_L)/st_L)*st_X`.
fn subscript(index: &VariableReference, l: &SymDim, x: &SymDim) -> Expression {
    let (
        SymDim::Range {
            lo: lo_l,
            stride: st_l,
            ..
        },
        SymDim::Range {
            lo: lo_x,
            stride: st_x,
            ..
        },
    ) = (l, x)
    else {
        unreachable!("subscripts are computed for ranges");
    };
    let mut b = ExprBuilder::new();
    let i = b.variable(index);
    let root = if st_l == st_x {
        Linear::of(lo_x)
            .plus(&Linear::of(lo_l), -1)
            .add_to(&mut b, i)
    } else {
        let shifted = Linear::default()
            .plus(&Linear::of(lo_l), -1)
            .add_to(&mut b, i);
        let step = b.constant_int(*st_l);
        let count = int_op(&mut b, "div_scal_scal", &[shifted, step]);
        let st = b.constant_int(*st_x);
        let offset = int_op(&mut b, "mul_scal_scal", &[count, st]);
        Linear::of(lo_x).add_to(&mut b, offset)
    };
    b.finish(root)
}

/// `r` with its range dimensions subscripted by `indices` (one expression
/// per range dimension, in order).
fn element(r: &VariableReference, dims: &[SymDim], indices: &[Expression]) -> VariableReference {
    let mut out = r.clone();
    out.alias = 0;
    out.du_ud = 0;
    let mut next = indices.iter();
    let triplets: Vec<IndexTriplet> = dims
        .iter()
        .map(|d| IndexTriplet {
            index: Some(match d {
                SymDim::Scalar(e) => e.clone(),
                SymDim::Range { .. } => next.next().expect("one index per range").clone(),
            }),
            bound: None,
            stride: None,
        })
        .collect();
    if let Some(a) = out.vertices.iter_mut().find_map(|v| match v {
        VariableReferenceVertex::ArrayElementReference(a) => Some(a),
        _ => None,
    }) {
        a.index_triplets = triplets;
        return out;
    }
    let symbol_vertex = out.vertices[0].vertex_id().to_string();
    let mut id = 1;
    while out.vertices.iter().any(|v| v.vertex_id() == id.to_string()) {
        id += 1;
    }
    out.vertices
        .push(VariableReferenceVertex::ArrayElementReference(
            ArrayElementReference {
                vertex_id: id.to_string().into(),
                annotation: Default::default(),
                index_triplets: triplets,
            },
        ));
    out.edges.push(Edge {
        edge_id: (out.edges.len() + 1).to_string().into(),
        source: symbol_vertex.into(),
        target: id.to_string().into(),
        annotation: Default::default(),
    });
    out
}

fn assign(statement_id: String, line: u64, lhs: &VariableReference, rhs: Expression) -> Assignment {
    Assignment {
        statement_id: statement_id.into(),
        do_chain: 0,
        line_number: line,
        lhs: AssignmentLhs {
            reference: lhs.clone(),
            live: true,
        },
        rhs,
    }
}

fn comparison(index: &VariableReference, op: BooleanOp, limit: &Expression) -> Expression {
    let mut b = ExprBuilder::new();
    let i = b.variable(index);
    let l = copy_into(&mut b, limit);
    let id = (b.expr.vertices.len() + 1).to_string();
    b.expr
        .vertices
        .push(ExpressionVertex::BooleanOperation(BooleanOperation {
            vertex_id: id.into(),
            annotation: Default::default(),
            name: op,
        }));
    let v = b.expr.vertices.len() - 1;
    b.edge(i, v, 1);
    b.edge(l, v, 2);
    b.finish(v)
}

/// `do i = first, last, step` over a range (`reversed`: from its last
/// element down to `lo`).
fn header(
    a: &Assignment,
    depth: usize,
    index: &VariableReference,
    d: &SymDim,
    reversed: bool,
) -> ForLoop {
    let SymDim::Range { lo, hi, stride } = d else {
        unreachable!("loops run over ranges");
    };
    let (first, limit, step) = if !reversed {
        (lo.clone(), hi.clone(), *stride)
    } else if stride.abs() == 1 {
        (hi.clone(), lo.clone(), -stride)
    } else {
        // The last element: lo + ((hi - lo)/stride)*stride.
        let mut b = ExprBuilder::new();
        let h = copy_into(&mut b, hi);
        let l = copy_into(&mut b, lo);
        let span = int_op(&mut b, "sub_scal_scal", &[h, l]);
        let s = b.constant_int(*stride);
        let count = int_op(&mut b, "div_scal_scal", &[span, s]);
        let s = b.constant_int(*stride);
        let offset = int_op(&mut b, "mul_scal_scal", &[count, s]);
        let l = copy_into(&mut b, lo);
        let last = int_op(&mut b, "add_scal_scal", &[l, offset]);
        (b.finish(last), lo.clone(), -stride)
    };
    let op = if step > 0 {
        BooleanOp::LessOrEqual
    } else {
        BooleanOp::GreaterOrEqual
    };
    let update = {
        let mut b = ExprBuilder::new();
        let i = b.variable(index);
        let s = b.constant_int(step.abs());
        let name = if step > 0 {
            "add_scal_scal"
        } else {
            "sub_scal_scal"
        };
        let v = int_op(&mut b, name, &[i, s]);
        b.finish(v)
    };
    ForLoop {
        vertex_id: Default::default(),
        annotation: Default::default(),
        line_number: a.line_number,
        reversal: ForLoopReversal::Anonymous,
        initialization: Some(assign(
            format!("{}_oad_i{}", a.statement_id, depth + 1),
            a.line_number,
            index,
            first,
        )),
        condition: Some(comparison(index, op, &limit)),
        update: Some(assign(
            format!("{}_oad_u{}", a.statement_id, depth + 1),
            a.line_number,
            index,
            update,
        )),
    }
}

/// The loop nest of `a`, an assignment with an active array-valued
/// reference of which some extent is not a constant.
pub fn loop_nest(
    a: &Assignment,
    symbols: &SymbolIndex,
    indices: &mut Temporaries,
) -> Result<LoopNest, StatementError> {
    let lhs_name = base_symbol(&a.lhs.reference).map_or("?", |(s, _)| s);
    let lhs = dimensions(&a.lhs.reference, symbols)?
        .filter(|d| range_count(d) > 0)
        .ok_or_else(|| {
            refuse(format!(
                "the right-hand side reads an array-valued reference but the left-hand side \
                 '{lhs_name}' is a scalar: the shapes do not conform (canonical form C2: an \
                 assignment gives its one variable one value)"
            ))
        })?;
    let rank = range_count(&lhs);
    let inquiries = crate::expr::inquiry_arguments(&a.rhs);
    // The array-valued references of the right-hand side, by vertex id.
    let mut reads: Vec<(String, Vec<SymDim>)> = Vec::new();
    for v in &a.rhs.vertices {
        let ExpressionVertex::VariableReference(r) = v else {
            continue;
        };
        if inquiries.contains(r.vertex_id.as_str()) {
            continue;
        }
        let Some(dims) = dimensions(r, symbols)? else {
            continue;
        };
        if range_count(&dims) == 0 {
            continue;
        }
        if range_count(&dims) != rank {
            return Err(refuse(format!(
                "array-valued operands do not conform: the left-hand side '{lhs_name}' has \
                 rank {rank}, the right-hand side's '{}' rank {} (canonical form C3: \
                 elemental operations)",
                base_symbol(r).map_or("?", |(s, _)| s),
                range_count(&dims)
            )));
        }
        let ranges = |d: &[SymDim]| -> Vec<Option<i64>> {
            d.iter()
                .filter(|x| matches!(x, SymDim::Range { .. }))
                .map(constant_extent)
                .collect()
        };
        for (x, y) in ranges(&lhs).into_iter().zip(ranges(&dims)) {
            if let (Some(x), Some(y)) = (x, y) {
                if x != y {
                    return Err(refuse(format!(
                        "array-valued operands do not conform: the left-hand side '{lhs_name}' \
                         and the right-hand side's '{}' have extents {x} and {y} in one \
                         dimension (canonical form C3: elemental operations)",
                        base_symbol(r).map_or("?", |(s, _)| s)
                    )));
                }
            }
        }
        reads.push((r.vertex_id.to_string(), dims));
    }
    for v in &a.rhs.vertices {
        if let ExpressionVertex::Intrinsic(i) = v {
            if i.name.ends_with("_arr") {
                return Err(refuse(format!(
                    "array intrinsic '{}' in an array-valued assignment: only elemental \
                     operations are scalarised (canonical form C3)",
                    i.name
                )));
            }
        }
    }
    // Bounds and subscripts are evaluated at every iteration of the loops:
    // they must not read the array being assigned.
    let lhs_symbol = base_symbol(&a.lhs.reference).map(|(s, k)| (s.to_string(), k));
    // (Bound inquiries do not read values.)
    let mut mentioned = Vec::new();
    let mut mention = |e: &Expression| {
        let inquired = crate::expr::inquiry_arguments(e);
        let mut kept = e.clone();
        kept.vertices.retain(|v| !inquired.contains(v.vertex_id()));
        symbols_in_expression(&kept, &mut mentioned);
    };
    for dims in std::iter::once(&lhs).chain(reads.iter().map(|(_, d)| d)) {
        for d in dims {
            match d {
                SymDim::Range { lo, hi, .. } => {
                    mention(lo);
                    mention(hi);
                }
                SymDim::Scalar(e) => mention(e),
            }
        }
    }
    if lhs_symbol.as_ref().is_some_and(|s| mentioned.contains(s)) {
        return Err(refuse(format!(
            "the bounds or subscripts of the array assignment to '{lhs_name}' read '{lhs_name}' \
             itself: the element loop would see them change; the front end must scalarise \
             this statement (with a temporary)"
        )));
    }
    let reversed = loop_order(a, &lhs, symbols)?;
    let index_refs: Vec<VariableReference> = (0..rank).map(|d| indices.index(d, symbols)).collect();
    let lhs_ranges: Vec<&SymDim> = lhs
        .iter()
        .filter(|d| matches!(d, SymDim::Range { .. }))
        .collect();
    let own: Vec<Expression> = index_refs
        .iter()
        .map(crate::expr::variable_expression)
        .collect();
    let mut rhs = a.rhs.clone();
    for v in &mut rhs.vertices {
        let ExpressionVertex::VariableReference(r) = v else {
            continue;
        };
        let Some((_, dims)) = reads.iter().find(|(id, _)| *id == r.vertex_id) else {
            continue;
        };
        let ranges = dims.iter().filter(|d| matches!(d, SymDim::Range { .. }));
        let subs: Vec<Expression> = ranges
            .zip(&lhs_ranges)
            .zip(&index_refs)
            .map(|((x, l), i)| subscript(i, l, x))
            .collect();
        let vertex_id = r.vertex_id.clone();
        *r = element(r, dims, &subs);
        r.vertex_id = vertex_id;
    }
    let mut body = assign(
        format!("{}_oad_e", a.statement_id),
        a.line_number,
        &element(&a.lhs.reference, &lhs, &own),
        rhs,
    );
    body.lhs.live = a.lhs.live;
    let mut headers: Vec<ForLoop> = lhs_ranges
        .iter()
        .zip(&index_refs)
        .enumerate()
        .map(|(depth, (d, i))| header(a, depth, i, d, reversed))
        .collect();
    headers.reverse();
    Ok(LoopNest { body, headers })
}

/// Whether the loops must run backwards so that no element is read after
/// an earlier iteration stored it; an error when neither order does.
fn loop_order(
    a: &Assignment,
    lhs: &[SymDim],
    symbols: &SymbolIndex,
) -> Result<bool, StatementError> {
    let lhs_path = path_key(&a.lhs.reference);
    let lhs_name = base_symbol(&a.lhs.reference).map_or("?", |(s, _)| s);
    let (mut forward, mut backward) = (true, true);
    for v in &a.rhs.vertices {
        let ExpressionVertex::VariableReference(r) = v else {
            continue;
        };
        if base_symbol(r) != base_symbol(&a.lhs.reference) {
            continue;
        }
        if path_key(r) != lhs_path {
            continue; // another component of the same structure
        }
        let dims = match dimensions(r, symbols)? {
            Some(d) => d,
            None => continue,
        };
        let unknown = || {
            refuse(format!(
                "the array '{lhs_name}' is assigned element-wise and read on the right-hand side \
                 with subscripts whose overlap cannot be decided at transformation time: \
                 Fortran's semantics would need a temporary of non-constant size, which XAIF \
                 cannot declare (DimensionBounds are integer constants); the front end must \
                 scalarise this statement (with a temporary)"
            ))
        };
        match overlap(lhs, &dims) {
            Overlap::Disjoint => {}
            Overlap::Unknown => return Err(unknown()),
            Overlap::Offset(e) => match lexicographic_sign(&e) {
                1 => backward = false,
                -1 => forward = false,
                _ => {}
            },
        }
    }
    match (forward, backward) {
        (true, _) => Ok(false),
        (false, true) => Ok(true),
        (false, false) => Err(refuse(format!(
            "the array '{lhs_name}' is assigned element-wise and read on the right-hand side so \
             that neither loop order keeps the values Fortran's array assignment reads: a \
             temporary of non-constant size would be needed, which XAIF cannot declare; the \
             front end must scalarise this statement (with a temporary)"
        ))),
    }
}

/// A statement this pass cannot scalarise into loops: the front end must
/// (a named refusal, placed at the statement by the caller).
pub(crate) fn refuse(message: String) -> StatementError {
    StatementError::unsupported(None, message)
}
