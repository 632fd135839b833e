//! Writing the elements of the core format (call graph down to
//! expressions, and the output-side statements). Every attribute is
//! written, defaults included; vertices come before edges.

use super::emitter::Emitter;
use crate::model::*;
use crate::names::*;

const X: &str = "xaif";

pub(crate) fn call_graph(e: &mut Emitter, cg: &CallGraph) {
    e.open(X, "CallGraph");
    e.attr("xmlns:xaif", XAIF_NS);
    if let Some(name) = &cg.program_name {
        e.attr("program_name", name);
    }
    e.attr("prefix", &cg.prefix);
    e.children();
    scope_hierarchy(e, &cg.scope_hierarchy);
    alias_set_map(e, &cg.alias_set_map);
    stmt_id_set_map(e, "DUUDSetMap", &cg.duud_set_map);
    stmt_id_set_map(e, "DOSetMap", &cg.do_set_map);
    for v in &cg.vertices {
        match v {
            CallGraphVertex::ControlFlowGraph(g) => control_flow_graph(e, g),
            CallGraphVertex::ReplacementList(r) => replacement_list(e, r),
        }
    }
    for edge in &cg.edges {
        plain_edge(e, "CallGraphEdge", edge);
    }
    e.close(X, "CallGraph");
}

fn plain_edge(e: &mut Emitter, name: &str, edge: &Edge) {
    e.open(X, name);
    e.attr("edge_id", &edge.edge_id);
    e.attr("source", &edge.source);
    e.attr("target", &edge.target);
    e.attr("annotation", &edge.annotation);
    e.empty();
}

fn scope_hierarchy(e: &mut Emitter, h: &ScopeHierarchy) {
    e.open(X, "ScopeHierarchy");
    if h.scopes.is_empty() && h.edges.is_empty() {
        e.empty();
        return;
    }
    e.children();
    for s in &h.scopes {
        e.open(X, "Scope");
        e.attr("vertex_id", &s.vertex_id);
        e.attr("annotation", &s.annotation);
        if s.symbol_tables.is_empty() {
            e.empty();
            continue;
        }
        e.children();
        for t in &s.symbol_tables {
            e.open(X, "SymbolTable");
            if t.symbols.is_empty() {
                e.empty();
                continue;
            }
            e.children();
            for sym in &t.symbols {
                symbol(e, sym);
            }
            e.close(X, "SymbolTable");
        }
        e.close(X, "Scope");
    }
    for edge in &h.edges {
        plain_edge(e, "ScopeEdge", edge);
    }
    e.close(X, "ScopeHierarchy");
}

fn symbol(e: &mut Emitter, s: &Symbol) {
    e.open(X, "Symbol");
    e.attr("symbol_id", &s.symbol_id);
    e.attr("kind", name_of(SYMBOL_KINDS, s.kind));
    e.attr("type", name_of(SYMBOL_TYPES, s.type_));
    e.attr("feType", &s.fe_type);
    e.attr("shape", name_of(SYMBOL_SHAPES, s.shape));
    e.attr_bool("active", s.active);
    e.attr_bool("temp", s.temp);
    e.attr_bool("pointer", s.pointer);
    e.attr("annotation", &s.annotation);
    if s.dimension_bounds.is_empty() {
        e.empty();
        return;
    }
    e.children();
    for d in &s.dimension_bounds {
        e.open(X, "DimensionBounds");
        e.attr_i64("lower", d.lower);
        e.attr_i64("upper", d.upper);
        e.empty();
    }
    e.close(X, "Symbol");
}

fn alias_set_map(e: &mut Emitter, m: &AliasSetMap) {
    e.open(X, "AliasSetMap");
    if m.sets.is_empty() {
        e.empty();
        return;
    }
    e.children();
    for s in &m.sets {
        e.open(X, "AliasSet");
        e.attr_u64("key", s.key);
        if s.ranges.is_empty() {
            e.empty();
            continue;
        }
        e.children();
        for r in &s.ranges {
            e.open(X, "AliasRange");
            e.attr_u64("from_virtual_address", r.from_virtual_address);
            e.attr_u64("to_virtual_address", r.to_virtual_address);
            e.attr_bool("partial", r.partial);
            e.empty();
        }
        e.close(X, "AliasSet");
    }
    e.close(X, "AliasSetMap");
}

fn stmt_id_set_map(e: &mut Emitter, name: &str, m: &StmtIdSetMap) {
    e.open(X, name);
    if m.sets.is_empty() {
        e.empty();
        return;
    }
    e.children();
    for s in &m.sets {
        e.open(X, "StmtIdSet");
        e.attr_u64("key", s.key);
        if s.statement_ids.is_empty() {
            e.empty();
            continue;
        }
        e.children();
        for id in &s.statement_ids {
            e.open(X, "StatementId");
            e.attr("idRef", id);
            e.empty();
        }
        e.close(X, "StmtIdSet");
    }
    e.close(X, name);
}

fn control_flow_graph(e: &mut Emitter, g: &ControlFlowGraph) {
    e.open(X, "ControlFlowGraph");
    e.attr("vertex_id", &g.vertex_id);
    e.attr("annotation", &g.annotation);
    e.attr("symbol_id", &g.symbol_id);
    e.attr_u64("scope_id", g.scope_id);
    e.attr_u64("controlflowgraph_scope_id", g.controlflowgraph_scope_id);
    e.attr_bool("active", g.active);
    e.attr_bool("structured", g.structured);
    let lists = [
        ("ModLocal", &g.mod_local),
        ("Mod", &g.mod_),
        ("ReadLocal", &g.read_local),
        ("Read", &g.read),
        ("OnEntry", &g.on_entry),
    ];
    let has_children = g.argument_list.is_some()
        || lists.iter().any(|(_, l)| l.is_some())
        || !g.vertices.is_empty()
        || !g.edges.is_empty();
    if !has_children {
        e.empty();
        return;
    }
    e.children();
    if let Some(args) = &g.argument_list {
        argument_list(e, args);
    }
    for (name, list) in lists {
        if let Some(list) = list {
            e.open(X, name);
            if list.is_empty() {
                e.empty();
                continue;
            }
            e.children();
            for r in list {
                variable_reference(e, "SideEffectReference", r, None);
            }
            e.close(X, name);
        }
    }
    flow_graph(e, &g.vertices, &g.edges);
    e.close(X, "ControlFlowGraph");
}

fn argument_list(e: &mut Emitter, args: &[ArgumentSymbolReference]) {
    e.open(X, "ArgumentList");
    if args.is_empty() {
        e.empty();
        return;
    }
    e.children();
    for a in args {
        e.open(X, "ArgumentSymbolReference");
        e.attr_u64("position", a.position);
        e.attr("symbol_id", &a.symbol_id);
        e.attr_u64("scope_id", a.scope_id);
        e.attr_bool("deriv", a.deriv);
        e.attr("intent", name_of(INTENTS, a.intent));
        e.attr("annotation", &a.annotation);
        e.empty();
    }
    e.close(X, "ArgumentList");
}

fn replacement_list(e: &mut Emitter, r: &ReplacementList) {
    e.open(X, "ReplacementList");
    e.attr("vertex_id", &r.vertex_id);
    e.attr("annotation", &r.annotation);
    e.attr("template_name", &r.template_name);
    e.attr("symbol_id", &r.symbol_id);
    e.attr_u64("scope_id", r.scope_id);
    e.attr_u64("controlflowgraph_scope_id", r.controlflowgraph_scope_id);
    if r.argument_list.is_none() && r.replacements.is_empty() {
        e.empty();
        return;
    }
    e.children();
    if let Some(args) = &r.argument_list {
        argument_list(e, args);
    }
    for rep in &r.replacements {
        e.open(X, "Replacement");
        e.attr("placeholder", &rep.placeholder);
        e.attr_bool("structured", rep.structured);
        if rep.vertices.is_empty() && rep.edges.is_empty() {
            e.empty();
            continue;
        }
        e.children();
        flow_graph(e, &rep.vertices, &rep.edges);
        e.close(X, "Replacement");
    }
    e.close(X, "ReplacementList");
}

fn flow_graph(e: &mut Emitter, vertices: &[ControlFlowVertex], edges: &[ControlFlowEdge]) {
    for v in vertices {
        control_flow_vertex(e, v);
    }
    for edge in edges {
        e.open(X, "ControlFlowEdge");
        e.attr("edge_id", &edge.edge_id);
        e.attr("source", &edge.source);
        e.attr("target", &edge.target);
        e.attr_bool("has_condition_value", edge.has_condition_value);
        e.attr_i64("condition_value", edge.condition_value);
        e.attr("annotation", &edge.annotation);
        e.empty();
    }
}

fn control_flow_vertex(e: &mut Emitter, v: &ControlFlowVertex) {
    let name = v.element_name();
    match v {
        ControlFlowVertex::Entry(p)
        | ControlFlowVertex::Exit(p)
        | ControlFlowVertex::EndBranch(p)
        | ControlFlowVertex::EndLoop(p)
        | ControlFlowVertex::Label(p)
        | ControlFlowVertex::Goto(p) => {
            e.open(X, name);
            e.attr("vertex_id", &p.vertex_id);
            e.attr("annotation", &p.annotation);
            e.empty();
        }
        ControlFlowVertex::If(c)
        | ControlFlowVertex::Branch(c)
        | ControlFlowVertex::PreLoop(c)
        | ControlFlowVertex::PostLoop(c) => {
            e.open(X, name);
            e.attr("vertex_id", &c.vertex_id);
            e.attr("annotation", &c.annotation);
            e.attr_u64("lineNumber", c.line_number);
            match &c.condition {
                None => e.empty(),
                Some(x) => {
                    e.children();
                    expression(e, "Condition", x);
                    e.close(X, name);
                }
            }
        }
        ControlFlowVertex::ForLoop(f) => {
            e.open(X, name);
            e.attr("vertex_id", &f.vertex_id);
            e.attr("annotation", &f.annotation);
            e.attr_u64("lineNumber", f.line_number);
            e.attr("reversal", name_of(REVERSALS, f.reversal));
            if f.initialization.is_none() && f.condition.is_none() && f.update.is_none() {
                e.empty();
                return;
            }
            e.children();
            if let Some(a) = &f.initialization {
                assignment(e, "Initialization", a, false);
            }
            if let Some(x) = &f.condition {
                expression(e, "Condition", x);
            }
            if let Some(a) = &f.update {
                assignment(e, "Update", a, false);
            }
            e.close(X, name);
        }
        ControlFlowVertex::BasicBlock(b) => basic_block(e, b),
    }
}

fn basic_block(e: &mut Emitter, b: &BasicBlock) {
    e.open(X, "BasicBlock");
    e.attr("vertex_id", &b.vertex_id);
    e.attr("annotation", &b.annotation);
    e.attr_u64("scope_id", b.scope_id);
    if b.elements.is_empty() {
        e.empty();
        return;
    }
    e.children();
    for s in &b.elements {
        match s {
            BasicBlockElement::Assignment(a) => assignment(e, "Assignment", a, true),
            BasicBlockElement::SubroutineCall(c) => subroutine_call(e, c),
            BasicBlockElement::Marker(m) => {
                e.open(X, "Marker");
                e.attr("statement_id", &m.statement_id);
                e.attr("annotation", &m.annotation);
                e.empty();
            }
            BasicBlockElement::DerivativePropagator(p) => derivative_propagator(e, p),
            BasicBlockElement::InlinableSubroutineCall(c) => {
                e.open(X, "InlinableSubroutineCall");
                e.attr("subroutine_name", &c.subroutine_name);
                e.attr("statement_id", &c.statement_id);
                arguments(e, "InlinableSubroutineCall", &c.arguments);
            }
        }
    }
    e.close(X, "BasicBlock");
}

fn assignment(e: &mut Emitter, name: &str, a: &Assignment, with_line: bool) {
    e.open(X, name);
    e.attr("statement_id", &a.statement_id);
    e.attr_i64("do_chain", a.do_chain);
    if with_line {
        e.attr_u64("lineNumber", a.line_number);
    }
    e.children();
    variable_reference(e, "AssignmentLHS", &a.lhs.reference, Some(a.lhs.live));
    expression(e, "AssignmentRHS", &a.rhs);
    e.close(X, name);
}

fn subroutine_call(e: &mut Emitter, c: &SubroutineCall) {
    e.open(X, "SubroutineCall");
    e.attr("statement_id", &c.statement_id);
    if let Some(s) = &c.symbol_id {
        e.attr("symbol_id", s);
    }
    if let Some(s) = c.scope_id {
        e.attr_u64("scope_id", s);
    }
    e.attr("active", name_of(ACTIVE_USES, c.active));
    e.attr_u64("lineNumber", c.line_number);
    e.attr_u64("formalArgCount", c.formal_arg_count);
    arguments(e, "SubroutineCall", &c.arguments);
}

/// The `Argument` children, then the end of the call element `name`.
fn arguments(e: &mut Emitter, name: &str, args: &[Argument]) {
    if args.is_empty() {
        e.empty();
        return;
    }
    e.children();
    for a in args {
        e.open(X, "Argument");
        e.attr_u64("position", a.position);
        e.attr("annotation", &a.annotation);
        e.children();
        match &a.value {
            ArgumentValue::Variable(v) => variable_reference(e, "VariableReference", v, None),
            ArgumentValue::Constant(k) => constant(e, k),
        }
        e.close(X, "Argument");
    }
    e.close(X, name);
}

fn derivative_propagator(e: &mut Emitter, p: &DerivativePropagator) {
    e.open(X, "DerivativePropagator");
    if p.entries.is_empty() {
        e.empty();
        return;
    }
    e.children();
    for entry in &p.entries {
        match entry {
            PropagatorEntry::SetDeriv { tgt, src } => tgt_src(e, "SetDeriv", tgt, src),
            PropagatorEntry::SetNegDeriv { tgt, src } => tgt_src(e, "SetNegDeriv", tgt, src),
            PropagatorEntry::IncDeriv { tgt, src } => tgt_src(e, "IncDeriv", tgt, src),
            PropagatorEntry::DecDeriv { tgt, src } => tgt_src(e, "DecDeriv", tgt, src),
            PropagatorEntry::Sax { ax, y } => ax_y(e, "Sax", ax, y),
            PropagatorEntry::Saxpy { ax, y } => ax_y(e, "Saxpy", ax, y),
            PropagatorEntry::ZeroDeriv(x) => variable_reference(e, "ZeroDeriv", x, None),
        }
    }
    e.close(X, "DerivativePropagator");
}

fn tgt_src(e: &mut Emitter, name: &str, tgt: &VariableReference, src: &VariableReference) {
    e.open(X, name);
    e.children();
    variable_reference(e, "Tgt", tgt, None);
    variable_reference(e, "Src", src, None);
    e.close(X, name);
}

fn ax_y(e: &mut Emitter, name: &str, ax: &[Ax], y: &VariableReference) {
    e.open(X, name);
    e.children();
    for t in ax {
        e.open(X, "AX");
        e.children();
        expression(e, "A", &t.a);
        variable_reference(e, "X", &t.x, None);
        e.close(X, "AX");
    }
    variable_reference(e, "Y", y, None);
    e.close(X, name);
}

/// An `ExpressionType` element with no attributes of its own.
pub(crate) fn expression(e: &mut Emitter, name: &str, x: &Expression) {
    e.open(X, name);
    expression_content(e, X, name, x);
}

/// Ends the open start tag of an expression element `prefix:name`, writes
/// the vertices and edges and the end tag.
pub(crate) fn expression_content(e: &mut Emitter, prefix: &str, name: &str, x: &Expression) {
    if x.vertices.is_empty() && x.edges.is_empty() {
        e.empty();
        return;
    }
    e.children();
    for v in &x.vertices {
        match v {
            ExpressionVertex::VariableReference(r) => {
                variable_reference(e, "VariableReference", r, None)
            }
            ExpressionVertex::Constant(k) => constant(e, k),
            ExpressionVertex::Intrinsic(i) => {
                e.open(X, "Intrinsic");
                e.attr("vertex_id", &i.vertex_id);
                e.attr("annotation", &i.annotation);
                e.attr("name", &i.name);
                e.attr("type", &i.type_);
                e.attr("rType", name_of(SYMBOL_TYPES, i.r_type));
                e.attr("rShape", name_of(SYMBOL_SHAPES, i.r_shape));
                e.empty();
            }
            ExpressionVertex::FunctionCall(f) => {
                e.open(X, "FunctionCall");
                e.attr("vertex_id", &f.vertex_id);
                e.attr("annotation", &f.annotation);
                if let Some(s) = &f.symbol_id {
                    e.attr("symbol_id", s);
                }
                if let Some(s) = f.scope_id {
                    e.attr_u64("scope_id", s);
                }
                if f.arguments.is_empty() {
                    e.empty();
                } else {
                    e.children();
                    for a in &f.arguments {
                        variable_reference(e, "Argument", a, None);
                    }
                    e.close(X, "FunctionCall");
                }
            }
            ExpressionVertex::BooleanOperation(b) => {
                e.open(X, "BooleanOperation");
                e.attr("vertex_id", &b.vertex_id);
                e.attr("annotation", &b.annotation);
                e.attr("name", name_of(BOOLEAN_OPS, b.name));
                e.empty();
            }
            ExpressionVertex::ArgumentReference(r) => {
                e.open("xaifii", "ArgumentReference");
                e.attr("vertex_id", &r.vertex_id);
                e.attr("annotation", &r.annotation);
                e.attr_u64("argument", r.argument);
                e.empty();
            }
        }
    }
    for edge in &x.edges {
        e.open(X, "ExpressionEdge");
        e.attr("edge_id", &edge.edge_id);
        e.attr("source", &edge.source);
        e.attr("target", &edge.target);
        e.attr_i64("position", edge.position);
        e.attr("annotation", &edge.annotation);
        e.empty();
    }
    e.close(prefix, name);
}

fn constant(e: &mut Emitter, k: &Constant) {
    e.open(X, "Constant");
    e.attr("vertex_id", &k.vertex_id);
    e.attr("annotation", &k.annotation);
    e.attr("type", name_of(CONSTANT_TYPES, k.type_));
    e.attr("feType", &k.fe_type);
    e.attr("value", &k.value);
    e.empty();
}

/// A `VariableReferenceType` element named `name`; `live` is written for
/// `AssignmentLHS`.
fn variable_reference(e: &mut Emitter, name: &str, v: &VariableReference, live: Option<bool>) {
    e.open(X, name);
    e.attr("vertex_id", &v.vertex_id);
    e.attr("annotation", &v.annotation);
    e.attr("active", name_of(ACTIVE_USES, v.active));
    e.attr_i64("alias", v.alias);
    e.attr_i64("du_ud", v.du_ud);
    e.attr_bool("deriv", v.deriv);
    e.attr_bool("constant", v.constant);
    if let Some(live) = live {
        e.attr_bool("live", live);
    }
    if v.vertices.is_empty() && v.edges.is_empty() {
        e.empty();
        return;
    }
    e.children();
    for x in &v.vertices {
        match x {
            VariableReferenceVertex::SymbolReference(s) => {
                e.open(X, "SymbolReference");
                e.attr("vertex_id", &s.vertex_id);
                e.attr("annotation", &s.annotation);
                e.attr("symbol_id", &s.symbol_id);
                e.attr_u64("scope_id", s.scope_id);
                if s.properties.is_empty() {
                    e.empty();
                } else {
                    e.children();
                    for p in &s.properties {
                        e.open(X, "SymbolReferenceProperty");
                        e.attr("name", &p.name);
                        e.attr("value", &p.value);
                        e.empty();
                    }
                    e.close(X, "SymbolReference");
                }
            }
            VariableReferenceVertex::ArrayElementReference(a) => {
                e.open(X, "ArrayElementReference");
                e.attr("vertex_id", &a.vertex_id);
                e.attr("annotation", &a.annotation);
                if a.index_triplets.is_empty() {
                    e.empty();
                    continue;
                }
                e.children();
                for t in &a.index_triplets {
                    e.open(X, "IndexTriplet");
                    if t.index.is_none() && t.bound.is_none() && t.stride.is_none() {
                        e.empty();
                        continue;
                    }
                    e.children();
                    for (part, x) in [
                        ("Index", &t.index),
                        ("Bound", &t.bound),
                        ("Stride", &t.stride),
                    ] {
                        if let Some(x) = x {
                            expression(e, part, x);
                        }
                    }
                    e.close(X, "IndexTriplet");
                }
                e.close(X, "ArrayElementReference");
            }
        }
    }
    for edge in &v.edges {
        plain_edge(e, "VariableReferenceEdge", edge);
    }
    e.close(X, name);
}
