//! The scope hierarchy resolved: each scope's symbols by name and its
//! parent, the lookup of a name from a scope up the chain of enclosing
//! scopes, the scopes of units (`unit:TAG`) and of derived types'
//! components (`type:NAME`).

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

use super::{folded, unit_tag, IndexError, TYPE_PREFIX};
use crate::model::{Scope, ScopeHierarchy, Symbol};

/// One scope: its symbols in declaration order and by folded name.
struct ScopeEntry<'a> {
    scope: &'a Scope,
    parent: Option<u64>,
    symbols: Vec<&'a Symbol>,
    by_name: HashMap<Cow<'a, str>, &'a Symbol>,
}

/// The scopes of a call graph, borrowed from its scope hierarchy.
pub struct ScopeIndex<'a> {
    scopes: HashMap<u64, ScopeEntry<'a>>,
    /// Scope ids in document order.
    order: Vec<u64>,
    /// `type:NAME` scopes by folded NAME.
    type_scopes: HashMap<Cow<'a, str>, u64>,
    /// Every folded name some scope declares.
    names: HashSet<Cow<'a, str>>,
}

fn scope_number(scope: &Scope) -> Result<u64, IndexError> {
    scope
        .vertex_id
        .trim()
        .parse()
        .map_err(|_| IndexError::ScopeId {
            vertex_id: scope.vertex_id.to_string(),
        })
}

impl<'a> ScopeIndex<'a> {
    /// Indexes `hierarchy`. A symbol declared twice in one scope is its
    /// last declaration; a scope with two parents keeps the last edge's.
    pub fn new(hierarchy: &'a ScopeHierarchy) -> Result<Self, IndexError> {
        let mut scopes = HashMap::with_capacity(hierarchy.scopes.len());
        let mut order = Vec::with_capacity(hierarchy.scopes.len());
        let mut type_scopes = HashMap::new();
        let mut names = HashSet::new();
        for scope in &hierarchy.scopes {
            let id = scope_number(scope)?;
            let symbols: Vec<&Symbol> = scope
                .symbol_tables
                .iter()
                .flat_map(|t| &t.symbols)
                .collect();
            let by_name: HashMap<_, _> =
                symbols.iter().map(|&s| (folded(&s.symbol_id), s)).collect();
            names.extend(by_name.keys().cloned());
            if let Some(name) = scope.annotation.strip_prefix(TYPE_PREFIX) {
                type_scopes.insert(Cow::Owned(name.trim().to_ascii_lowercase()), id);
            }
            order.push(id);
            scopes.insert(
                id,
                ScopeEntry {
                    scope,
                    parent: None,
                    symbols,
                    by_name,
                },
            );
        }
        // Edges go from the child to its parent.
        for e in &hierarchy.edges {
            let (Ok(child), Ok(parent)) = (
                e.source.trim().parse::<u64>(),
                e.target.trim().parse::<u64>(),
            ) else {
                return Err(IndexError::ScopeEdge {
                    edge_id: e.edge_id.to_string(),
                    from: e.source.to_string(),
                });
            };
            if let Some(entry) = scopes.get_mut(&child) {
                entry.parent = Some(parent);
            }
        }
        Ok(ScopeIndex {
            scopes,
            order,
            type_scopes,
            names,
        })
    }

    /// Whether the hierarchy has scope `scope`.
    pub fn has_scope(&self, scope: u64) -> bool {
        self.scopes.contains_key(&scope)
    }

    /// The scope element `scope`.
    pub fn scope(&self, scope: u64) -> Option<&'a Scope> {
        self.scopes.get(&scope).map(|e| e.scope)
    }

    /// The enclosing scope of `scope`.
    pub fn parent(&self, scope: u64) -> Option<u64> {
        self.scopes.get(&scope)?.parent
    }

    /// `scope` and its enclosing scopes, innermost first (a cycle in bad
    /// input ends after as many steps as there are scopes).
    pub fn chain(&self, scope: u64) -> impl Iterator<Item = u64> + '_ {
        std::iter::successors(Some(scope), |&s| self.parent(s))
            .take(self.scopes.len() + 1)
            .take_while(|s| self.scopes.contains_key(s))
    }

    /// The symbol `name` declared in exactly scope `scope`.
    pub fn symbol(&self, scope: u64, name: &str) -> Option<&'a Symbol> {
        self.scopes
            .get(&scope)?
            .by_name
            .get(folded(name).as_ref())
            .copied()
    }

    /// The symbols declared in exactly scope `scope`, in declaration order
    /// (a name declared twice: its last declaration, as [`Self::symbol`]).
    pub fn scope_symbols(&self, scope: u64) -> impl Iterator<Item = &'a Symbol> + '_ {
        self.scopes.get(&scope).into_iter().flat_map(|e| {
            e.symbols.iter().copied().filter(|&s| {
                e.by_name
                    .get(folded(&s.symbol_id).as_ref())
                    .is_some_and(|&winner| std::ptr::eq(winner, s))
            })
        })
    }

    /// The scope declaring `name` as seen from `scope` (that scope first,
    /// then host and module scopes up the hierarchy).
    pub fn resolve_scope(&self, scope: u64, name: &str) -> Option<u64> {
        let key = folded(name);
        self.chain(scope)
            .find(|s| self.scopes[s].by_name.contains_key(key.as_ref()))
    }

    /// The symbol `name` as seen from `scope`.
    pub fn resolve(&self, scope: u64, name: &str) -> Option<&'a Symbol> {
        let key = folded(name);
        self.chain(scope)
            .find_map(|s| self.scopes[&s].by_name.get(key.as_ref()).copied())
    }

    /// The scope of derived type `name`'s components (`type:NAME`).
    pub fn type_scope(&self, name: &str) -> Option<u64> {
        self.type_scopes.get(folded(name).as_ref()).copied()
    }

    /// Whether some scope declares `name`.
    pub fn is_declared_anywhere(&self, name: &str) -> bool {
        self.names.contains(folded(name).as_ref())
    }

    /// Scope ids in document order.
    pub fn ids(&self) -> &[u64] {
        &self.order
    }

    /// Scopes annotated `unit:TAG`, as (TAG, scope) in document order.
    pub(super) fn unit_scopes(&self) -> impl Iterator<Item = (&'a str, u64)> + '_ {
        self.order
            .iter()
            .filter_map(|id| unit_tag(&self.scopes[id].scope.annotation).map(|t| (t, *id)))
    }
}
