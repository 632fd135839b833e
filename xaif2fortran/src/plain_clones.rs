//! Joint mode: plain copies of loop-free module procedures, so that the
//! forward sweeps that only recompute values run at the original's speed.
//!
//! Joint mode runs a routine's original computation (placeholder 1) once
//! more per level of the call tree above it. In the template, that code
//! calls its callees' templates, which test the mode and carry their tape
//! and adjoint sections: calls gfortran cannot inline, costing ten times
//! the computation for a small routine called per face of a grid (issue
//! 11, `flux_tree`). A loop-free routine of a module (joint leaf template)
//! gets a second subroutine, `oad_plain_NAME`, holding only its original
//! computation; plain sections in the same module call that instead, and
//! gfortran inlines it as it inlines the original.
//!
//! Only where the copy is an exact stand-in: a module procedure (callers in
//! the same module see it without an interface or `public`), without
//! internal procedures, `save`d or initialised locals, `data` or `save`
//! statements (a copy would have state of its own).

use std::collections::HashMap;

use crate::canon::{CanonItem, CanonSource};

/// The copy of one unit: its name, and the module it lives in.
#[derive(Debug, Clone)]
pub struct PlainClone {
    pub name: String,
    pub module: String,
}

/// Prefix of the copies' names.
pub const CLONE_PREFIX: &str = "oad_plain_";

/// The units (by symbol) among `leaves` (tag, symbol) that get a plain copy.
pub fn plan(canon: &CanonSource, leaves: &[(String, String)]) -> HashMap<String, PlainClone> {
    let mut out = HashMap::new();
    for (tag, symbol) in leaves {
        let Some((module, _)) = tag.rsplit_once('.') else {
            continue;
        };
        // Module procedures only: `module.proc`, not `host.proc` of an
        // external host (a module's tag has no dot).
        if module.contains('.') || !canon.units.iter().any(|u| u == module) {
            continue;
        }
        let has_internal = canon.units.iter().any(|u| {
            u.strip_prefix(tag.as_str())
                .is_some_and(|r| r.starts_with('.'))
        });
        if has_internal || has_own_state(canon, tag) {
            continue;
        }
        let name = format!("{CLONE_PREFIX}{symbol}");
        if name.len() > 63 || canon.units.iter().any(|u| u.ends_with(&format!(".{name}"))) {
            continue;
        }
        out.insert(
            symbol.clone(),
            PlainClone {
                name,
                module: module.to_string(),
            },
        );
    }
    out
}

/// Whether a unit keeps state between calls: `save` or initialised
/// declarations, `save` or `data` statements in its specification part.
fn has_own_state(canon: &CanonSource, tag: &str) -> bool {
    let mut inside = false;
    for item in &canon.items {
        match item {
            CanonItem::UnitHeader { tag: t, .. } => inside = t == tag,
            CanonItem::Decl { unit, lines, .. } if unit == tag => {
                let text: String = lines
                    .iter()
                    .map(|&i| canon.lines[i].to_ascii_lowercase())
                    .collect();
                let spec = text.split("::").next().unwrap_or("");
                if spec.contains("save") {
                    return true;
                }
                if !spec.contains("parameter")
                    && text.split("::").nth(1).is_some_and(|e| e.contains('='))
                {
                    return true;
                }
            }
            CanonItem::Line(i) if inside => {
                let l = canon.lines[*i].trim_start().to_ascii_lowercase();
                if l.starts_with("save") || l.starts_with("data ") || l.starts_with("data(") {
                    return true;
                }
            }
            CanonItem::Body { unit, .. } if unit == tag => inside = false,
            _ => {}
        }
    }
    false
}

/// The unit's header lines with the subroutine's name replaced by
/// `clone`.
pub fn renamed_header(header: &[String], name: &str, clone: &str) -> Vec<String> {
    let mut done = false;
    header
        .iter()
        .map(|line| {
            if done {
                return line.clone();
            }
            let lower = line.to_ascii_lowercase();
            let Some(k) = lower.find("subroutine") else {
                return line.clone();
            };
            let after = k + "subroutine".len();
            let rest = &lower[after..];
            let start = after + (rest.len() - rest.trim_start().len());
            if lower[start..].starts_with(name) {
                done = true;
                format!("{}{clone}{}", &line[..start], &line[start + name.len()..])
            } else {
                line.clone()
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_rename_keeps_prefixes_and_arguments() {
        let h = vec!["  pure subroutine flux(u, i, f)".to_string()];
        assert_eq!(
            renamed_header(&h, "flux", "oad_plain_flux"),
            vec!["  pure subroutine oad_plain_flux(u, i, f)".to_string()]
        );
    }
}
