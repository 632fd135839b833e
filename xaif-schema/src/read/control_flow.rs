//! Reading control flow graphs, replacement lists, their vertices and the
//! statements of basic blocks (including the booster's output statements).

use super::cursor::Mark;
use super::cursor::{Cursor, Element, Ns, Result};
use super::expression::{
    constant, edge_attrs, expression, variable_reference, vertex_id_or_default, EdgeKind,
};
use super::references::check_graph;
use crate::model::*;
use crate::names::*;

/// The vertices and edges of a control flow graph or a replacement, with
/// positions for the integrity check.
struct FlowGraph {
    vertices: Vec<ControlFlowVertex>,
    edges: Vec<ControlFlowEdge>,
    /// Where this graph's marks start on the cursor's mark stack.
    base: usize,
}

impl FlowGraph {
    fn new(c: &Cursor) -> Self {
        FlowGraph {
            vertices: Vec::new(),
            edges: Vec::new(),
            base: c.marks.len(),
        }
    }

    /// Takes `child` if it is a control flow vertex or edge.
    fn accept(&mut self, c: &mut Cursor, child: &Element) -> Result<bool> {
        if child.ns != Ns::Xaif {
            return Ok(false);
        }
        if child.local() == b"ControlFlowEdge" {
            let e = edge_attrs(c, child, EdgeKind::ControlFlow)?;
            c.marks.push(Mark::Edge(e.ends.0, e.ends.1));
            self.edges.push(ControlFlowEdge {
                edge_id: e.edge_id,
                source: e.source,
                target: e.target,
                annotation: e.annotation,
                has_condition_value: e.has_condition_value,
                condition_value: e.condition_value,
            });
            return Ok(true);
        }
        // Marked before reading: graphs inside the vertex mark above it.
        c.marks.push(Mark::Vertex(child.offset));
        let v = match child.local() {
            b"Entry" => ControlFlowVertex::Entry(plain_vertex(c, child)?),
            b"Exit" => ControlFlowVertex::Exit(plain_vertex(c, child)?),
            b"EndBranch" => ControlFlowVertex::EndBranch(plain_vertex(c, child)?),
            b"EndLoop" => ControlFlowVertex::EndLoop(plain_vertex(c, child)?),
            b"Label" => ControlFlowVertex::Label(plain_vertex(c, child)?),
            b"Goto" => ControlFlowVertex::Goto(plain_vertex(c, child)?),
            b"If" => ControlFlowVertex::If(condition_vertex(c, child)?),
            b"Branch" => ControlFlowVertex::Branch(condition_vertex(c, child)?),
            b"PreLoop" => ControlFlowVertex::PreLoop(condition_vertex(c, child)?),
            b"PostLoop" => ControlFlowVertex::PostLoop(condition_vertex(c, child)?),
            b"ForLoop" => ControlFlowVertex::ForLoop(Box::new(for_loop(c, child)?)),
            b"BasicBlock" => ControlFlowVertex::BasicBlock(basic_block(c, child)?),
            _ => {
                c.marks.pop();
                return Ok(false);
            }
        };
        self.vertices.push(v);
        Ok(true)
    }

    /// The vertices and edges, without the spare capacity growing them left
    /// (up to half of each vector).
    fn into_parts(mut self) -> (Vec<ControlFlowVertex>, Vec<ControlFlowEdge>) {
        self.vertices.shrink_to_fit();
        self.edges.shrink_to_fit();
        (self.vertices, self.edges)
    }

    fn check(&self, c: &mut Cursor) -> Result<()> {
        check_graph(
            c,
            self.base,
            "control flow graph",
            self.vertices.iter().map(|v| v.vertex_id()),
            self.edges
                .iter()
                .map(|e| (e.source.as_str(), e.target.as_str())),
        )?;
        c.marks.truncate(self.base);
        Ok(())
    }
}

pub(crate) fn control_flow_graph(c: &mut Cursor, el: &Element) -> Result<ControlFlowGraph> {
    let mut g = ControlFlowGraph {
        active: true,
        structured: true,
        ..Default::default()
    };
    let (mut id, mut symbol_id, mut scope_id, mut cfg_scope_id) = (None, None, None, None);
    for a in c.attributes(el) {
        let a = a?;
        match a.name {
            b"vertex_id" => id = Some(c.string(&a)?),
            b"annotation" => g.annotation = c.string(&a)?,
            b"symbol_id" => symbol_id = Some(c.string(&a)?),
            b"scope_id" => scope_id = Some(c.positive(&a)?),
            b"controlflowgraph_scope_id" => cfg_scope_id = Some(c.positive(&a)?),
            b"active" => g.active = c.boolean(&a)?,
            b"structured" => g.structured = c.boolean(&a)?,
            _ => return Err(c.unknown_attribute(el, &a)),
        }
    }
    g.vertex_id = vertex_id_or_default(id);
    g.symbol_id = c.required(symbol_id, el, "symbol_id")?;
    g.scope_id = c.required(scope_id, el, "scope_id")?;
    g.controlflowgraph_scope_id = c.required(cfg_scope_id, el, "controlflowgraph_scope_id")?;

    // ArgumentList, ModLocal, Mod, ReadLocal, Read, OnEntry: each optional,
    // in this order, before the graph.
    let mut header = 0;
    let mut flow = FlowGraph::new(c);
    while let Some(child) = c.next_child(el)? {
        if child.ns == Ns::Xaif && flow.vertices.is_empty() && flow.edges.is_empty() {
            let slot = match child.local() {
                b"ArgumentList" => 1,
                b"ModLocal" => 2,
                b"Mod" => 3,
                b"ReadLocal" => 4,
                b"Read" => 5,
                b"OnEntry" => 6,
                _ => 0,
            };
            if slot > 0 {
                if slot <= header {
                    return Err(c.unexpected(&child, el));
                }
                header = slot;
                match slot {
                    1 => g.argument_list = Some(argument_list(c, &child)?),
                    2 => g.mod_local = Some(side_effect_list(c, &child)?),
                    3 => g.mod_ = Some(side_effect_list(c, &child)?),
                    4 => g.read_local = Some(side_effect_list(c, &child)?),
                    5 => g.read = Some(side_effect_list(c, &child)?),
                    _ => g.on_entry = Some(side_effect_list(c, &child)?),
                }
                continue;
            }
        }
        if !flow.accept(c, &child)? {
            return Err(c.unexpected(&child, el));
        }
    }
    flow.check(c)?;
    (g.vertices, g.edges) = flow.into_parts();
    Ok(g)
}

pub(crate) fn replacement_list(c: &mut Cursor, el: &Element) -> Result<ReplacementList> {
    let mut r = ReplacementList::default();
    let mut id = None;
    let (mut template, mut symbol_id, mut scope_id, mut cfg_scope_id) = (None, None, None, None);
    for a in c.attributes(el) {
        let a = a?;
        match a.name {
            b"vertex_id" => id = Some(c.string(&a)?),
            b"annotation" => r.annotation = c.string(&a)?,
            b"template_name" => template = Some(c.string(&a)?),
            b"symbol_id" => symbol_id = Some(c.string(&a)?),
            b"scope_id" => scope_id = Some(c.positive(&a)?),
            b"controlflowgraph_scope_id" => cfg_scope_id = Some(c.positive(&a)?),
            _ => return Err(c.unknown_attribute(el, &a)),
        }
    }
    r.vertex_id = vertex_id_or_default(id);
    r.template_name = c.required(template, el, "template_name")?;
    r.symbol_id = c.required(symbol_id, el, "symbol_id")?;
    r.scope_id = c.required(scope_id, el, "scope_id")?;
    r.controlflowgraph_scope_id = c.required(cfg_scope_id, el, "controlflowgraph_scope_id")?;
    while let Some(child) = c.next_child(el)? {
        match (child.ns, child.local()) {
            (Ns::Xaif, b"ArgumentList")
                if r.argument_list.is_none() && r.replacements.is_empty() =>
            {
                r.argument_list = Some(argument_list(c, &child)?)
            }
            (Ns::Xaif, b"Replacement") => r.replacements.push(replacement(c, &child)?),
            _ => return Err(c.unexpected(&child, el)),
        }
    }
    Ok(r)
}

fn replacement(c: &mut Cursor, el: &Element) -> Result<Replacement> {
    let mut r = Replacement {
        structured: true,
        ..Default::default()
    };
    let mut placeholder = None;
    for a in c.attributes(el) {
        let a = a?;
        match a.name {
            b"placeholder" => placeholder = Some(c.string(&a)?),
            b"structured" => r.structured = c.boolean(&a)?,
            _ => return Err(c.unknown_attribute(el, &a)),
        }
    }
    r.placeholder = c.required(placeholder, el, "placeholder")?;
    let mut flow = FlowGraph::new(c);
    while let Some(child) = c.next_child(el)? {
        if !flow.accept(c, &child)? {
            return Err(c.unexpected(&child, el));
        }
    }
    flow.check(c)?;
    (r.vertices, r.edges) = flow.into_parts();
    Ok(r)
}

fn argument_list(c: &mut Cursor, el: &Element) -> Result<Vec<ArgumentSymbolReference>> {
    no_attributes(c, el)?;
    let mut list = Vec::new();
    while let Some(child) = c.next_child(el)? {
        if !child.is(Ns::Xaif, "ArgumentSymbolReference") {
            return Err(c.unexpected(&child, el));
        }
        let mut r = ArgumentSymbolReference::default();
        let (mut position, mut symbol_id, mut scope_id) = (None, None, None);
        for a in c.attributes(&child) {
            let a = a?;
            match a.name {
                b"position" => position = Some(c.positive(&a)?),
                b"symbol_id" => symbol_id = Some(c.string(&a)?),
                b"scope_id" => scope_id = Some(c.positive(&a)?),
                b"deriv" => r.deriv = c.boolean(&a)?,
                b"intent" => r.intent = c.enumeration(&a, INTENTS)?,
                b"annotation" => r.annotation = c.string(&a)?,
                _ => return Err(c.unknown_attribute(&child, &a)),
            }
        }
        r.position = c.required(position, &child, "position")?;
        r.symbol_id = c.required(symbol_id, &child, "symbol_id")?;
        r.scope_id = c.required(scope_id, &child, "scope_id")?;
        c.expect_no_children(&child)?;
        list.push(r);
    }
    Ok(list)
}

fn side_effect_list(c: &mut Cursor, el: &Element) -> Result<Vec<VariableReference>> {
    no_attributes(c, el)?;
    let mut list = Vec::new();
    while let Some(child) = c.next_child(el)? {
        if !child.is(Ns::Xaif, "SideEffectReference") {
            return Err(c.unexpected(&child, el));
        }
        list.push(variable_reference(c, &child, false)?.0);
    }
    Ok(list)
}

fn no_attributes(c: &Cursor, el: &Element) -> Result<()> {
    if let Some(a) = c.attributes(el).next() {
        let a = a?;
        return Err(c.unknown_attribute(el, &a));
    }
    Ok(())
}

fn plain_vertex(c: &mut Cursor, el: &Element) -> Result<PlainVertex> {
    let mut v = PlainVertex::default();
    let mut id = None;
    for a in c.attributes(el) {
        let a = a?;
        match a.name {
            b"vertex_id" => id = Some(c.string(&a)?),
            b"annotation" => v.annotation = c.string(&a)?,
            _ => return Err(c.unknown_attribute(el, &a)),
        }
    }
    v.vertex_id = vertex_id_or_default(id);
    c.expect_no_children(el)?;
    Ok(v)
}

/// Attributes shared by If, Branch, PreLoop, PostLoop and ForLoop.
fn loop_attributes(
    c: &Cursor,
    el: &Element,
    reversal: Option<&mut ForLoopReversal>,
) -> Result<(Name, Name, u64)> {
    let (mut id, mut annotation, mut line) = (None, Name::default(), 0);
    let mut reversal = reversal;
    for a in c.attributes(el) {
        let a = a?;
        match a.name {
            b"vertex_id" => id = Some(c.string(&a)?),
            b"annotation" => annotation = c.string(&a)?,
            b"lineNumber" => line = c.non_negative(&a)?,
            b"reversal" if reversal.is_some() => {
                if let Some(r) = reversal.as_deref_mut() {
                    *r = c.enumeration(&a, REVERSALS)?;
                }
            }
            _ => return Err(c.unknown_attribute(el, &a)),
        }
    }
    Ok((vertex_id_or_default(id), annotation, line))
}

fn condition_vertex(c: &mut Cursor, el: &Element) -> Result<ConditionVertex> {
    let (vertex_id, annotation, line_number) = loop_attributes(c, el, None)?;
    let mut v = ConditionVertex {
        vertex_id,
        annotation,
        line_number,
        condition: None,
    };
    while let Some(child) = c.next_child(el)? {
        if !child.is(Ns::Xaif, "Condition") || v.condition.is_some() {
            return Err(c.unexpected(&child, el));
        }
        v.condition = Some(expression(c, &child)?);
    }
    Ok(v)
}

fn for_loop(c: &mut Cursor, el: &Element) -> Result<ForLoop> {
    let mut reversal = ForLoopReversal::Anonymous;
    let (vertex_id, annotation, line_number) = loop_attributes(c, el, Some(&mut reversal))?;
    let mut f = ForLoop {
        vertex_id,
        annotation,
        line_number,
        reversal,
        ..Default::default()
    };
    // Initialization, Condition, Update: each optional, in this order.
    let mut stage = 0;
    while let Some(child) = c.next_child(el)? {
        let slot = match (child.ns, child.local()) {
            (Ns::Xaif, b"Initialization") => 1,
            (Ns::Xaif, b"Condition") => 2,
            (Ns::Xaif, b"Update") => 3,
            _ => 0,
        };
        if slot <= stage {
            return Err(c.unexpected(&child, el));
        }
        stage = slot;
        match slot {
            1 => f.initialization = Some(assignment(c, &child, false)?),
            2 => f.condition = Some(expression(c, &child)?),
            _ => f.update = Some(assignment(c, &child, false)?),
        }
    }
    Ok(f)
}

fn basic_block(c: &mut Cursor, el: &Element) -> Result<BasicBlock> {
    let mut b = BasicBlock::default();
    let (mut id, mut scope_id) = (None, None);
    for a in c.attributes(el) {
        let a = a?;
        match a.name {
            b"vertex_id" => id = Some(c.string(&a)?),
            b"annotation" => b.annotation = c.string(&a)?,
            b"scope_id" => scope_id = Some(c.positive(&a)?),
            _ => return Err(c.unknown_attribute(el, &a)),
        }
    }
    b.vertex_id = vertex_id_or_default(id);
    b.scope_id = c.required(scope_id, el, "scope_id")?;
    while let Some(child) = c.next_child(el)? {
        let s = match (child.ns, child.local()) {
            (Ns::Xaif, b"Assignment") => {
                BasicBlockElement::Assignment(assignment(c, &child, true)?)
            }
            (Ns::Xaif, b"SubroutineCall") => {
                BasicBlockElement::SubroutineCall(subroutine_call(c, &child)?)
            }
            (Ns::Xaif, b"Marker") => BasicBlockElement::Marker(marker(c, &child)?),
            (Ns::Xaif, b"DerivativePropagator") => {
                BasicBlockElement::DerivativePropagator(derivative_propagator(c, &child)?)
            }
            (Ns::Xaif, b"InlinableSubroutineCall") => {
                BasicBlockElement::InlinableSubroutineCall(inlinable_call(c, &child)?)
            }
            _ => return Err(c.unexpected(&child, el)),
        };
        b.elements.push(s);
    }
    b.elements.shrink_to_fit();
    Ok(b)
}

/// `Assignment` in a basic block (`with_line`), or a ForLoop's
/// `Initialization` / `Update`, which have no line number.
fn assignment(c: &mut Cursor, el: &Element, with_line: bool) -> Result<Assignment> {
    let mut s = Assignment::default();
    let mut id = None;
    for a in c.attributes(el) {
        let a = a?;
        match a.name {
            b"statement_id" => id = Some(c.string(&a)?),
            b"do_chain" => s.do_chain = c.integer(&a)?,
            b"lineNumber" if with_line => s.line_number = c.non_negative(&a)?,
            _ => return Err(c.unknown_attribute(el, &a)),
        }
    }
    s.statement_id = c.required(id, el, "statement_id")?;
    let (mut lhs, mut rhs) = (None, None);
    while let Some(child) = c.next_child(el)? {
        match (child.ns, child.local()) {
            (Ns::Xaif, b"AssignmentLHS") if lhs.is_none() => {
                let (reference, live) = variable_reference(c, &child, true)?;
                lhs = Some(AssignmentLhs { reference, live });
            }
            (Ns::Xaif, b"AssignmentRHS") if lhs.is_some() && rhs.is_none() => {
                rhs = Some(expression(c, &child)?)
            }
            _ => return Err(c.unexpected(&child, el)),
        }
    }
    s.lhs = lhs.ok_or_else(|| {
        c.error_at(
            el.offset,
            format!("'{}' has no 'AssignmentLHS'", el.display_name()),
        )
    })?;
    s.rhs = rhs.ok_or_else(|| {
        c.error_at(
            el.offset,
            format!("'{}' has no 'AssignmentRHS'", el.display_name()),
        )
    })?;
    Ok(s)
}

fn subroutine_call(c: &mut Cursor, el: &Element) -> Result<SubroutineCall> {
    let mut s = SubroutineCall::default();
    let (mut id, mut count) = (None, None);
    for a in c.attributes(el) {
        let a = a?;
        match a.name {
            b"statement_id" => id = Some(c.string(&a)?),
            b"symbol_id" => s.symbol_id = Some(c.string(&a)?),
            b"scope_id" => s.scope_id = Some(c.positive(&a)?),
            b"active" => s.active = c.enumeration(&a, ACTIVE_USES)?,
            b"lineNumber" => s.line_number = c.non_negative(&a)?,
            b"formalArgCount" => count = Some(c.non_negative(&a)?),
            _ => return Err(c.unknown_attribute(el, &a)),
        }
    }
    s.statement_id = c.required(id, el, "statement_id")?;
    s.formal_arg_count = c.required(count, el, "formalArgCount")?;
    s.arguments = arguments(c, el)?;
    Ok(s)
}

/// The `Argument` children of a subroutine call or inlinable call.
fn arguments(c: &mut Cursor, el: &Element) -> Result<Vec<Argument>> {
    let mut list = Vec::new();
    while let Some(child) = c.next_child(el)? {
        if !child.is(Ns::Xaif, "Argument") {
            return Err(c.unexpected(&child, el));
        }
        let (mut position, mut annotation) = (None, Name::default());
        for a in c.attributes(&child) {
            let a = a?;
            match a.name {
                b"position" => position = Some(c.positive(&a)?),
                b"annotation" => annotation = c.string(&a)?,
                _ => return Err(c.unknown_attribute(&child, &a)),
            }
        }
        let position = c.required(position, &child, "position")?;
        let mut value = None;
        while let Some(v) = c.next_child(&child)? {
            value = Some(match (v.ns, v.local()) {
                (Ns::Xaif, b"VariableReference") if value.is_none() => {
                    ArgumentValue::Variable(variable_reference(c, &v, false)?.0)
                }
                (Ns::Xaif, b"Constant") if value.is_none() => {
                    ArgumentValue::Constant(constant(c, &v)?)
                }
                _ => return Err(c.unexpected(&v, &child)),
            });
        }
        let value = value.ok_or_else(|| {
            c.error_at(
                child.offset,
                "'Argument' needs a 'VariableReference' or a 'Constant'",
            )
        })?;
        list.push(Argument {
            position,
            annotation,
            value,
        });
    }
    Ok(list)
}

fn marker(c: &mut Cursor, el: &Element) -> Result<Marker> {
    let mut m = Marker::default();
    let mut id = None;
    for a in c.attributes(el) {
        let a = a?;
        match a.name {
            b"statement_id" => id = Some(c.string(&a)?),
            b"annotation" => m.annotation = c.string(&a)?,
            _ => return Err(c.unknown_attribute(el, &a)),
        }
    }
    m.statement_id = c.required(id, el, "statement_id")?;
    c.expect_no_children(el)?;
    Ok(m)
}

fn inlinable_call(c: &mut Cursor, el: &Element) -> Result<InlinableSubroutineCall> {
    let (mut name, mut id) = (None, None);
    for a in c.attributes(el) {
        let a = a?;
        match a.name {
            b"subroutine_name" => name = Some(c.string(&a)?),
            b"statement_id" => id = Some(c.string(&a)?),
            _ => return Err(c.unknown_attribute(el, &a)),
        }
    }
    Ok(InlinableSubroutineCall {
        subroutine_name: c.required(name, el, "subroutine_name")?,
        statement_id: c.required(id, el, "statement_id")?,
        arguments: arguments(c, el)?,
    })
}

fn derivative_propagator(c: &mut Cursor, el: &Element) -> Result<DerivativePropagator> {
    no_attributes(c, el)?;
    let mut p = DerivativePropagator::default();
    while let Some(child) = c.next_child(el)? {
        let entry = match (child.ns, child.local()) {
            (Ns::Xaif, b"SetDeriv") => {
                let (tgt, src) = tgt_src(c, &child)?;
                PropagatorEntry::SetDeriv { tgt, src }
            }
            (Ns::Xaif, b"SetNegDeriv") => {
                let (tgt, src) = tgt_src(c, &child)?;
                PropagatorEntry::SetNegDeriv { tgt, src }
            }
            (Ns::Xaif, b"IncDeriv") => {
                let (tgt, src) = tgt_src(c, &child)?;
                PropagatorEntry::IncDeriv { tgt, src }
            }
            (Ns::Xaif, b"DecDeriv") => {
                let (tgt, src) = tgt_src(c, &child)?;
                PropagatorEntry::DecDeriv { tgt, src }
            }
            (Ns::Xaif, b"Sax") => {
                let (ax, y) = ax_y(c, &child)?;
                PropagatorEntry::Sax { ax, y }
            }
            (Ns::Xaif, b"Saxpy") => {
                let (ax, y) = ax_y(c, &child)?;
                PropagatorEntry::Saxpy { ax, y }
            }
            (Ns::Xaif, b"ZeroDeriv") => {
                PropagatorEntry::ZeroDeriv(variable_reference(c, &child, false)?.0)
            }
            _ => return Err(c.unexpected(&child, el)),
        };
        p.entries.push(entry);
    }
    Ok(p)
}

fn tgt_src(c: &mut Cursor, el: &Element) -> Result<(VariableReference, VariableReference)> {
    no_attributes(c, el)?;
    let (mut tgt, mut src) = (None, None);
    while let Some(child) = c.next_child(el)? {
        match (child.ns, child.local()) {
            (Ns::Xaif, b"Tgt") if tgt.is_none() => {
                tgt = Some(variable_reference(c, &child, false)?.0)
            }
            (Ns::Xaif, b"Src") if tgt.is_some() && src.is_none() => {
                src = Some(variable_reference(c, &child, false)?.0)
            }
            _ => return Err(c.unexpected(&child, el)),
        }
    }
    match (tgt, src) {
        (Some(t), Some(s)) => Ok((t, s)),
        _ => Err(c.error_at(
            el.offset,
            format!("'{}' needs a 'Tgt' and a 'Src'", el.display_name()),
        )),
    }
}

fn ax_y(c: &mut Cursor, el: &Element) -> Result<(Vec<Ax>, VariableReference)> {
    no_attributes(c, el)?;
    let (mut ax, mut y) = (Vec::new(), None);
    while let Some(child) = c.next_child(el)? {
        match (child.ns, child.local()) {
            (Ns::Xaif, b"AX") if y.is_none() => {
                no_attributes(c, &child)?;
                let (mut a, mut x) = (None, None);
                while let Some(part) = c.next_child(&child)? {
                    match (part.ns, part.local()) {
                        (Ns::Xaif, b"A") if a.is_none() => a = Some(expression(c, &part)?),
                        (Ns::Xaif, b"X") if a.is_some() && x.is_none() => {
                            x = Some(variable_reference(c, &part, false)?.0)
                        }
                        _ => return Err(c.unexpected(&part, &child)),
                    }
                }
                match (a, x) {
                    (Some(a), Some(x)) => ax.push(Ax { a, x }),
                    _ => return Err(c.error_at(child.offset, "'AX' needs an 'A' and an 'X'")),
                }
            }
            (Ns::Xaif, b"Y") if !ax.is_empty() && y.is_none() => {
                y = Some(variable_reference(c, &child, false)?.0)
            }
            _ => return Err(c.unexpected(&child, el)),
        }
    }
    let y = y.ok_or_else(|| {
        c.error_at(
            el.offset,
            format!("'{}' needs at least one 'AX' and a 'Y'", el.display_name()),
        )
    })?;
    Ok((ax, y))
}
