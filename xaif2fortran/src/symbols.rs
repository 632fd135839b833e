//! Lookup tables over the XAIF call graph: scopes and their symbols, the
//! scope of each canonical unit, control flow graphs and replacement lists
//! by unit tag and by subroutine name.

use std::collections::HashMap;

use xaif_schema::{
    CallGraph, CallGraphVertex, ControlFlowGraph, ReplacementList, Scope, Symbol, SymbolKind,
    SymbolType,
};

use crate::error::{Result, XaifLocator};

/// Prefix of `Scope/@annotation` and `ControlFlowGraph/@annotation`.
pub const UNIT_PREFIX: &str = "unit:";

struct ScopeInfo<'a> {
    symbols: HashMap<String, &'a Symbol>,
    parent: Option<u64>,
}

/// Indexes of the call graph the unparser needs.
/// The type scope of the parts of `complex(8)` variables (`type:complex`,
/// docs/xaif.md "Active complex data").
pub const COMPLEX_TYPE: &str = "complex";

pub struct XaifIndex<'a> {
    scopes: HashMap<u64, ScopeInfo<'a>>,
    unit_scopes: HashMap<String, u64>,
    cfgs_by_unit: HashMap<String, &'a ControlFlowGraph>,
    cfgs_by_name: HashMap<String, &'a ControlFlowGraph>,
    replacements_by_unit: HashMap<String, &'a ReplacementList>,
    replacements_by_name: HashMap<String, &'a ReplacementList>,
    /// Scopes `type:NAME`: the real components of derived type NAME.
    type_scopes: HashMap<String, u64>,
}

/// The unit tag of an annotation `unit:TAG`.
pub fn unit_tag(annotation: &str) -> Option<&str> {
    annotation.strip_prefix(UNIT_PREFIX).map(str::trim)
}

fn scope_number(scope: &Scope, xaif: &XaifLocator) -> Result<u64> {
    scope.vertex_id.trim().parse().map_err(|_| {
        xaif.error(
            &format!("vertex_id=\"{}\"", scope.vertex_id),
            format!("scope vertex_id '{}' is not a number", scope.vertex_id),
        )
    })
}

impl<'a> XaifIndex<'a> {
    pub fn new(cg: &'a CallGraph, xaif: &XaifLocator) -> Result<Self> {
        let mut scopes = HashMap::new();
        let mut unit_scopes = HashMap::new();
        let mut type_scopes = HashMap::new();
        for scope in &cg.scope_hierarchy.scopes {
            let id = scope_number(scope, xaif)?;
            let mut symbols = HashMap::new();
            for table in &scope.symbol_tables {
                for s in &table.symbols {
                    symbols.insert(s.symbol_id.as_str().to_ascii_lowercase().to_string(), s);
                }
            }
            if let Some(tag) = unit_tag(&scope.annotation) {
                unit_scopes.insert(tag.to_string(), id);
            }
            if let Some(name) = scope.annotation.strip_prefix("type:") {
                type_scopes.insert(name.trim().to_ascii_lowercase(), id);
            }
            scopes.insert(
                id,
                ScopeInfo {
                    symbols,
                    parent: None,
                },
            );
        }
        for e in &cg.scope_hierarchy.edges {
            let (Ok(child), Ok(parent)) = (
                e.source.trim().parse::<u64>(),
                e.target.trim().parse::<u64>(),
            ) else {
                return Err(xaif.error(
                    &format!("source=\"{}\"", e.source),
                    format!("scope edge '{}' does not join two scope ids", e.edge_id),
                ));
            };
            if let Some(info) = scopes.get_mut(&child) {
                info.parent = Some(parent);
            }
        }
        let mut cfgs_by_unit = HashMap::new();
        let mut cfgs_by_name = HashMap::new();
        let mut replacements_by_unit = HashMap::new();
        let mut replacements_by_name = HashMap::new();
        for v in &cg.vertices {
            match v {
                CallGraphVertex::ControlFlowGraph(cfg) => {
                    if let Some(tag) = unit_tag(&cfg.annotation) {
                        cfgs_by_unit.insert(tag.to_string(), cfg);
                        unit_scopes
                            .entry(tag.to_string())
                            .or_insert(cfg.controlflowgraph_scope_id);
                    }
                    cfgs_by_name
                        .insert(cfg.symbol_id.as_str().to_ascii_lowercase().to_string(), cfg);
                }
                CallGraphVertex::ReplacementList(rl) => {
                    replacements_by_name
                        .insert(rl.symbol_id.as_str().to_ascii_lowercase().to_string(), rl);
                    if let Some(tag) = unit_tag(&rl.annotation) {
                        replacements_by_unit.insert(tag.to_string(), rl);
                        unit_scopes
                            .entry(tag.to_string())
                            .or_insert(rl.controlflowgraph_scope_id);
                    }
                }
            }
        }
        Ok(XaifIndex {
            scopes,
            unit_scopes,
            cfgs_by_unit,
            cfgs_by_name,
            replacements_by_unit,
            replacements_by_name,
            type_scopes,
        })
    }

    /// Whether component `component` of derived type `type_name` holds
    /// derivatives (`type(active)` in the type's declaration).
    pub fn is_active_component(&self, type_name: &str, component: &str) -> bool {
        self.type_scopes
            .get(&type_name.to_ascii_lowercase())
            .and_then(|&s| self.symbol(s, component))
            .is_some_and(|s| s.active)
    }

    /// Whether the reference chain `base%c1%...%leaf` seen from `scope`
    /// ends in an active component (types from the symbols' `feType`).
    pub fn is_active_chain(&self, scope: u64, chain: &[String]) -> bool {
        let Some((base, components)) = chain.split_first() else {
            return false;
        };
        let type_of = |s: &Symbol| {
            let fe = s.fe_type.as_str().to_ascii_lowercase().replace(' ', "");
            fe.strip_prefix("type(")
                .and_then(|t| t.strip_suffix(')'))
                .map(str::to_string)
        };
        let Some(mut ty) = self.resolve(scope, base).and_then(type_of) else {
            return false;
        };
        for (k, c) in components.iter().enumerate() {
            let Some(component) = self.type_scopes.get(&ty).and_then(|&s| self.symbol(s, c)) else {
                return self.is_active_flattened_path(scope, chain);
            };
            if k + 1 == components.len() {
                return component.active;
            }
            match type_of(component) {
                Some(t) => ty = t,
                None => return false,
            }
        }
        false
    }

    /// Whether the front end's flattened symbol of the path `chain`
    /// (`r%cells(1)%depth` for `r%cells%depth`, subscripts aside), seen
    /// from `scope`, is active. A type whose components are all of
    /// derived type (`reach` holding `cells(:)` of type `cell`) has no
    /// type scope, so the chain cannot be followed through it.
    fn is_active_flattened_path(&self, scope: u64, chain: &[String]) -> bool {
        let wanted = chain.join("%");
        let mut s = Some(scope);
        while let Some(id) = s {
            let Some(info) = self.scopes.get(&id) else {
                return false;
            };
            let found = info.symbols.iter().find(|(name, _)| {
                crate::components::is_component_path(name)
                    && crate::components::bare_path(name) == wanted
            });
            if let Some((_, sym)) = found {
                return sym.active;
            }
            s = info.parent;
        }
        false
    }

    /// Whether a symbol is a variable of a derived type with an active
    /// component (its `feType` is `type(NAME)`).
    pub fn has_active_components(&self, sym: &Symbol) -> bool {
        let fe = sym.fe_type.as_str().to_ascii_lowercase().replace(' ', "");
        let Some(name) = fe.strip_prefix("type(").and_then(|t| t.strip_suffix(')')) else {
            return false;
        };
        self.type_scopes
            .get(name)
            .is_some_and(|&s| self.symbols_of(s).iter().any(|c| c.active))
    }

    /// Whether symbol `sym` of scope `scope` is a `complex(8)` variable
    /// whose parts carry derivatives (declared `type(active_c)`,
    /// docs/backend.md): it has parts (`z%re` in its scope; parameters
    /// and pointers have none) and the parts are active.
    pub fn is_active_complex(&self, scope: u64, sym: &Symbol) -> bool {
        let name = sym.symbol_id.as_str().to_ascii_lowercase();
        let rank = sym.shape.rank();
        let part = if rank > 0 {
            format!("{name}({rank})%re")
        } else {
            format!("{name}%re")
        };
        sym.type_ == SymbolType::Complex
            && sym.kind == SymbolKind::Variable
            && self.symbol(scope, &part).is_some()
            && self.is_active_component(COMPLEX_TYPE, "re")
    }

    /// The symbols declared in exactly scope `scope`.
    pub fn scope_symbols(&self, scope: u64) -> impl Iterator<Item = &'a Symbol> + '_ {
        self.scopes
            .get(&scope)
            .into_iter()
            .flat_map(|s| s.symbols.values().copied())
    }

    /// The symbol `name` declared in exactly scope `scope`.
    pub fn symbol(&self, scope: u64, name: &str) -> Option<&'a Symbol> {
        self.scopes
            .get(&scope)
            .and_then(|s| s.symbols.get(&name.to_ascii_lowercase()).copied())
    }

    /// The symbol `name` as seen from scope `scope` (host and module
    /// scopes through the scope hierarchy).
    pub fn resolve(&self, scope: u64, name: &str) -> Option<&'a Symbol> {
        let mut cur = Some(scope);
        let mut steps = 0;
        while let Some(id) = cur {
            let info = self.scopes.get(&id)?;
            if let Some(s) = info.symbols.get(&name.to_ascii_lowercase()) {
                return Some(s);
            }
            cur = info.parent;
            steps += 1;
            if steps > self.scopes.len() {
                return None;
            }
        }
        None
    }

    /// The scope that declares `name` as seen from scope `scope`.
    pub fn resolve_scope(&self, scope: u64, name: &str) -> Option<u64> {
        let mut cur = Some(scope);
        let mut steps = 0;
        while let Some(id) = cur {
            let info = self.scopes.get(&id)?;
            if info.symbols.contains_key(&name.to_ascii_lowercase()) {
                return Some(id);
            }
            cur = info.parent;
            steps += 1;
            if steps > self.scopes.len() {
                return None;
            }
        }
        None
    }

    /// The scope describing unit `tag`.
    pub fn unit_scope(&self, tag: &str) -> Option<u64> {
        self.unit_scopes.get(tag).copied()
    }

    /// The tag of the unit a scope describes.
    pub fn unit_of_scope(&self, scope: u64) -> Option<&str> {
        self.unit_scopes
            .iter()
            .find(|(_, s)| **s == scope)
            .map(|(t, _)| t.as_str())
    }

    /// All symbols of a scope (no order guaranteed).
    pub fn symbols_of(&self, scope: u64) -> Vec<&'a Symbol> {
        self.scopes
            .get(&scope)
            .map(|s| s.symbols.values().copied().collect())
            .unwrap_or_default()
    }

    pub fn cfg_of_unit(&self, tag: &str) -> Option<&'a ControlFlowGraph> {
        self.cfgs_by_unit.get(tag).copied()
    }

    pub fn cfg_named(&self, name: &str) -> Option<&'a ControlFlowGraph> {
        self.cfgs_by_name.get(&name.to_ascii_lowercase()).copied()
    }

    pub fn replacements_of_unit(&self, tag: &str) -> Option<&'a ReplacementList> {
        self.replacements_by_unit.get(tag).copied()
    }

    pub fn replacement_list_named(&self, name: &str) -> Option<&'a ReplacementList> {
        self.replacements_by_name
            .get(&name.to_ascii_lowercase())
            .copied()
    }

    /// Activity of the formal arguments of subroutine `name` by position,
    /// if the XAIF has its control flow graph or replacement list.
    pub fn formal_activity(&self, name: &str) -> Option<Vec<(u64, bool)>> {
        let (scope, list) = if let Some(cfg) = self.cfg_named(name) {
            (cfg.controlflowgraph_scope_id, cfg.argument_list.as_ref()?)
        } else {
            let rl = self.replacement_list_named(name)?;
            (rl.controlflowgraph_scope_id, rl.argument_list.as_ref()?)
        };
        Some(
            list.iter()
                .map(|a| {
                    let sym = self
                        .symbol(a.scope_id, &a.symbol_id)
                        .or_else(|| self.symbol(scope, &a.symbol_id));
                    (a.position, sym.is_some_and(|s| s.active))
                })
                .collect(),
        )
    }

    /// Unit tags named by control flow graphs and replacement lists.
    pub fn referenced_units(&self) -> impl Iterator<Item = &String> {
        self.cfgs_by_unit
            .keys()
            .chain(self.replacements_by_unit.keys())
    }

    /// Whether the symbol `name` seen from `scope` is an active variable.
    pub fn is_active(&self, scope: u64, name: &str) -> bool {
        self.resolve(scope, name)
            .is_some_and(|s| s.active && s.kind == xaif_schema::SymbolKind::Variable)
    }
}
