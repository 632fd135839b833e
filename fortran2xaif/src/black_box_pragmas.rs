//! `!$openad BLACK-BOX PASSIVE name(in, out, inout, ...)`: a passive black
//! box declared next to its call, without a declaration file, with the
//! intent of each argument (what it writes loses its derivative; guessing
//! would either drop derivatives of what it only reads or keep stale ones
//! of what it overwrites). The pragma stands in a subroutine that calls
//! the routine; the declaration holds for every call in the program, the
//! types and ranks taken from each call. Routines with derivative routines
//! need the full declarations of a `--black-box` file (`black_box.rs`).

use crate::ast::{Stmt, StmtKind, UnitKind};
use crate::black_box::{ArgIntent, BlackBox, Derivatives, Library};
use crate::diagnostics::Diagnostic;
use crate::sema::Program;
use crate::source::{NormalizedSource, PragmaKind};

/// The pragma's keyword, upper case as in the documentation.
pub const KEYWORD: &str = "BLACK-BOX";

/// Adds the routines named by `BLACK-BOX` pragmas to `library`.
pub fn declare_from_pragmas(
    prog: &Program,
    sources: &[NormalizedSource],
    library: &mut Library,
) -> Result<(), Diagnostic> {
    for (file, source) in sources.iter().enumerate() {
        for pragma in &source.pragmas {
            let PragmaKind::Other(text) = &pragma.kind else {
                continue;
            };
            let Some(rest) = strip_keyword(text, KEYWORD) else {
                continue;
            };
            let at = &pragma.location;
            let (name, intents) = parse_passive_declaration(rest).ok_or_else(|| {
                Diagnostic::error(
                    at.clone(),
                    format!("expected `{KEYWORD} PASSIVE ROUTINE(INTENT, ...)` with each INTENT in, out or inout, found `{}` (routines with derivative routines are declared in a --black-box file)", text.trim()),
                )
            })?;
            let unit = (0..prog.units.len())
                .filter(|&i| {
                    let u = &prog.units[i];
                    u.ast.span.file == file
                        && u.interface_of.is_none()
                        && matches!(u.ast.kind, UnitKind::Subroutine | UnitKind::Function)
                        && u.ast.span.line <= pragma.line
                        && pragma.line <= u.end_line_or_span()
                })
                .max_by_key(|&i| prog.units[i].ast.span.line)
                .ok_or_else(|| {
                    Diagnostic::error(
                        at.clone(),
                        format!("{KEYWORD} pragma outside a subroutine (put it next to the call)"),
                    )
                })?;
            let caller = &prog.units[unit];
            if !calls(&caller.ast.body, &name) {
                return Err(Diagnostic::error(
                    at.clone(),
                    format!(
                        "{KEYWORD} pragma names '{name}', which '{}' does not call",
                        caller.ast.name
                    ),
                ));
            }
            if let Some(old) = library.get(&name) {
                return Err(Diagnostic::error(
                    at.clone(),
                    format!(
                        "black-box routine '{name}' is declared twice (first at {})",
                        old.declared_at
                    ),
                ));
            }
            library.routines.insert(
                name.clone(),
                BlackBox {
                    name,
                    args: Vec::new(),
                    call_intents: Some(intents),
                    derivatives: Derivatives::Passive,
                    declared_at: at.clone(),
                },
            );
        }
    }
    Ok(())
}

/// `text` without its first word if that is `keyword` (any case).
fn strip_keyword<'t>(text: &'t str, keyword: &str) -> Option<&'t str> {
    let trimmed = text.trim_start();
    let head = trimmed.get(..keyword.len())?;
    let rest = &trimmed[keyword.len()..];
    (head.eq_ignore_ascii_case(keyword) && (rest.is_empty() || !rest.starts_with(['-', '_'])))
        .then_some(rest)
        .filter(|r| r.is_empty() || r.starts_with(|c: char| c.is_whitespace() || c == '('))
}

/// `PASSIVE name(in, out)` → `("name", [In, Out])` (lower case).
fn parse_passive_declaration(rest: &str) -> Option<(String, Vec<ArgIntent>)> {
    let rest = strip_keyword(rest.trim(), "passive")?.trim();
    let (name, list) = rest.split_once('(')?;
    let name = name.trim().to_ascii_lowercase();
    let valid = name.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    let list = list.trim_end().strip_suffix(')')?;
    let mut intents = Vec::new();
    for item in list.split(',').map(|i| i.trim().to_ascii_lowercase()) {
        intents.push(match item.as_str() {
            "in" => ArgIntent::In,
            "out" => ArgIntent::Out,
            "inout" => ArgIntent::InOut,
            "" if list.trim().is_empty() => break,
            _ => return None,
        });
    }
    valid.then_some((name, intents))
}

/// Does `body` contain `call name(...)`?
fn calls(body: &[Stmt], name: &str) -> bool {
    body.iter().any(|s| match &s.kind {
        StmtKind::Call { name: n, .. } => n.eq_ignore_ascii_case(name),
        StmtKind::If { arms, otherwise } => {
            arms.iter().any(|(_, b)| calls(b, name))
                || otherwise.as_ref().is_some_and(|b| calls(b, name))
        }
        StmtKind::Do { body, .. }
        | StmtKind::DoWhile { body, .. }
        | StmtKind::Forall { body, .. } => calls(body, name),
        StmtKind::Select { cases, .. } => cases.iter().any(|c| calls(&c.body, name)),
        StmtKind::Where { arms } => arms.iter().any(|(_, b)| calls(b, name)),
        _ => false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_passive_declarations() {
        assert_eq!(
            parse_passive_declaration(" PASSIVE Log_Step(in, OUT, inout)"),
            Some((
                "log_step".to_string(),
                vec![ArgIntent::In, ArgIntent::Out, ArgIntent::InOut]
            ))
        );
        assert_eq!(
            parse_passive_declaration("passive tick()"),
            Some(("tick".to_string(), vec![]))
        );
        assert_eq!(parse_passive_declaration("passive monitor"), None);
        assert_eq!(parse_passive_declaration("passive f(in, sideways)"), None);
        assert_eq!(parse_passive_declaration("tangent(f_d)"), None);
        assert_eq!(
            strip_keyword("black-box passive f(in)", KEYWORD),
            Some(" passive f(in)")
        );
        assert_eq!(strip_keyword("black-boxes", KEYWORD), None);
    }
}
