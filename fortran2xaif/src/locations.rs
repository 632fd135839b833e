//! Where the tagged lines of the canonical source come from: for the
//! statement after each `!$oad unit`, `!$oad decl` and `!$oad stmt` tag,
//! the unit header, declaration or statement in the user's files. The
//! back end reports problems with canonical lines (e.g. a declaration it
//! cannot rewrite) there; `openad` deletes the canonical source. The
//! canonical lines of every XAIF statement (`stmtlines`) are recorded too,
//! for `openad explore`'s links from the derivative code.

use crate::ast::Span;
use crate::sema::Program;
use xaif_schema::source_map::{SourceLocation, SourceMap};

/// The XAIF id of canonical statement `id` (the key of its source
/// location in the side file and of its `!$oad stmt` tag).
pub(crate) fn stmt_name(id: usize) -> String {
    format!("s{id}")
}

/// Adds a `canon` range to `map` for every tagged statement of `canon`.
/// Statement positions come from `map` itself (the XAIF emission recorded
/// them), unit headers and declarations from `prog` through `place_of`.
pub fn record_canon_origins(
    canon: &str,
    prog: &Program,
    place_of: &dyn Fn(Span) -> Option<SourceLocation>,
    map: &mut SourceMap,
) {
    let lines: Vec<&str> = canon.lines().collect();
    let mut unit = None;
    for (k, line) in lines.iter().enumerate() {
        let Some(tag) = line.trim().strip_prefix("!$oad ") else {
            continue;
        };
        let (kind, arg) = tag.split_once(' ').unwrap_or((tag, ""));
        let arg = arg.trim();
        let origin = match kind {
            "unit" => {
                unit = prog.units.iter().position(|u| u.tag == arg);
                unit.and_then(|u| place_of(prog.units[u].ast.span))
            }
            "decl" => unit.and_then(|u| {
                let symbol = prog.units[u].symbols.iter().find(|s| s.name == arg)?;
                place_of(symbol.span)
            }),
            "stmt" => arg
                .parse::<usize>()
                .ok()
                .and_then(|id| map.statement(&stmt_name(id))),
            _ => None,
        };
        let Some(origin) = origin else { continue };
        // The statement after the tag, with its continuation lines.
        let first = k + 1;
        let mut last = first;
        while last + 1 < lines.len() && lines[last].trim_end().ends_with('&') {
            last += 1;
        }
        if first < lines.len() {
            map.add_canon_lines(first as u64 + 1, last as u64 + 1, &origin);
            if kind == "stmt" {
                map.add_statement_lines(&format!("s{arg}"), first as u64 + 1, last as u64 + 1);
            }
        }
    }
}
