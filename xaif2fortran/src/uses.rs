//! Names made visible by `use` statements. The XAIF refers to a module
//! variable by its name in the module; a unit may know it under another
//! name (`use m, only: local => name`), and opaque statements use the
//! local name. Built per unit from the `use` statements `P.decl` lists
//! (the unit's own and those of its hosts).

use std::collections::HashMap;

use xaif_schema::declarations::UnitKind;

use crate::canon::CanonSource;
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

/// Module name → the module's scope, for every module unit (`P.decl`'s
/// `unit` records).
pub(crate) fn module_scopes(index: &XaifIndex, canon: &CanonSource) -> HashMap<String, u64> {
    canon
        .declarations
        .units()
        .filter(|(_, h)| h.kind == UnitKind::Module)
        .filter_map(|(tag, h)| Some((h.name.clone(), index.unit_scope(tag)?)))
        .collect()
}

/// Local names of every unit of the canonical source.
pub fn local_names(index: &XaifIndex, canon: &CanonSource) -> HashMap<String, LocalNames> {
    let module_scope = module_scopes(index, canon);
    let module_units: HashMap<u64, String> = canon
        .declarations
        .units()
        .filter(|(_, h)| h.kind == UnitKind::Module)
        .filter_map(|(tag, _)| Some((index.unit_scope(tag)?, tag.to_string())))
        .collect();
    let mut out = HashMap::new();
    for unit in &canon.units {
        let mut names = LocalNames {
            module_units: module_units.clone(),
            ..Default::default()
        };
        // The unit's own use statements first, then its hosts'.
        let mut cur = Some(unit.clone());
        while let Some(u) = cur {
            for stmt in canon.declarations.uses(&u) {
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
