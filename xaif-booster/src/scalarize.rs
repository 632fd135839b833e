//! Scalarisation of array-valued assignments, language-independent: an
//! assignment with an active whole-array or array-section reference
//! (`x = 2*y`, `a(1:3) = b(2:4)*c`, `m(i,:) = ...`) becomes one scalar
//! assignment per element, which the rest of the booster differentiates
//! as usual. Front ends that do not scalarise array expressions (OpenAD/F's
//! own writes them as they are) are accepted this way.
//!
//! Element `k` of the left-hand side (array element order, first subscript
//! fastest) receives the right-hand side with every array-valued reference
//! replaced by its `k`-th element; scalar references and subscripts are
//! broadcast unchanged. Extents must be known here: whole arrays need the
//! symbol's `DimensionBounds`, sections integer-constant triplets. What is
//! not known, does not conform, or is not elemental is refused by name.
//!
//! Fortran evaluates the whole right-hand side before storing, so element
//! assignments in sequence are only right when no element read is written
//! by an earlier element assignment. When the left-hand side's array is
//! also read on the right and every subscript involved is constant, the
//! element order (forward or backward) that respects that is taken; when
//! neither does, or a subscript is not constant, the right-hand side goes
//! through a temporary copy (`oad_sa_N`, an active vector of the element
//! count, statements `<id>_oad_t<k>` then `<id>_oad_e<k>`).
//!
//! More than `UNROLL_LIMIT` elements, or extents known only at run time,
//! make a loop nest instead (`scalarize_loops.rs`).
//!
//! New statements are `<id>_oad_e<k>`, with alias and du-ud keys 0 ("no
//! information": the front end's analyses named the array statement).

use std::collections::HashSet;
use xaif_schema::model::*;

use crate::error::{BoostError, StatementError};
use crate::expr::{base_symbol, exact_integer_literal, inquiry_arguments};
use crate::scalarize_loops::refuse;
use crate::scalarize_loops::{LoopNest, Temporaries};
use crate::scalarize_splice::Piece;
use crate::symbols::SymbolIndex;
use xaif_schema::diagnostic::Kind;

/// One dimension of an array-valued reference: the subscripts it runs
/// through, or the one subscript a scalar subscript gives (dropped from
/// the shape).
#[derive(Debug, Clone)]
enum Dimension {
    Range(Vec<i64>),
    Scalar,
}

/// An array-valued reference's dimensions.
struct ArrayShape {
    dims: Vec<Dimension>,
}

impl ArrayShape {
    /// Extents of the dimensions that count (ranges).
    fn extents(&self) -> Vec<usize> {
        self.dims
            .iter()
            .filter_map(|d| match d {
                Dimension::Range(r) => Some(r.len()),
                Dimension::Scalar => None,
            })
            .collect()
    }

    fn len(&self) -> usize {
        self.extents().iter().product()
    }

    /// The subscripts of element `k` (array element order) in each range
    /// dimension.
    fn element(&self, mut k: usize) -> Vec<Option<i64>> {
        self.dims
            .iter()
            .map(|d| match d {
                Dimension::Range(r) => {
                    let i = r[k % r.len()];
                    k /= r.len();
                    Some(i)
                }
                Dimension::Scalar => None,
            })
            .collect()
    }
}

fn integer_constant(e: &Expression) -> Option<i64> {
    match e.vertices.as_slice() {
        [ExpressionVertex::Constant(c)] => exact_integer_literal(c),
        _ => None,
    }
}

fn name_of(r: &VariableReference) -> String {
    base_symbol(r).map_or("?".into(), |(s, _)| s.to_string())
}

/// Why a reference has no constant shape.
enum ShapeError {
    /// Some extent is not a constant: `scalarize_loops` writes loops.
    NotConstant,
    Invalid(String),
}

/// The shape of `r` if it is array-valued; `Err` when it is but its
/// extents are not constants.
fn array_shape(
    r: &VariableReference,
    symbols: &SymbolIndex,
) -> Result<Option<ArrayShape>, ShapeError> {
    let Some((id, scope)) = base_symbol(r) else {
        return Ok(None);
    };
    let Some(info) = symbols.lookup(scope, id) else {
        return Ok(None);
    };
    if info.shape.rank() == 0 {
        return Ok(None);
    }
    let declared = symbols.dimension_bounds(scope, id);
    let unknown = |_: &str| ShapeError::NotConstant;
    let triplets = r.vertices.iter().find_map(|v| match v {
        VariableReferenceVertex::ArrayElementReference(a) => Some(&a.index_triplets),
        _ => None,
    });
    let Some(triplets) = triplets else {
        // The whole array.
        if declared.len() != info.shape.rank() {
            return Err(unknown("shape"));
        }
        let dims = declared
            .iter()
            .map(|b| Dimension::Range((b.lower..=b.upper).collect()))
            .collect();
        return Ok(Some(ArrayShape { dims }));
    };
    if triplets
        .iter()
        .all(|t| t.index.is_some() && t.bound.is_none() && t.stride.is_none())
    {
        return Ok(None);
    }
    let mut dims = Vec::new();
    for (k, t) in triplets.iter().enumerate() {
        if t.index.is_some() && t.bound.is_none() && t.stride.is_none() {
            dims.push(Dimension::Scalar);
            continue;
        }
        let bound = |e: &Option<Expression>, declared_value: Option<i64>| match e {
            Some(e) => integer_constant(e).ok_or_else(|| unknown("section bound")),
            None => declared_value.ok_or_else(|| unknown("declared bound")),
        };
        let lower = bound(&t.index, declared.get(k).map(|b| b.lower))?;
        let upper = bound(&t.bound, declared.get(k).map(|b| b.upper))?;
        let stride = match &t.stride {
            Some(e) => integer_constant(e).ok_or_else(|| unknown("section stride"))?,
            None => 1,
        };
        if stride == 0 {
            return Err(ShapeError::Invalid(format!(
                "section of '{id}' with stride 0"
            )));
        }
        let mut range = Vec::new();
        let mut i = lower;
        while (stride > 0 && i <= upper) || (stride < 0 && i >= upper) {
            range.push(i);
            i += stride;
        }
        dims.push(Dimension::Range(range));
    }
    Ok(Some(ArrayShape { dims }))
}

/// Element `k` of an array-valued reference as a scalar reference.
fn element_reference(r: &VariableReference, shape: &ArrayShape, k: usize) -> VariableReference {
    let subscripts = shape.element(k);
    let constant = |i: i64| {
        let mut b = crate::expr::ExprBuilder::new();
        let v = b.constant_int(i);
        b.finish(v)
    };
    let mut out = r.clone();
    out.alias = 0;
    out.du_ud = 0;
    let has_subscripts = out
        .vertices
        .iter()
        .any(|v| matches!(v, VariableReferenceVertex::ArrayElementReference(_)));
    if !has_subscripts {
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
                    index_triplets: Vec::new(),
                },
            ));
        out.edges.push(Edge {
            edge_id: (out.edges.len() + 1).to_string().into(),
            source: symbol_vertex.into(),
            target: id.to_string().into(),
            annotation: Default::default(),
        });
    }
    for v in &mut out.vertices {
        if let VariableReferenceVertex::ArrayElementReference(a) = v {
            if a.index_triplets.is_empty() {
                a.index_triplets = subscripts
                    .iter()
                    .map(|i| IndexTriplet {
                        index: Some(constant(i.expect("whole arrays have ranges only"))),
                        bound: None,
                        stride: None,
                    })
                    .collect();
            } else {
                for (t, i) in a.index_triplets.iter_mut().zip(&subscripts) {
                    if let Some(i) = i {
                        *t = IndexTriplet {
                            index: Some(constant(*i)),
                            bound: None,
                            stride: None,
                        };
                    }
                }
            }
        }
    }
    out
}

/// The name of an array-valued reference inside a subscript of `r`, if any.
fn vector_subscript(r: &VariableReference, symbols: &SymbolIndex) -> Option<String> {
    for v in &r.vertices {
        let VariableReferenceVertex::ArrayElementReference(a) = v else {
            continue;
        };
        for t in &a.index_triplets {
            for e in [&t.index, &t.bound, &t.stride].into_iter().flatten() {
                let inquired = inquiry_arguments(e);
                for x in &e.vertices {
                    let ExpressionVertex::VariableReference(inner) = x else {
                        continue;
                    };
                    if inquired.contains(inner.vertex_id.as_str()) {
                        continue;
                    }
                    if !matches!(array_shape(inner, symbols), Ok(None)) {
                        return Some(name_of(inner));
                    }
                    if let Some(deeper) = vector_subscript(inner, symbols) {
                        return Some(deeper);
                    }
                }
            }
        }
    }
    None
}

/// Beyond this many elements a statement with constant extents becomes a
/// loop nest (a `u(100,100)` assignment is not ten thousand statements).
const UNROLL_LIMIT: usize = 16;

/// What an assignment with an active array-valued reference becomes.
enum Scalarized {
    /// Constant extents: one assignment per element.
    Elements(Vec<Assignment>),
    /// Extents known only at run time: a loop nest.
    Loops(Box<LoopNest>),
}

/// The scalarised form of `a`, or `None` when it has no active
/// array-valued reference.
fn scalarize_assignment(
    a: &Assignment,
    symbols: &SymbolIndex,
    indices: &mut Temporaries,
    loops_allowed: bool,
) -> Result<Option<Scalarized>, StatementError> {
    let skip = inquiry_arguments(&a.rhs);
    let lhs_shape = array_shape(&a.lhs.reference, symbols);
    let mut rhs_shapes = Vec::new();
    let mut any_active = matches!(lhs_shape, Ok(Some(_)) | Err(_))
        && symbols.is_active_use(&a.lhs.reference).unwrap_or(false);
    for v in &a.rhs.vertices {
        if let ExpressionVertex::VariableReference(r) = v {
            if skip.contains(r.vertex_id.as_str()) {
                continue;
            }
            let shape = array_shape(r, symbols);
            if matches!(shape, Ok(Some(_)) | Err(_)) {
                any_active |= symbols.is_active_use(r).unwrap_or(false);
                rhs_shapes.push((r.vertex_id.clone(), shape));
            }
        }
    }
    if !any_active {
        return Ok(None);
    }
    let references =
        std::iter::once(&a.lhs.reference).chain(a.rhs.vertices.iter().filter_map(|v| match v {
            ExpressionVertex::VariableReference(r) => Some(r),
            _ => None,
        }));
    for r in references {
        if let Some(inner) = vector_subscript(r, symbols) {
            return Err(refuse(format!(
                "'{}' is subscripted with the array-valued '{inner}' (a vector subscript): \
                 the booster scalarises sections and whole arrays only; the front end must \
                 scalarise this statement (canonical form C3)",
                name_of(r)
            )));
        }
    }
    let not_constant =
        |s: &Result<Option<ArrayShape>, ShapeError>| matches!(s, Err(ShapeError::NotConstant));
    if !matches!(lhs_shape, Ok(None))
        && (not_constant(&lhs_shape) || rhs_shapes.iter().any(|(_, s)| not_constant(s)))
    {
        return crate::scalarize_loops::loop_nest(a, symbols, indices)
            .map(|nest| Some(Scalarized::Loops(Box::new(nest))));
    }
    // Many elements: a loop nest rather than one statement each, where
    // loops may be added and the loop path takes the statement (else, an
    // overlap only a copy resolves, it is unrolled below).
    if let Ok(Some(shape)) = &lhs_shape {
        if loops_allowed && shape.len() > UNROLL_LIMIT {
            if let Ok(nest) = crate::scalarize_loops::loop_nest(a, symbols, indices) {
                return Ok(Some(Scalarized::Loops(Box::new(nest))));
            }
        }
    }
    let invalid = |e: ShapeError| match e {
        ShapeError::Invalid(m) => refuse(m),
        ShapeError::NotConstant => unreachable!("handled by the loop path"),
    };
    let lhs_shape = lhs_shape.map_err(invalid);
    let Some(lhs_shape) = lhs_shape? else {
        let read = a
            .rhs
            .vertices
            .iter()
            .find_map(|v| match v {
                ExpressionVertex::VariableReference(r)
                    if rhs_shapes.iter().any(|(id, _)| *id == r.vertex_id) =>
                {
                    Some(name_of(r))
                }
                _ => None,
            })
            .unwrap_or_default();
        return Err(refuse(format!(
            "the right-hand side reads the array-valued '{read}' but the left-hand side '{}' \
             is a scalar: the shapes do not conform (canonical form C2: an assignment gives \
             its one variable one value)",
            name_of(&a.lhs.reference)
        )));
    };
    let mut shapes = Vec::new();
    for (id, shape) in rhs_shapes {
        let shape = shape.map_err(invalid)?.expect("array-valued");
        if shape.extents() != lhs_shape.extents() {
            return Err(refuse(format!(
                "array-valued operands do not conform: the left-hand side '{}' has extents \
                 {:?}, a right-hand side reference {:?} (canonical form C3: elemental \
                 operations)",
                name_of(&a.lhs.reference),
                lhs_shape.extents(),
                shape.extents()
            )));
        }
        shapes.push((id, shape));
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
    let n = lhs_shape.len();
    let element = |k: usize| -> Assignment {
        let mut rhs = a.rhs.clone();
        for v in &mut rhs.vertices {
            if let ExpressionVertex::VariableReference(r) = v {
                if let Some((_, shape)) = shapes.iter().find(|(id, _)| *id == r.vertex_id) {
                    let vertex_id = r.vertex_id.clone();
                    *r = element_reference(r, shape, k);
                    r.vertex_id = vertex_id;
                }
            }
        }
        Assignment {
            statement_id: format!("{}_oad_e{}", a.statement_id, k + 1).into(),
            do_chain: 0,
            line_number: a.line_number,
            lhs: AssignmentLhs {
                reference: element_reference(&a.lhs.reference, &lhs_shape, k),
                live: a.lhs.live,
            },
            rhs,
        }
    };
    let elements: Vec<Assignment> = (0..n).map(element).collect();
    let ordered = match order_without_overlap(a, elements.clone()) {
        Some(ordered) => ordered,
        // Fortran reads the whole right-hand side first: through a copy.
        None => through_temporary(a, elements, symbols, indices),
    };
    Ok(Some(Scalarized::Elements(ordered)))
}

/// `tmp(k) = rhs_k` for every element, then `lhs_k = tmp(k)`: the values
/// Fortran's array assignment reads, when no element order keeps them.
fn through_temporary(
    a: &Assignment,
    elements: Vec<Assignment>,
    symbols: &SymbolIndex,
    temps: &mut Temporaries,
) -> Vec<Assignment> {
    let whole = temps.array(elements.len() as i64, symbols);
    let shape = ArrayShape {
        dims: vec![Dimension::Range((1..=elements.len() as i64).collect())],
    };
    let mut copies = Vec::with_capacity(elements.len());
    let mut stores = Vec::with_capacity(elements.len());
    for (k, e) in elements.into_iter().enumerate() {
        let slot = element_reference(&whole, &shape, k);
        copies.push(Assignment {
            statement_id: format!("{}_oad_t{}", a.statement_id, k + 1).into(),
            lhs: AssignmentLhs {
                reference: slot.clone(),
                live: true,
            },
            ..e.clone()
        });
        stores.push(Assignment {
            rhs: crate::expr::variable_expression(&slot),
            ..e
        });
    }
    copies.extend(stores);
    copies
}

/// Where an element reference points, when all its subscripts are
/// integer constants.
fn constant_location(r: &VariableReference) -> Option<(String, u64, Vec<i64>)> {
    let (id, scope) = base_symbol(r)?;
    let mut subscripts = Vec::new();
    for v in &r.vertices {
        if let VariableReferenceVertex::ArrayElementReference(a) = v {
            for t in &a.index_triplets {
                subscripts.push(integer_constant(t.index.as_ref()?)?);
            }
        }
    }
    Some((id.to_string(), scope, subscripts))
}

/// The element assignments in an order in which none reads an element an
/// earlier one wrote (forward, else backward), or `None`.
fn order_without_overlap(a: &Assignment, elements: Vec<Assignment>) -> Option<Vec<Assignment>> {
    let Some((lhs_id, lhs_scope)) = base_symbol(&a.lhs.reference) else {
        return Some(elements);
    };
    let reads_lhs_array = a.rhs.vertices.iter().any(|v| {
        matches!(v, ExpressionVertex::VariableReference(r)
            if base_symbol(r) == Some((lhs_id, lhs_scope)))
    });
    if !reads_lhs_array {
        return Some(elements);
    }
    // Per element statement: the location written, the locations of the
    // left-hand side's array read.
    let mut writes = Vec::new();
    let mut reads = Vec::new();
    for e in &elements {
        writes.push(constant_location(&e.lhs.reference)?);
        let mut r = Vec::new();
        for v in &e.rhs.vertices {
            if let ExpressionVertex::VariableReference(x) = v {
                if base_symbol(x) == Some((lhs_id, lhs_scope)) {
                    r.push(constant_location(x)?);
                }
            }
        }
        reads.push(r);
    }
    let fine = |order: &[usize]| {
        let mut written = HashSet::new();
        for &k in order {
            if reads[k].iter().any(|l| written.contains(l)) {
                return false;
            }
            written.insert(writes[k].clone());
        }
        true
    };
    let forward: Vec<usize> = (0..elements.len()).collect();
    let backward: Vec<usize> = forward.iter().rev().copied().collect();
    if fine(&forward) {
        Some(elements)
    } else if fine(&backward) {
        let mut out = elements;
        out.reverse();
        Some(out)
    } else {
        None
    }
}

/// Scalarises every assignment with an active array-valued reference in
/// the basic blocks of `cfg`; returns the loop indices' symbols to declare
/// in the graph's scope.
pub fn scalarize_cfg(
    cfg: &mut ControlFlowGraph,
    symbols: &SymbolIndex,
) -> Result<Vec<Symbol>, BoostError> {
    let cfg_symbol = cfg.symbol_id.clone();
    let mut indices = Temporaries::new(cfg.controlflowgraph_scope_id);
    let mut splits = Vec::new();
    for (k, v) in cfg.vertices.iter_mut().enumerate() {
        let ControlFlowVertex::BasicBlock(bb) = v else {
            continue;
        };
        let mut pieces = vec![Piece::Statements(Vec::new())];
        let mut has_loops = false;
        for el in std::mem::take(&mut bb.elements) {
            let scalarized = match &el {
                BasicBlockElement::Assignment(a) => {
                    // What the pass cannot scalarise (the front end then
                    // must) is a named refusal, made so where it is found.
                    scalarize_assignment(a, symbols, &mut indices, cfg.structured)
                        .map_err(|e| e.at(&a.statement_id).in_cfg(&cfg_symbol))?
                }
                _ => None,
            };
            match scalarized {
                None => push_statements(&mut pieces, vec![el]),
                Some(Scalarized::Elements(elements)) => push_statements(
                    &mut pieces,
                    elements
                        .into_iter()
                        .map(BasicBlockElement::Assignment)
                        .collect(),
                ),
                Some(Scalarized::Loops(nest)) => {
                    if !cfg.structured {
                        let BasicBlockElement::Assignment(a) = &el else {
                            unreachable!("only assignments are scalarised");
                        };
                        return Err(BoostError {
                            statement_id: Some(a.statement_id.to_string()),
                            cfg_symbol: Some(cfg_symbol.to_string()),
                            kind: Kind::Unsupported,
                            message: "array-valued assignment with extents not known at \
                                      transformation time in a graph with gotos \
                                      (structured=\"false\"): the booster does not add loops \
                                      to unstructured graphs; the front end must scalarise \
                                      this statement (canonical form C3)"
                                .into(),
                        });
                    }
                    has_loops = true;
                    pieces.push(Piece::Nest(nest));
                    pieces.push(Piece::Statements(Vec::new()));
                }
            }
        }
        if has_loops {
            splits.push((k, pieces));
        } else {
            let mut all = Vec::new();
            for p in pieces {
                if let Piece::Statements(s) = p {
                    all.extend(s);
                }
            }
            bb.elements = all;
        }
    }
    for (k, pieces) in splits {
        crate::scalarize_splice::splice(cfg, k, pieces);
    }
    Ok(indices.symbols())
}

fn push_statements(pieces: &mut [Piece], statements: Vec<BasicBlockElement>) {
    if let Some(Piece::Statements(s)) = pieces.last_mut() {
        s.extend(statements);
    }
}
