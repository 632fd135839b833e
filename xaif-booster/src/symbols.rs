//! Symbol lookup through the scope hierarchy, activity of variable uses, and
//! fresh names for booster temporaries.

use std::collections::{HashMap, HashSet};
use xaif_schema::model::{
    ActiveUse, CallGraph, Symbol, SymbolKind, SymbolShape, SymbolType, VariableReference,
};

use crate::expr::base_symbol;

/// What the booster needs to know about a symbol.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SymbolInfo {
    pub type_: SymbolType,
    pub shape: SymbolShape,
    pub active: bool,
}

/// All symbols of a call graph, by scope, with the parent of each scope.
pub struct SymbolIndex {
    symbols: HashMap<(u64, String), SymbolInfo>,
    parent: HashMap<u64, u64>,
    scopes: HashSet<u64>,
    all_names: HashSet<String>,
}

impl SymbolIndex {
    pub fn new(cg: &CallGraph) -> SymbolIndex {
        let mut symbols = HashMap::new();
        let mut scopes = HashSet::new();
        let mut all_names = HashSet::new();
        for scope in &cg.scope_hierarchy.scopes {
            let Ok(id) = scope.vertex_id.parse::<u64>() else {
                continue;
            };
            scopes.insert(id);
            for table in &scope.symbol_tables {
                for s in &table.symbols {
                    all_names.insert(s.symbol_id.to_ascii_lowercase());
                    symbols.insert(
                        (id, s.symbol_id.clone()),
                        SymbolInfo {
                            type_: s.type_,
                            shape: s.shape,
                            active: s.active,
                        },
                    );
                }
            }
        }
        // Scope hierarchy edges go from the child to its parent.
        let mut parent = HashMap::new();
        for e in &cg.scope_hierarchy.edges {
            if let (Ok(child), Ok(p)) = (e.source.parse::<u64>(), e.target.parse::<u64>()) {
                parent.insert(child, p);
            }
        }
        SymbolIndex {
            symbols,
            parent,
            scopes,
            all_names,
        }
    }

    pub fn has_scope(&self, scope: u64) -> bool {
        self.scopes.contains(&scope)
    }

    /// The symbol `id` as seen from `scope`: that scope first, then its
    /// ancestors.
    pub fn lookup(&self, scope: u64, id: &str) -> Option<SymbolInfo> {
        let mut current = scope;
        // The depth bound protects against a cyclic hierarchy in bad input.
        for _ in 0..=self.scopes.len() {
            if let Some(info) = self.symbols.get(&(current, id.to_string())) {
                return Some(*info);
            }
            current = *self.parent.get(&current)?;
        }
        None
    }

    /// Whether this use of a variable carries a derivative: the use's
    /// `active` attribute when given, else the symbol's; only real variables
    /// ever do.
    pub fn is_active_use(&self, r: &VariableReference) -> Result<bool, String> {
        let (id, scope) =
            base_symbol(r).ok_or_else(|| "variable reference without a symbol".to_string())?;
        let info = self
            .lookup(scope, id)
            .ok_or_else(|| format!("unknown symbol '{id}' in scope {scope}"))?;
        let declared = match r.active {
            ActiveUse::True => true,
            ActiveUse::False => false,
            ActiveUse::Undefined => info.active,
        };
        if !declared {
            return Ok(false);
        }
        match info.type_ {
            SymbolType::Real => Ok(true),
            SymbolType::Complex => Err(format!("active complex variable '{id}' is not supported")),
            _ => Ok(false),
        }
    }

    /// Type of the variable a reference names (for integer arguments).
    pub fn type_of(&self, r: &VariableReference) -> Option<SymbolType> {
        let (id, scope) = base_symbol(r)?;
        self.lookup(scope, id).map(|s| s.type_)
    }

    /// A name no scope uses yet; reserves it.
    pub fn fresh_name(&mut self, stem: &str) -> String {
        let mut candidate = stem.to_string();
        let mut k = 0;
        while self.all_names.contains(&candidate) {
            k += 1;
            candidate = format!("{stem}_{k}");
        }
        self.all_names.insert(candidate.clone());
        candidate
    }
}

/// A passive real scalar temporary the booster introduces.
pub fn temporary_symbol(name: &str) -> Symbol {
    Symbol {
        symbol_id: name.to_string(),
        kind: SymbolKind::Variable,
        type_: SymbolType::Real,
        fe_type: String::new(),
        shape: SymbolShape::Scalar,
        active: false,
        temp: true,
        pointer: false,
        annotation: String::new(),
        dimension_bounds: Vec::new(),
    }
}
