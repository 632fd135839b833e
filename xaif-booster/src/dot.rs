//! Graphviz views of linearised graphs (`--dot DIR`), and atomic file
//! writing (temporary file in the same directory, then rename).

use std::fmt::Write as _;
use std::path::Path;

use crate::expr::{variable_key, ExprView};
use crate::linearize::{LinVertexKind, LinearizedGraph, PartialValue};

pub fn linearized_graph_dot(g: &LinearizedGraph) -> String {
    let mut s = String::from("digraph linearized {\n  rankdir=BT;\n");
    for (i, v) in g.vertices.iter().enumerate() {
        let label = match v {
            LinVertexKind::Independent(r) => variable_key(r),
            LinVertexKind::Intermediate(name) => name.clone(),
        };
        let shape = match v {
            LinVertexKind::Independent(_) => "box",
            LinVertexKind::Intermediate(_) => "ellipse",
        };
        let _ = writeln!(
            s,
            "  v{i} [label=\"{i}: {}\", shape={shape}];",
            escape(&label)
        );
    }
    for (k, (v, r)) in g.dependents.iter().enumerate() {
        let _ = writeln!(
            s,
            "  d{k} [label=\"{}\", shape=box, style=bold];\n  v{v} -> d{k} [style=dashed];",
            escape(&variable_key(r))
        );
    }
    for e in &g.edges {
        let label = match &e.partial {
            PartialValue::One => "1".to_string(),
            PartialValue::MinusOne => "-1".to_string(),
            PartialValue::Expr(x) => ExprView::new(x)
                .and_then(|view| Ok(view.key(view.root()?)))
                .unwrap_or_else(|e| e.message),
        };
        let _ = writeln!(
            s,
            "  v{} -> v{} [label=\"{}\"];",
            e.source,
            e.target,
            escape(&label)
        );
    }
    s.push_str("}\n");
    s
}

fn escape(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

/// Writes `text` to `path` through a temporary file and a rename, so that a
/// failure leaves no partial file.
pub fn write_atomically(path: &Path, text: &str) -> std::io::Result<()> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "out".into());
    let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    let result = std::fs::write(&tmp, text).and_then(|()| std::fs::rename(&tmp, path));
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}
