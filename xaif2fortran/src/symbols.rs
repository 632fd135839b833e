//! The back end's view of the shared XAIF index
//! (`xaif_schema::index`): the index itself (scopes and symbols, the scope
//! of each canonical unit, control flow graphs and replacement lists by
//! unit tag and by subroutine name), reached through `Deref`, plus what
//! only code generation asks: which components, chains and complex
//! variables carry derivatives, and the activity of a callee's formals.

use std::ops::Deref;

use xaif_schema::index::ScopeIndex;
use xaif_schema::{CallGraph, Symbol, SymbolKind, SymbolType};

use crate::error::{Result, XaifLocator};

pub use xaif_schema::index::{unit_tag, UNIT_PREFIX};

/// The type scope of the parts of `complex(8)` variables (`type:complex`,
/// docs/xaif.md "Active complex data").
pub const COMPLEX_TYPE: &str = "complex";

/// The shared index of the call graph, with the back end's questions.
pub struct XaifIndex<'a> {
    index: xaif_schema::index::XaifIndex<'a>,
}

impl<'a> Deref for XaifIndex<'a> {
    type Target = xaif_schema::index::XaifIndex<'a>;
    fn deref(&self) -> &Self::Target {
        &self.index
    }
}

impl<'a> XaifIndex<'a> {
    /// Indexes `cg`; a malformed scope hierarchy is an error at the
    /// offending attribute of the XAIF.
    pub fn new(cg: &'a CallGraph, xaif: &XaifLocator) -> Result<Self> {
        let index = xaif_schema::index::XaifIndex::new(cg)
            .map_err(|e| xaif.error(&e.attribute(), e.to_string()))?;
        Ok(XaifIndex { index })
    }

    fn scope_index(&self) -> &ScopeIndex<'a> {
        self.index.scopes()
    }

    /// Whether component `component` of derived type `type_name` holds
    /// derivatives (`type(active)` in the type's declaration).
    pub fn is_active_component(&self, type_name: &str, component: &str) -> bool {
        self.scope_index()
            .type_scope(type_name)
            .and_then(|s| self.symbol(s, component))
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
            let Some(component) = self
                .scope_index()
                .type_scope(&ty)
                .and_then(|s| self.symbol(s, c))
            else {
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
        let index = self.scope_index();
        let found = index.chain(scope).find_map(|id| {
            index.scope_symbols(id).find(|sym| {
                let name = sym.symbol_id.as_str().to_ascii_lowercase();
                crate::components::is_component_path(&name)
                    && crate::components::bare_path(&name) == wanted
            })
        });
        found.is_some_and(|sym| sym.active)
    }

    /// Whether a symbol is a variable of a derived type with an active
    /// component (its `feType` is `type(NAME)`).
    pub fn has_active_components(&self, sym: &Symbol) -> bool {
        let fe = sym.fe_type.as_str().to_ascii_lowercase().replace(' ', "");
        let Some(name) = fe.strip_prefix("type(").and_then(|t| t.strip_suffix(')')) else {
            return false;
        };
        self.scope_index()
            .type_scope(name)
            .is_some_and(|s| self.scope_symbols(s).any(|c| c.active))
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

    /// The symbols declared in exactly scope `scope`, in declaration order.
    pub fn scope_symbols(&self, scope: u64) -> impl Iterator<Item = &'a Symbol> + '_ {
        self.scope_index().scope_symbols(scope)
    }

    /// The symbol `name` declared in exactly scope `scope`.
    pub fn symbol(&self, scope: u64, name: &str) -> Option<&'a Symbol> {
        self.scope_index().symbol(scope, name)
    }

    /// The symbol `name` as seen from scope `scope` (host and module
    /// scopes through the scope hierarchy).
    pub fn resolve(&self, scope: u64, name: &str) -> Option<&'a Symbol> {
        self.scope_index().resolve(scope, name)
    }

    /// The scope that declares `name` as seen from scope `scope`.
    pub fn resolve_scope(&self, scope: u64, name: &str) -> Option<u64> {
        self.scope_index().resolve_scope(scope, name)
    }

    /// All symbols of a scope, in declaration order.
    pub fn symbols_of(&self, scope: u64) -> Vec<&'a Symbol> {
        self.scope_symbols(scope).collect()
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

    /// Whether the symbol `name` seen from `scope` is an active variable.
    pub fn is_active(&self, scope: u64, name: &str) -> bool {
        self.resolve(scope, name)
            .is_some_and(|s| s.active && s.kind == SymbolKind::Variable)
    }
}
