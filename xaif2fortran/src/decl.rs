//! Declarations: active entities become `type(active)`, booster
//! temporaries are declared from their XAIF symbols.

use xaif_schema::{Symbol, SymbolKind, SymbolType};

use crate::canon::{join_statement, CanonSource};
use crate::error::{error_at, Kind};
use crate::fortran_text::{tokenize, TokKind};
use crate::symbols::XaifIndex;

/// Why a declaration of an active entity cannot be rewritten.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeclError {
    pub kind: Kind,
    pub message: String,
}

impl DeclError {
    fn new(message: String) -> Self {
        DeclError {
            kind: Kind::Semantic,
            message,
        }
    }

    fn unsupported(message: String) -> Self {
        DeclError {
            kind: Kind::Unsupported,
            message,
        }
    }
}

/// Top-level (outside parentheses and brackets) tokens of a statement.
fn top_level_positions(stmt: &str, wanted: &dyn Fn(&str) -> bool) -> Vec<(usize, usize)> {
    let mut depth = 0i32;
    let mut out = Vec::new();
    for t in tokenize(stmt) {
        if t.kind != TokKind::Punct {
            continue;
        }
        let s = &stmt[t.start..t.end];
        match s {
            "(" | "[" => depth += 1,
            ")" | "]" => depth -= 1,
            _ if depth == 0 && wanted(s) => out.push((t.start, t.end)),
            _ => {}
        }
    }
    out
}

/// Splits at top-level commas.
fn split_top_commas(text: &str) -> Vec<String> {
    let mut parts = Vec::new();
    let mut start = 0;
    for (a, b) in top_level_positions(text, &|s| s == ",") {
        parts.push(text[start..a].trim().to_string());
        start = b;
    }
    parts.push(text[start..].trim().to_string());
    parts
}

/// Rewrites the declaration (joined onto one line) of active entity
/// `name`: the type becomes `type(active)`, `intent` goes (adjoints write
/// to inputs), an initial value `= e` becomes `= active(e)` (element-wise
/// for an array constructor), which keeps the implicit `save` of
/// initialised variables. `parameter` cannot be active.
pub fn rewrite_active_decl(stmt: &str, name: &str) -> Result<String, DeclError> {
    let (spec, entity) = match top_level_positions(stmt, &|s| s == "::").first() {
        Some(&(a, b)) => (stmt[..a].trim(), stmt[b..].trim()),
        None => {
            // `real*8 x(3)`: the entity starts at the declared name.
            let at = tokenize(stmt)
                .into_iter()
                .skip(1)
                .find(|t| {
                    t.kind == TokKind::Ident && stmt[t.start..t.end].eq_ignore_ascii_case(name)
                })
                .ok_or_else(|| {
                    DeclError::new(format!("cannot find '{name}' in its declaration"))
                })?;
            (stmt[..at.start].trim(), stmt[at.start..].trim())
        }
    };
    let mut attrs = split_top_commas(spec);
    if attrs.is_empty() || attrs[0].is_empty() {
        return Err(DeclError::new(format!(
            "declaration of '{name}' has no type"
        )));
    }
    attrs.remove(0);
    let mut kept = vec!["type(active)".to_string()];
    for a in attrs {
        let lower = a.to_ascii_lowercase().replace(' ', "");
        if lower.starts_with("intent(") {
            continue;
        }
        if lower == "parameter" {
            return Err(DeclError::new(format!(
                "active variable '{name}' is declared as a parameter (a constant cannot carry a derivative)"
            )));
        }
        kept.push(a);
    }
    let entity = match top_level_positions(entity, &|s| s == "=").first() {
        Some(&(a, b)) => {
            let init = entity[b..].trim();
            format!("{} = {}", entity[..a].trim_end(), active_init(init))
        }
        None => entity.to_string(),
    };
    Ok(format!("{} :: {entity}", kept.join(", ")))
}

/// Rewrites the declaration of a `complex(8)` variable whose parts carry
/// derivatives: the type becomes `type(active_c)` (two `type(active)`
/// parts `re`, `im`), `intent` goes. An initial value is refused.
pub fn rewrite_active_complex_decl(stmt: &str, name: &str) -> Result<String, DeclError> {
    let d = rewrite_active_decl(stmt, name)?;
    if !top_level_positions(&d, &|s| s == "=").is_empty() {
        return Err(DeclError::unsupported(format!(
            "unsupported construct: active complex variable '{name}' with an initial value (assign it in the executable part)"
        )));
    }
    Ok(d.replacen("type(active)", "type(active_c)", 1))
}

/// The declaration without its `intent`: a derived-type dummy whose type
/// has active components is written by the adjoint (component adjoints),
/// and `intent(out)` would reset its components on entry.
pub fn drop_intent(stmt: &str) -> String {
    let Some(&(a, _)) = top_level_positions(stmt, &|s| s == "::").first() else {
        return stmt.to_string();
    };
    let kept: Vec<String> = split_top_commas(&stmt[..a])
        .into_iter()
        .filter(|x| {
            !x.to_ascii_lowercase()
                .replace(' ', "")
                .starts_with("intent(")
        })
        .collect();
    format!("{} {}", kept.join(", ").trim_end(), stmt[a..].trim_start())
}

/// `e` → `active(e)`; `(/ a, b /)` and `[a, b]` element by element.
fn active_init(init: &str) -> String {
    let inner = init
        .strip_prefix("(/")
        .and_then(|s| s.strip_suffix("/)"))
        .map(|s| ("(/ ", s, " /)"))
        .or_else(|| {
            init.strip_prefix('[')
                .and_then(|s| s.strip_suffix(']'))
                .map(|s| ("[", s, "]"))
        });
    match inner {
        Some((open, body, close)) => {
            let elems: Vec<String> = split_top_commas(body)
                .iter()
                .map(|e| format!("active({e})"))
                .collect();
            format!("{open}{}{close}", elems.join(", "))
        }
        None => format!("active({init})"),
    }
}

/// `Symbol/@feType` of the booster's checkpointed-loop state temporaries
/// (`xaif-booster`, `adjoint/temps.rs`): declared with the derived type of
/// the runtime module `OAD_snapshots`.
pub const SNAPSHOT_LOOP_TYPE: &str = "oad_snapshot_loop";

/// `Symbol/@feType` of the booster's array snapshot copies
/// (`xaif-booster`, `adjoint/array_snapshots.rs`): a contiguous real array
/// pointer that `oad_snap_pop` (runtime `OAD_tape`) associates with the
/// snapshot's values on the real tape, with the pushed bounds (no copy).
pub const SNAPSHOT_COPY_TYPE: &str = "oad_snapshot_copy";

/// The declaration of a booster temporary.
pub fn temp_declaration(sym: &Symbol) -> Result<String, DeclError> {
    let name = sym.symbol_id.as_str().to_ascii_lowercase();
    let ty = match (sym.type_, sym.active) {
        (SymbolType::Real, true) => "type(active)",
        (SymbolType::Real, false) => "real(8)",
        (SymbolType::Integer, _) => "integer",
        (SymbolType::Bool, _) => "logical",
        (SymbolType::Complex, _) => "complex(8)",
        // The runtime's loop-checkpointing state (`OAD_snapshots`).
        (SymbolType::Opaque, _) if sym.fe_type == SNAPSHOT_LOOP_TYPE => {
            return Ok(format!("type({SNAPSHOT_LOOP_TYPE}) :: {name}"));
        }
        (t, _) => {
            return Err(DeclError::new(format!(
                "temporary '{name}' has type {t:?}, which the back end cannot declare"
            )))
        }
    };
    let rank = sym.shape.rank();
    if sym.fe_type == SNAPSHOT_COPY_TYPE && sym.type_ == SymbolType::Real && rank > 0 {
        let dims = vec![":"; rank].join(", ");
        return Ok(format!("real(8), pointer, contiguous :: {name}({dims})"));
    }
    if rank == 0 {
        return Ok(format!("{ty} :: {name}"));
    }
    if sym.dimension_bounds.len() != rank {
        return Err(DeclError::new(format!(
            "temporary '{name}' of rank {rank} has {} dimension bounds",
            sym.dimension_bounds.len()
        )));
    }
    let dims: Vec<String> = sym
        .dimension_bounds
        .iter()
        .map(|b| format!("{}:{}", b.lower, b.upper))
        .collect();
    Ok(format!("{ty} :: {name}({})", dims.join(", ")))
}

/// A declaration, rewritten when its entity is active in the unit.
pub(crate) fn declaration(
    index: &XaifIndex,
    canon: &CanonSource,
    unit: &str,
    name: &str,
    lines: &[usize],
    active_override: Option<bool>,
) -> crate::error::Result<Vec<String>> {
    let active = active_override.unwrap_or_else(|| {
        index
            .unit_scope(unit)
            .and_then(|s| index.symbol(s, name))
            .is_some_and(|s| s.active && s.kind == SymbolKind::Variable)
    });
    if !active {
        let complex = index
            .unit_scope(unit)
            .and_then(|s| Some((s, index.symbol(s, name)?)))
            .is_some_and(|(scope, s)| index.is_active_complex(scope, s));
        let derived_active = complex
            || index
                .unit_scope(unit)
                .and_then(|s| index.symbol(s, name))
                .is_some_and(|s| index.has_active_components(s));
        if derived_active {
            let texts: Vec<&str> = lines.iter().map(|&i| canon.lines[i].as_str()).collect();
            let first = texts[0];
            let indent = first.len() - first.trim_start().len();
            let joined = join_statement(&texts);
            if complex {
                return match rewrite_active_complex_decl(&joined, name) {
                    Ok(d) => Ok(vec![format!("{}{d}", " ".repeat(indent))]),
                    Err(e) => Err(error_at(&canon.file, lines[0] + 1, indent + 1, e.message)
                        .with_kind(e.kind)),
                };
            }
            return Ok(vec![format!(
                "{}{}",
                " ".repeat(indent),
                drop_intent(&joined)
            )]);
        }
        return Ok(lines.iter().map(|&i| canon.lines[i].clone()).collect());
    }
    let first = &canon.lines[lines[0]];
    let indent = first.len() - first.trim_start().len();
    let texts: Vec<&str> = lines.iter().map(|&i| canon.lines[i].as_str()).collect();
    let joined = join_statement(&texts);
    match rewrite_active_decl(&joined, name) {
        Ok(d) => Ok(vec![format!("{}{d}", " ".repeat(indent))]),
        Err(e) => Err(error_at(&canon.file, lines[0] + 1, indent + 1, e.message).with_kind(e.kind)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn active_declarations() {
        assert_eq!(
            rewrite_active_decl("real(8), intent(in) :: x", "x").unwrap(),
            "type(active) :: x"
        );
        assert_eq!(
            rewrite_active_decl("real(kind=8), dimension(n, 2), intent(inout) :: a", "a").unwrap(),
            "type(active), dimension(n, 2) :: a"
        );
        assert_eq!(
            rewrite_active_decl("real*8 y(3)", "y").unwrap(),
            "type(active) :: y(3)"
        );
        assert_eq!(
            rewrite_active_decl("real(8) :: c = 1.5d0", "c").unwrap(),
            "type(active) :: c = active(1.5d0)"
        );
        assert_eq!(
            rewrite_active_decl("real(8) :: w(2) = (/ 1d0, 2d0 /)", "w").unwrap(),
            "type(active) :: w(2) = (/ active(1d0), active(2d0) /)"
        );
        assert!(rewrite_active_decl("real(8), parameter :: p = 2d0", "p").is_err());
    }

    #[test]
    fn temporaries() {
        let mut s = Symbol {
            symbol_id: "oad_t1".into(),
            ..Default::default()
        };
        s.active = false;
        assert_eq!(temp_declaration(&s).unwrap(), "real(8) :: oad_t1");
        s.active = true;
        s.shape = xaif_schema::SymbolShape::Vector;
        assert!(temp_declaration(&s).is_err());
        s.dimension_bounds
            .push(xaif_schema::DimensionBounds { lower: 1, upper: 4 });
        assert_eq!(temp_declaration(&s).unwrap(), "type(active) :: oad_t1(1:4)");
        let copy = Symbol {
            symbol_id: "oad_snap_1".into(),
            fe_type: SNAPSHOT_COPY_TYPE.into(),
            shape: xaif_schema::SymbolShape::Matrix,
            active: false,
            ..Default::default()
        };
        assert_eq!(
            temp_declaration(&copy).unwrap(),
            "real(8), pointer, contiguous :: oad_snap_1(:, :)"
        );
    }
}
