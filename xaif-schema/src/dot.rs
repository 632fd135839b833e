//! Graphviz (DOT) export of call graphs, control flow graphs and
//! expression graphs, for looking at what a stage produced.
//!
//! Basic blocks are labelled with their statements in a compact infix
//! form (`t1 = mul_scal_scal(sin_scal(x), y)`), so a control flow graph
//! can be read without the XAIF next to it.

use crate::model::*;
use std::collections::HashMap;
use std::fmt::Write;

/// A whole document: the call graph, then every control flow graph (and
/// every replacement of a replacement list) as a cluster.
pub fn document_dot(cg: &CallGraph) -> String {
    let mut out = String::from("digraph xaif {\n  node [shape=box, fontname=\"monospace\"];\n");
    out.push_str("  subgraph cluster_call_graph {\n    label=\"call graph\";\n");
    call_graph_body(&mut out, cg, "cg:", "    ");
    out.push_str("  }\n");
    for (i, v) in cg.vertices.iter().enumerate() {
        match v {
            CallGraphVertex::ControlFlowGraph(g) => {
                let prefix = format!("cfg{i}:");
                let _ = writeln!(out, "  subgraph \"cluster_{}\" {{", escape(&prefix));
                let _ = writeln!(out, "    label=\"{}\";", escape(&g.symbol_id));
                flow_body(&mut out, &g.vertices, &g.edges, &prefix, "    ");
                out.push_str("  }\n");
            }
            CallGraphVertex::ReplacementList(r) => {
                for (j, rep) in r.replacements.iter().enumerate() {
                    let prefix = format!("rl{i}.{j}:");
                    let _ = writeln!(out, "  subgraph \"cluster_{}\" {{", escape(&prefix));
                    let _ = writeln!(
                        out,
                        "    label=\"{} / {} placeholder {}\";",
                        escape(&r.symbol_id),
                        escape(&r.template_name),
                        escape(&rep.placeholder)
                    );
                    flow_body(&mut out, &rep.vertices, &rep.edges, &prefix, "    ");
                    out.push_str("  }\n");
                }
            }
        }
    }
    out.push_str("}\n");
    out
}

/// The call graph alone.
pub fn call_graph_dot(cg: &CallGraph) -> String {
    let mut out = String::from("digraph call_graph {\n  node [shape=box];\n");
    call_graph_body(&mut out, cg, "", "  ");
    out.push_str("}\n");
    out
}

/// One control flow graph.
pub fn control_flow_dot(g: &ControlFlowGraph) -> String {
    let mut out = format!(
        "digraph \"{}\" {{\n  node [shape=box, fontname=\"monospace\"];\n",
        escape(&g.symbol_id)
    );
    flow_body(&mut out, &g.vertices, &g.edges, "", "  ");
    out.push_str("}\n");
    out
}

/// One expression graph; edges go from argument to operation and are
/// labelled with the argument position.
pub fn expression_dot(x: &Expression) -> String {
    let mut out = String::from("digraph expression {\n");
    for v in &x.vertices {
        let _ = writeln!(
            out,
            "  \"{}\" [label=\"{}\"];",
            escape(v.vertex_id()),
            escape(&vertex_text(v))
        );
    }
    for e in &x.edges {
        let _ = writeln!(
            out,
            "  \"{}\" -> \"{}\" [label=\"{}\"];",
            escape(&e.source),
            escape(&e.target),
            e.position
        );
    }
    out.push_str("}\n");
    out
}

fn call_graph_body(out: &mut String, cg: &CallGraph, prefix: &str, indent: &str) {
    for v in &cg.vertices {
        let (id, label) = match v {
            CallGraphVertex::ControlFlowGraph(g) => (&g.vertex_id, g.symbol_id.to_string()),
            CallGraphVertex::ReplacementList(r) => (
                &r.vertex_id,
                format!("{} ({})", r.symbol_id, r.template_name),
            ),
        };
        let _ = writeln!(
            out,
            "{indent}\"{}{}\" [label=\"{}\"];",
            escape(prefix),
            escape(id),
            escape(&label)
        );
    }
    for e in &cg.edges {
        let _ = writeln!(
            out,
            "{indent}\"{p}{}\" -> \"{p}{}\";",
            escape(&e.source),
            escape(&e.target),
            p = escape(prefix)
        );
    }
}

fn flow_body(
    out: &mut String,
    vertices: &[ControlFlowVertex],
    edges: &[ControlFlowEdge],
    prefix: &str,
    indent: &str,
) {
    let p = escape(prefix);
    for v in vertices {
        let (label, shape) = flow_vertex_label(v);
        let _ = writeln!(
            out,
            "{indent}\"{p}{}\" [label=\"{}\", shape={shape}];",
            escape(v.vertex_id()),
            escape(&label)
        );
    }
    for e in edges {
        let _ = write!(
            out,
            "{indent}\"{p}{}\" -> \"{p}{}\"",
            escape(&e.source),
            escape(&e.target)
        );
        if e.has_condition_value {
            let _ = write!(out, " [label=\"{}\"]", e.condition_value);
        }
        out.push_str(";\n");
    }
}

fn flow_vertex_label(v: &ControlFlowVertex) -> (String, &'static str) {
    let head = format!("{} {}", v.element_name(), v.vertex_id());
    match v {
        ControlFlowVertex::BasicBlock(b) => {
            let mut label = head;
            for s in &b.elements {
                label.push('\n');
                label.push_str(&statement_text(s));
            }
            (label, "box")
        }
        ControlFlowVertex::If(c)
        | ControlFlowVertex::Branch(c)
        | ControlFlowVertex::PreLoop(c)
        | ControlFlowVertex::PostLoop(c) => {
            let cond = c
                .condition
                .as_ref()
                .map(expression_text)
                .unwrap_or_default();
            (format!("{head}\n{cond}"), "diamond")
        }
        ControlFlowVertex::ForLoop(f) => {
            let mut label = head;
            for part in [
                f.initialization.as_ref().map(assignment_text),
                f.condition.as_ref().map(expression_text),
                f.update.as_ref().map(assignment_text),
            ]
            .into_iter()
            .flatten()
            {
                label.push('\n');
                label.push_str(&part);
            }
            (label, "diamond")
        }
        _ => (head, "ellipse"),
    }
}

/// A one-line rendering of a statement.
pub fn statement_text(s: &BasicBlockElement) -> String {
    match s {
        BasicBlockElement::Assignment(a) => assignment_text(a),
        BasicBlockElement::SubroutineCall(c) => format!(
            "call {}({})",
            c.symbol_id.as_deref().unwrap_or("?"),
            arguments_text(&c.arguments)
        ),
        BasicBlockElement::Marker(m) => format!("marker {}", m.annotation),
        BasicBlockElement::InlinableSubroutineCall(c) => {
            format!(
                "inline {}({})",
                c.subroutine_name,
                arguments_text(&c.arguments)
            )
        }
        BasicBlockElement::DerivativePropagator(p) => {
            let parts: Vec<String> = p.entries.iter().map(propagator_text).collect();
            parts.join("\n")
        }
    }
}

fn arguments_text(args: &[Argument]) -> String {
    let parts: Vec<String> = args
        .iter()
        .map(|a| match &a.value {
            ArgumentValue::Variable(v) => variable_text(v),
            ArgumentValue::Constant(k) => k.value.to_string(),
        })
        .collect();
    parts.join(", ")
}

fn propagator_text(e: &PropagatorEntry) -> String {
    let terms = |ax: &[Ax]| {
        let t: Vec<String> = ax
            .iter()
            .map(|t| format!("{}*d({})", expression_text(&t.a), variable_text(&t.x)))
            .collect();
        t.join(" + ")
    };
    match e {
        PropagatorEntry::SetDeriv { tgt, src } => {
            format!("d({}) = d({})", variable_text(tgt), variable_text(src))
        }
        PropagatorEntry::SetNegDeriv { tgt, src } => {
            format!("d({}) = -d({})", variable_text(tgt), variable_text(src))
        }
        PropagatorEntry::IncDeriv { tgt, src } => {
            format!("d({}) += d({})", variable_text(tgt), variable_text(src))
        }
        PropagatorEntry::DecDeriv { tgt, src } => {
            format!("d({}) -= d({})", variable_text(tgt), variable_text(src))
        }
        PropagatorEntry::Sax { ax, y } => format!("d({}) = {}", variable_text(y), terms(ax)),
        PropagatorEntry::Saxpy { ax, y } => format!("d({}) += {}", variable_text(y), terms(ax)),
        PropagatorEntry::ZeroDeriv(x) => format!("d({}) = 0", variable_text(x)),
    }
}

fn assignment_text(a: &Assignment) -> String {
    format!(
        "{} = {}",
        variable_text(&a.lhs.reference),
        expression_text(&a.rhs)
    )
}

/// An expression in prefix-call form, from its root (the vertex no edge
/// leaves). Malformed graphs render as `?`.
pub fn expression_text(x: &Expression) -> String {
    let mut args: HashMap<&str, Vec<(i64, &str)>> = HashMap::new();
    let mut used: std::collections::HashSet<&str> = std::collections::HashSet::new();
    for e in &x.edges {
        args.entry(e.target.as_str())
            .or_default()
            .push((e.position, e.source.as_str()));
        used.insert(e.source.as_str());
    }
    let by_id: HashMap<&str, &ExpressionVertex> =
        x.vertices.iter().map(|v| (v.vertex_id(), v)).collect();
    let roots: Vec<&ExpressionVertex> = x
        .vertices
        .iter()
        .filter(|v| !used.contains(v.vertex_id()))
        .collect();
    match roots.as_slice() {
        [root] => render(root, &by_id, &args, 0),
        [] => String::new(),
        _ => "?".to_string(),
    }
}

fn render(
    v: &ExpressionVertex,
    by_id: &HashMap<&str, &ExpressionVertex>,
    args: &HashMap<&str, Vec<(i64, &str)>>,
    depth: usize,
) -> String {
    // Deeper than any real expression: the graph has a cycle.
    if depth > 200 {
        return "?".into();
    }
    let name = match v {
        ExpressionVertex::VariableReference(r) => return variable_text(r),
        ExpressionVertex::Constant(k) => return k.value.to_string(),
        ExpressionVertex::ArgumentReference(a) => return format!("arg{}", a.argument),
        ExpressionVertex::Intrinsic(i) => i.name.to_string(),
        ExpressionVertex::BooleanOperation(b) => {
            crate::names::name_of(crate::names::BOOLEAN_OPS, b.name).to_string()
        }
        ExpressionVertex::FunctionCall(f) => {
            // Arguments of a function call are inside it, not edges.
            let parts: Vec<String> = f.arguments.iter().map(variable_text).collect();
            return format!(
                "{}({})",
                f.symbol_id.as_deref().unwrap_or("?"),
                parts.join(", ")
            );
        }
    };
    let mut list = args.get(v.vertex_id()).cloned().unwrap_or_default();
    list.sort();
    let parts: Vec<String> = list
        .iter()
        .map(|(_, id)| match by_id.get(id) {
            Some(a) => render(a, by_id, args, depth + 1),
            None => "?".into(),
        })
        .collect();
    format!("{name}({})", parts.join(", "))
}

/// A variable reference as `name` or `name[i, j]` (`%` joins the parts of
/// a derived-type access path).
pub fn variable_text(v: &VariableReference) -> String {
    let mut parts = Vec::new();
    for x in &v.vertices {
        match x {
            VariableReferenceVertex::SymbolReference(s) => parts.push(s.symbol_id.clone()),
            VariableReferenceVertex::ArrayElementReference(a) => {
                let subs: Vec<String> = a
                    .index_triplets
                    .iter()
                    .map(|t| {
                        let part = |p: &Option<Expression>| {
                            p.as_ref().map(expression_text).unwrap_or_default()
                        };
                        if t.bound.is_none() && t.stride.is_none() {
                            part(&t.index)
                        } else if t.stride.is_none() {
                            format!("{}:{}", part(&t.index), part(&t.bound))
                        } else {
                            format!("{}:{}:{}", part(&t.index), part(&t.bound), part(&t.stride))
                        }
                    })
                    .collect();
                let last = parts.pop().unwrap_or_default();
                parts.push(format!("{last}[{}]", subs.join(", ")).into());
            }
        }
    }
    parts.join("%")
}

fn vertex_text(v: &ExpressionVertex) -> String {
    match v {
        ExpressionVertex::VariableReference(r) => variable_text(r),
        ExpressionVertex::Constant(k) => k.value.to_string(),
        ExpressionVertex::Intrinsic(i) => i.name.to_string(),
        ExpressionVertex::FunctionCall(f) => f.symbol_id.clone().unwrap_or_default().to_string(),
        ExpressionVertex::BooleanOperation(b) => {
            crate::names::name_of(crate::names::BOOLEAN_OPS, b.name).to_string()
        }
        ExpressionVertex::ArgumentReference(a) => format!("arg{}", a.argument),
    }
}

/// Escapes text for a double-quoted DOT string; newlines become `\n`.
fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => {}
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn var(id: &str, name: &str) -> ExpressionVertex {
        ExpressionVertex::VariableReference(VariableReference {
            vertex_id: id.into(),
            vertices: vec![VariableReferenceVertex::SymbolReference(SymbolReference {
                vertex_id: "1".into(),
                symbol_id: name.into(),
                scope_id: 1,
                ..Default::default()
            })],
            ..Default::default()
        })
    }

    #[test]
    fn expressions_render_by_argument_position() {
        let x = Expression {
            vertices: vec![
                var("1", "y"),
                var("2", "x"),
                ExpressionVertex::Intrinsic(Intrinsic {
                    vertex_id: "3".into(),
                    annotation: Default::default(),
                    name: "sub_scal_scal".into(),
                    type_: "inlinable".into(),
                    r_type: SymbolType::Real,
                    r_shape: SymbolShape::Scalar,
                }),
            ],
            edges: vec![
                ExpressionEdge {
                    edge_id: "1".into(),
                    source: "1".into(),
                    target: "3".into(),
                    position: 2,
                    annotation: Default::default(),
                },
                ExpressionEdge {
                    edge_id: "2".into(),
                    source: "2".into(),
                    target: "3".into(),
                    position: 1,
                    annotation: Default::default(),
                },
            ],
        };
        assert_eq!(expression_text(&x), "sub_scal_scal(x, y)");
        let dot = expression_dot(&x);
        assert!(dot.contains("\"1\" -> \"3\" [label=\"2\"];"), "{dot}");
    }

    #[test]
    fn dot_strings_are_escaped() {
        assert_eq!(escape("a\"b\\c\nd"), "a\\\"b\\\\c\\nd");
    }
}
