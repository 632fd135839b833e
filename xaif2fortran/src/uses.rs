//! Names made visible by `use` statements. The XAIF refers to a module
//! variable by its name in the module; a unit may know it under another
//! name (`use m, only: local => name`), and opaque statements use the
//! local name. Built per unit from the canonical source's `use` lines
//! (the unit's own and those of its hosts).

use std::collections::HashMap;

use crate::canon::{CanonItem, CanonSource};
use crate::fortran_text::code_part;
use crate::symbols::XaifIndex;

/// The names one unit sees through `use`.
#[derive(Debug, Clone, Default)]
pub struct LocalNames {
    /// (module scope, name in the module) → name in this unit.
    pub by_remote: HashMap<(u64, String), String>,
    /// Name in this unit → (module scope, name in the module).
    pub by_local: HashMap<String, (u64, String)>,
    /// Modules used without `only`: all their names are visible.
    pub whole: Vec<u64>,
    /// Module scope → the module's unit tag.
    pub module_units: HashMap<u64, String>,
}

struct UseStmt {
    module: String,
    only: bool,
    /// (local, remote)
    items: Vec<(String, String)>,
}

/// `use m[, only: a, b => c]` / `use m, b => c`.
fn parse_use(line: &str) -> Option<UseStmt> {
    let code = code_part(line).trim().to_ascii_lowercase();
    let rest = code.strip_prefix("use")?;
    if !rest.starts_with(|c: char| c.is_whitespace() || c == ',' || c == ':') {
        return None;
    }
    let rest = rest.trim_start().trim_start_matches(',').trim_start();
    let rest = rest.strip_prefix("::").unwrap_or(rest).trim_start();
    let (module, list) = match rest.find(',') {
        Some(p) => (rest[..p].trim(), rest[p + 1..].trim()),
        None => (rest.trim(), ""),
    };
    let (only, list) = match list.strip_prefix("only") {
        Some(l) => (true, l.trim_start().trim_start_matches(':').trim()),
        None => (false, list),
    };
    let items = list
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|item| match item.split_once("=>") {
            Some((l, r)) => (l.trim().to_string(), r.trim().to_string()),
            None => (item.to_string(), item.to_string()),
        })
        .collect();
    Some(UseStmt {
        module: module.to_string(),
        only,
        items,
    })
}

/// Local names of every unit of the canonical source.
pub fn local_names(index: &XaifIndex, canon: &CanonSource) -> HashMap<String, LocalNames> {
    // Module name → scope of the module.
    let mut module_scope: HashMap<String, u64> = HashMap::new();
    let mut module_units: HashMap<u64, String> = HashMap::new();
    for item in &canon.items {
        if let CanonItem::UnitHeader { tag, lines } = item {
            let header = canon.lines[lines[0]].trim().to_ascii_lowercase();
            let mut words = header.split_whitespace();
            if let (Some("module"), Some(name), None) = (words.next(), words.next(), words.next()) {
                if let Some(s) = index.unit_scope(tag) {
                    module_scope.insert(name.to_string(), s);
                    module_units.insert(s, tag.clone());
                }
            }
        }
    }
    let mut own: HashMap<String, Vec<UseStmt>> = HashMap::new();
    for item in &canon.items {
        if let CanonItem::Line(i) = item {
            if let (Some(unit), Some(u)) = (canon.line_units.get(i), parse_use(&canon.lines[*i])) {
                own.entry(unit.clone()).or_default().push(u);
            }
        }
    }
    let mut out = HashMap::new();
    for unit in &canon.units {
        let mut names = LocalNames {
            module_units: module_units.clone(),
            ..Default::default()
        };
        // The unit's own use statements first, then its hosts'.
        let mut cur = Some(unit.clone());
        while let Some(u) = cur {
            for stmt in own.get(&u).map(|v| v.as_slice()).unwrap_or(&[]) {
                let Some(&scope) = module_scope.get(&stmt.module) else {
                    continue;
                };
                if !stmt.only && !names.whole.contains(&scope) {
                    names.whole.push(scope);
                }
                for (local, remote) in &stmt.items {
                    names
                        .by_remote
                        .entry((scope, remote.clone()))
                        .or_insert_with(|| local.clone());
                    names
                        .by_local
                        .entry(local.clone())
                        .or_insert_with(|| (scope, remote.clone()));
                }
            }
            cur = canon.unit_parent.get(&u).cloned().flatten();
        }
        out.insert(unit.clone(), names);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_use_statements() {
        let u = parse_use("  use physics, only: g => gravity, damp").unwrap();
        assert_eq!(u.module, "physics");
        assert!(u.only);
        assert_eq!(
            u.items,
            vec![
                ("g".into(), "gravity".into()),
                ("damp".into(), "damp".into())
            ]
        );
        let u = parse_use("use, intrinsic :: iso_fortran_env").unwrap();
        assert_eq!(u.module, "intrinsic :: iso_fortran_env");
        assert!(parse_use("user = 1").is_none());
        let u = parse_use("use m").unwrap();
        assert!(!u.only && u.items.is_empty());
    }
}
