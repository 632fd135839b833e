//! Reading expressions, variable references and plain edges.

use super::cursor::Mark;
use super::cursor::{Attr, Cursor, Element, Ns, Result};
use super::references::check_graph;
use super::scratch::take_from;
use crate::model::*;
use crate::names::*;

/// Which extra attribute an edge element may carry.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum EdgeKind {
    Plain,
    ControlFlow,
    Expression,
}

/// Everything any edge element can say, plus where its ends were written.
pub(crate) struct EdgeAttrs {
    pub edge_id: Name,
    pub source: Name,
    pub target: Name,
    pub annotation: Name,
    pub has_condition_value: bool,
    pub condition_value: i64,
    pub position: i64,
    /// Offsets of the `source` and `target` attributes.
    pub ends: (usize, usize),
}

pub(crate) fn edge_attrs(c: &mut Cursor, el: &Element, kind: EdgeKind) -> Result<EdgeAttrs> {
    let (mut id, mut src, mut tgt, mut pos) = (None, None, None, None);
    let mut e = EdgeAttrs {
        edge_id: Name::default(),
        source: Name::default(),
        target: Name::default(),
        annotation: Name::default(),
        has_condition_value: false,
        condition_value: 1,
        position: 0,
        ends: (el.offset, el.offset),
    };
    for a in c.attributes(el) {
        let a = a?;
        match a.name {
            b"edge_id" => id = Some(c.string(&a)?),
            b"source" => {
                e.ends.0 = a.offset;
                src = Some(c.string(&a)?)
            }
            b"target" => {
                e.ends.1 = a.offset;
                tgt = Some(c.string(&a)?)
            }
            b"annotation" => e.annotation = c.string(&a)?,
            b"has_condition_value" if kind == EdgeKind::ControlFlow => {
                e.has_condition_value = c.boolean(&a)?
            }
            b"condition_value" if kind == EdgeKind::ControlFlow => {
                e.condition_value = c.integer(&a)?
            }
            b"position" if kind == EdgeKind::Expression => pos = Some(c.integer(&a)?),
            _ => return Err(c.unknown_attribute(el, &a)),
        }
    }
    e.edge_id = c.required(id, el, "edge_id")?;
    e.source = c.required(src, el, "source")?;
    e.target = c.required(tgt, el, "target")?;
    if kind == EdgeKind::Expression {
        e.position = c.required(pos, el, "position")?;
    }
    c.expect_no_children(el)?;
    Ok(e)
}

/// A plain `EdgeType` element.
pub(crate) fn plain_edge(c: &mut Cursor, el: &Element) -> Result<(Edge, (usize, usize))> {
    let e = edge_attrs(c, el, EdgeKind::Plain)?;
    Ok((
        Edge {
            edge_id: e.edge_id,
            source: e.source,
            target: e.target,
            annotation: e.annotation,
        },
        e.ends,
    ))
}

/// Handles the attributes common to all vertices; false if `a` is not one.
/// The id stays `None` when absent (see [`vertex_id_or_default`]).
fn vertex_attr(
    c: &Cursor,
    a: &Attr,
    vertex_id: &mut Option<Name>,
    annotation: &mut Name,
) -> Result<bool> {
    match a.name {
        b"vertex_id" => *vertex_id = Some(c.string(a)?),
        b"annotation" => *annotation = c.string(a)?,
        _ => return Ok(false),
    }
    Ok(true)
}

/// The schema default `"1"` for an omitted vertex id.
pub(crate) fn vertex_id_or_default(id: Option<Name>) -> Name {
    id.unwrap_or_else(|| Name::const_new("1"))
}

/// The children of an `ExpressionType` element (attributes are the
/// caller's). `catalogue` admits `xaifii:ArgumentReference`.
pub(crate) fn expression_body(c: &mut Cursor, el: &Element, catalogue: bool) -> Result<Expression> {
    let base = c.marks.len();
    let vertex_base = c.scratch.expression_vertices.len();
    let edge_base = c.scratch.expression_edges.len();
    while let Some(child) = c.next_child(el)? {
        if !child.is(Ns::Xaif, "ExpressionEdge") {
            c.marks.push(Mark::Vertex(child.offset));
        }
        let v = match (child.ns, child.local()) {
            (Ns::Xaif, b"VariableReference") => {
                ExpressionVertex::VariableReference(variable_reference(c, &child, false)?.0)
            }
            (Ns::Xaif, b"Constant") => ExpressionVertex::Constant(constant(c, &child)?),
            (Ns::Xaif, b"Intrinsic") => ExpressionVertex::Intrinsic(intrinsic(c, &child)?),
            (Ns::Xaif, b"FunctionCall") => {
                ExpressionVertex::FunctionCall(function_call(c, &child)?)
            }
            (Ns::Xaif, b"BooleanOperation") => {
                ExpressionVertex::BooleanOperation(boolean_operation(c, &child)?)
            }
            (Ns::InlinableIntrinsics, b"ArgumentReference") if catalogue => {
                ExpressionVertex::ArgumentReference(argument_reference(c, &child)?)
            }
            (Ns::Xaif, b"ExpressionEdge") => {
                let e = edge_attrs(c, &child, EdgeKind::Expression)?;
                c.marks.push(Mark::Edge(e.ends.0, e.ends.1));
                c.scratch.expression_edges.push(ExpressionEdge {
                    edge_id: e.edge_id,
                    source: e.source,
                    target: e.target,
                    position: e.position,
                    annotation: e.annotation,
                });
                continue;
            }
            _ => return Err(c.unexpected(&child, el)),
        };
        c.scratch.expression_vertices.push(v);
    }
    check_graph(
        c,
        base,
        "expression",
        c.scratch.expression_vertices[vertex_base..]
            .iter()
            .map(|v| v.vertex_id()),
        c.scratch.expression_edges[edge_base..]
            .iter()
            .map(|e| (e.source.as_str(), e.target.as_str())),
    )?;
    c.marks.truncate(base);
    Ok(Expression {
        vertices: take_from(&mut c.scratch.expression_vertices, vertex_base),
        edges: take_from(&mut c.scratch.expression_edges, edge_base),
    })
}

/// An element of `ExpressionType` with no attributes of its own.
pub(crate) fn expression(c: &mut Cursor, el: &Element) -> Result<Expression> {
    if let Some(a) = c.attributes(el).next() {
        let a = a?;
        return Err(c.unknown_attribute(el, &a));
    }
    expression_body(c, el, false)
}

/// A `VariableReferenceType` element under any name. With `lhs`, the
/// `live` attribute of `AssignmentLHS` is admitted and returned.
pub(crate) fn variable_reference(
    c: &mut Cursor,
    el: &Element,
    lhs: bool,
) -> Result<(VariableReference, bool)> {
    let mut v = VariableReference {
        vertex_id: Name::default(),
        annotation: Name::default(),
        active: ActiveUse::Undefined,
        alias: 0,
        du_ud: 0,
        deriv: false,
        constant: false,
        vertices: Vec::new(),
        edges: Vec::new(),
    };
    let mut id = None;
    let mut live = true;
    for a in c.attributes(el) {
        let a = a?;
        if vertex_attr(c, &a, &mut id, &mut v.annotation)? {
            continue;
        }
        match a.name {
            b"active" => v.active = c.enumeration(&a, ACTIVE_USES)?,
            b"alias" => v.alias = c.integer(&a)?,
            b"du_ud" => v.du_ud = c.integer(&a)?,
            b"deriv" => v.deriv = c.boolean(&a)?,
            b"constant" => v.constant = c.boolean(&a)?,
            b"live" if lhs => live = c.boolean(&a)?,
            _ => return Err(c.unknown_attribute(el, &a)),
        }
    }
    v.vertex_id = vertex_id_or_default(id);
    let base = c.marks.len();
    let vertex_base = c.scratch.reference_vertices.len();
    let edge_base = c.scratch.reference_edges.len();
    while let Some(child) = c.next_child(el)? {
        match (child.ns, child.local()) {
            (Ns::Xaif, b"SymbolReference") => {
                c.marks.push(Mark::Vertex(child.offset));
                let s = symbol_reference(c, &child)?;
                c.scratch
                    .reference_vertices
                    .push(VariableReferenceVertex::SymbolReference(s));
            }
            (Ns::Xaif, b"ArrayElementReference") => {
                c.marks.push(Mark::Vertex(child.offset));
                let a = array_element_reference(c, &child)?;
                c.scratch
                    .reference_vertices
                    .push(VariableReferenceVertex::ArrayElementReference(a));
            }
            (Ns::Xaif, b"VariableReferenceEdge") => {
                let (e, ends) = plain_edge(c, &child)?;
                c.marks.push(Mark::Edge(ends.0, ends.1));
                c.scratch.reference_edges.push(e);
            }
            _ => return Err(c.unexpected(&child, el)),
        }
    }
    if c.scratch.reference_vertices.len() == vertex_base {
        return Err(c.error_at(
            el.offset,
            format!(
                "element '{}' needs at least one SymbolReference or ArrayElementReference",
                el.display_name()
            ),
        ));
    }
    check_graph(
        c,
        base,
        "variable reference",
        c.scratch.reference_vertices[vertex_base..]
            .iter()
            .map(|x| x.vertex_id()),
        c.scratch.reference_edges[edge_base..]
            .iter()
            .map(|e| (e.source.as_str(), e.target.as_str())),
    )?;
    c.marks.truncate(base);
    v.vertices = take_from(&mut c.scratch.reference_vertices, vertex_base);
    v.edges = take_from(&mut c.scratch.reference_edges, edge_base);
    Ok((v, live))
}

fn symbol_reference(c: &mut Cursor, el: &Element) -> Result<SymbolReference> {
    let mut s = SymbolReference::default();
    let (mut id, mut symbol_id, mut scope_id) = (None, None, None);
    for a in c.attributes(el) {
        let a = a?;
        if vertex_attr(c, &a, &mut id, &mut s.annotation)? {
            continue;
        }
        match a.name {
            b"symbol_id" => symbol_id = Some(c.string(&a)?),
            b"scope_id" => scope_id = Some(c.positive(&a)?),
            _ => return Err(c.unknown_attribute(el, &a)),
        }
    }
    s.vertex_id = vertex_id_or_default(id);
    s.symbol_id = c.required(symbol_id, el, "symbol_id")?;
    s.scope_id = c.required(scope_id, el, "scope_id")?;
    while let Some(child) = c.next_child(el)? {
        if !child.is(Ns::Xaif, "SymbolReferenceProperty") {
            return Err(c.unexpected(&child, el));
        }
        let (mut name, mut value) = (None, None);
        for a in c.attributes(&child) {
            let a = a?;
            match a.name {
                b"name" => name = Some(c.string(&a)?),
                b"value" => value = Some(c.string(&a)?),
                _ => return Err(c.unknown_attribute(&child, &a)),
            }
        }
        s.properties.push(SymbolReferenceProperty {
            name: c.required(name, &child, "name")?,
            value: c.required(value, &child, "value")?,
        });
        c.expect_no_children(&child)?;
    }
    Ok(s)
}

fn array_element_reference(c: &mut Cursor, el: &Element) -> Result<ArrayElementReference> {
    let mut r = ArrayElementReference::default();
    let mut id = None;
    for a in c.attributes(el) {
        let a = a?;
        if !vertex_attr(c, &a, &mut id, &mut r.annotation)? {
            return Err(c.unknown_attribute(el, &a));
        }
    }
    r.vertex_id = vertex_id_or_default(id);
    while let Some(child) = c.next_child(el)? {
        if !child.is(Ns::Xaif, "IndexTriplet") {
            return Err(c.unexpected(&child, el));
        }
        if let Some(a) = c.attributes(&child).next() {
            let a = a?;
            return Err(c.unknown_attribute(&child, &a));
        }
        let mut t = IndexTriplet::default();
        while let Some(part) = c.next_child(&child)? {
            // Index, Bound, Stride: each at most once, in this order.
            let slot = match (part.ns, part.local()) {
                (Ns::Xaif, b"Index")
                    if t.index.is_none() && t.bound.is_none() && t.stride.is_none() =>
                {
                    &mut t.index
                }
                (Ns::Xaif, b"Bound") if t.bound.is_none() && t.stride.is_none() => &mut t.bound,
                (Ns::Xaif, b"Stride") if t.stride.is_none() => &mut t.stride,
                _ => return Err(c.unexpected(&part, &child)),
            };
            *slot = Some(expression(c, &part)?);
        }
        r.index_triplets.push(t);
    }
    if r.index_triplets.is_empty() {
        return Err(c.error_at(
            el.offset,
            "element 'ArrayElementReference' needs at least one IndexTriplet",
        ));
    }
    Ok(r)
}

pub(crate) fn constant(c: &mut Cursor, el: &Element) -> Result<Constant> {
    let (mut vertex_id, mut annotation, mut fe_type) = (None, Name::default(), Name::default());
    let (mut type_, mut value) = (None, None);
    for a in c.attributes(el) {
        let a = a?;
        if vertex_attr(c, &a, &mut vertex_id, &mut annotation)? {
            continue;
        }
        match a.name {
            b"type" => type_ = Some(c.enumeration(&a, CONSTANT_TYPES)?),
            b"feType" => fe_type = c.string(&a)?,
            b"value" => value = Some(c.string(&a)?),
            _ => return Err(c.unknown_attribute(el, &a)),
        }
    }
    let k = Constant {
        vertex_id: vertex_id_or_default(vertex_id),
        annotation,
        type_: c.required(type_, el, "type")?,
        fe_type,
        value: c.required(value, el, "value")?,
    };
    c.expect_no_children(el)?;
    Ok(k)
}

fn intrinsic(c: &mut Cursor, el: &Element) -> Result<Intrinsic> {
    let mut i = Intrinsic {
        vertex_id: Name::default(),
        annotation: Name::default(),
        name: Name::default(),
        type_: Name::default(),
        r_type: SymbolType::Real,
        r_shape: SymbolShape::Scalar,
    };
    let (mut id, mut name, mut type_) = (None, None, None);
    for a in c.attributes(el) {
        let a = a?;
        if vertex_attr(c, &a, &mut id, &mut i.annotation)? {
            continue;
        }
        match a.name {
            b"name" => name = Some(c.string(&a)?),
            b"type" => type_ = Some(c.string(&a)?),
            b"rType" => i.r_type = c.enumeration(&a, SYMBOL_TYPES)?,
            b"rShape" => i.r_shape = c.enumeration(&a, SYMBOL_SHAPES)?,
            _ => return Err(c.unknown_attribute(el, &a)),
        }
    }
    i.vertex_id = vertex_id_or_default(id);
    i.type_ = type_.unwrap_or_else(|| "inlinable".to_string()).into();
    i.name = c.required(name, el, "name")?;
    c.expect_no_children(el)?;
    Ok(i)
}

fn function_call(c: &mut Cursor, el: &Element) -> Result<FunctionCall> {
    let mut f = FunctionCall::default();
    let mut id = None;
    for a in c.attributes(el) {
        let a = a?;
        if vertex_attr(c, &a, &mut id, &mut f.annotation)? {
            continue;
        }
        match a.name {
            b"symbol_id" => f.symbol_id = Some(c.string(&a)?),
            b"scope_id" => f.scope_id = Some(c.positive(&a)?),
            _ => return Err(c.unknown_attribute(el, &a)),
        }
    }
    f.vertex_id = vertex_id_or_default(id);
    while let Some(child) = c.next_child(el)? {
        if !child.is(Ns::Xaif, "Argument") {
            return Err(c.unexpected(&child, el));
        }
        f.arguments.push(variable_reference(c, &child, false)?.0);
    }
    Ok(f)
}

fn boolean_operation(c: &mut Cursor, el: &Element) -> Result<BooleanOperation> {
    let (mut vertex_id, mut annotation, mut name) = (None, Name::default(), None);
    for a in c.attributes(el) {
        let a = a?;
        if vertex_attr(c, &a, &mut vertex_id, &mut annotation)? {
            continue;
        }
        match a.name {
            b"name" => name = Some(c.enumeration(&a, BOOLEAN_OPS)?),
            _ => return Err(c.unknown_attribute(el, &a)),
        }
    }
    let b = BooleanOperation {
        vertex_id: vertex_id_or_default(vertex_id),
        annotation,
        name: c.required(name, el, "name")?,
    };
    c.expect_no_children(el)?;
    Ok(b)
}

fn argument_reference(c: &mut Cursor, el: &Element) -> Result<ArgumentReference> {
    let mut r = ArgumentReference::default();
    let (mut id, mut argument) = (None, None);
    for a in c.attributes(el) {
        let a = a?;
        if vertex_attr(c, &a, &mut id, &mut r.annotation)? {
            continue;
        }
        match a.name {
            b"argument" => argument = Some(c.non_negative(&a)?),
            _ => return Err(c.unknown_attribute(el, &a)),
        }
    }
    r.vertex_id = vertex_id_or_default(id);
    r.argument = c.required(argument, el, "argument")?;
    c.expect_no_children(el)?;
    Ok(r)
}
