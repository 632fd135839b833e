//! Symbol lookup through the scope hierarchy, activity of variable uses, and
//! fresh names for booster temporaries.

use std::collections::{HashMap, HashSet};
use xaif_schema::model::{
    ActiveUse, CallGraph, DimensionBounds, Symbol, SymbolKind, SymbolShape, SymbolType,
    VariableReference,
};

use crate::error::StatementError;
use crate::expr::base_symbol;

/// What the booster needs to know about a symbol.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SymbolInfo {
    pub type_: SymbolType,
    pub shape: SymbolShape,
    pub active: bool,
    /// A Fortran pointer: its target may change through another name, and
    /// its bounds with a pointer assignment.
    pub pointer: bool,
    /// An assumed-size dummy array (`a(*)`): no bounds to ask for.
    pub assumed_size: bool,
    /// A named constant (annotation `constant`): the same value everywhere.
    pub constant: bool,
}

/// All symbols of a call graph, by scope, with the parent of each scope.
pub struct SymbolIndex {
    symbols: HashMap<(u64, xaif_schema::Name), SymbolInfo>,
    /// Declared bounds of arrays (constant, as XAIF writes them).
    bounds: HashMap<(u64, xaif_schema::Name), Vec<DimensionBounds>>,
    parent: HashMap<u64, u64>,
    scopes: HashSet<u64>,
    all_names: HashSet<String>,
}

impl SymbolIndex {
    pub fn new(cg: &CallGraph) -> SymbolIndex {
        let mut symbols = HashMap::new();
        let mut scopes = HashSet::new();
        let mut all_names = HashSet::new();
        let mut bounds = HashMap::new();
        for scope in &cg.scope_hierarchy.scopes {
            let Ok(id) = scope.vertex_id.parse::<u64>() else {
                continue;
            };
            scopes.insert(id);
            for table in &scope.symbol_tables {
                for s in &table.symbols {
                    all_names.insert(s.symbol_id.to_ascii_lowercase().to_string());
                    if !s.dimension_bounds.is_empty() {
                        bounds.insert((id, s.symbol_id.clone()), s.dimension_bounds.clone());
                    }
                    symbols.insert(
                        (id, s.symbol_id.clone()),
                        SymbolInfo {
                            type_: s.type_,
                            shape: s.shape,
                            active: s.active,
                            pointer: s.pointer,
                            assumed_size: s.annotation
                                == xaif_schema::model::ASSUMED_SIZE_ANNOTATION,
                            constant: s.annotation == xaif_schema::model::CONSTANT_ANNOTATION,
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
            bounds,
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
        let declared = self.declaring_scope(scope, id)?;
        self.symbols
            .get(&(declared, xaif_schema::Name::from(id)))
            .copied()
    }

    /// The scope that declares `id` as seen from `scope`.
    fn declaring_scope(&self, scope: u64, id: &str) -> Option<u64> {
        let mut current = scope;
        // The depth bound protects against a cyclic hierarchy in bad input.
        for _ in 0..=self.scopes.len() {
            if self
                .symbols
                .contains_key(&(current, xaif_schema::Name::from(id)))
            {
                return Some(current);
            }
            current = *self.parent.get(&current)?;
        }
        None
    }

    /// The declared bounds of array `id` as seen from `scope` (empty when
    /// the declaration gives none: assumed shape, allocatable, ...).
    pub fn dimension_bounds(&self, scope: u64, id: &str) -> &[DimensionBounds] {
        self.declaring_scope(scope, id)
            .and_then(|d| self.bounds.get(&(d, xaif_schema::Name::from(id))))
            .map_or(&[], |b| b.as_slice())
    }

    /// Whether this use of a variable carries a derivative: the use's
    /// `active` attribute when given, else the symbol's; only real variables
    /// ever do.
    pub fn is_active_use(&self, r: &VariableReference) -> Result<bool, StatementError> {
        let (id, scope) = base_symbol(r)
            .ok_or_else(|| StatementError::semantic("variable reference without a symbol"))?;
        let info = self.lookup(scope, id).ok_or_else(|| {
            StatementError::semantic(format!("unknown symbol '{id}' in scope {scope}"))
        })?;
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
            SymbolType::Complex => Err(StatementError::unsupported(
                None,
                format!("active complex variable '{id}' is not supported"),
            )),
            _ => Ok(false),
        }
    }

    /// Whether a reference denotes one scalar value: a scalar symbol, or an
    /// array element with a plain subscript in every dimension.
    pub fn is_scalar_reference(&self, r: &VariableReference) -> bool {
        let Some((id, scope)) = base_symbol(r) else {
            return false;
        };
        let Some(info) = self.lookup(scope, id) else {
            return false;
        };
        if info.shape.rank() == 0 {
            return true;
        }
        let mut element = false;
        for v in &r.vertices {
            if let xaif_schema::model::VariableReferenceVertex::ArrayElementReference(a) = v {
                element = true;
                if a.index_triplets.len() != info.shape.rank()
                    || a.index_triplets
                        .iter()
                        .any(|t| t.index.is_none() || t.bound.is_some() || t.stride.is_some())
                {
                    return false;
                }
            }
        }
        element
    }

    /// Type of the variable a reference names (for integer arguments).
    pub fn type_of(&self, r: &VariableReference) -> Option<SymbolType> {
        let (id, scope) = base_symbol(r)?;
        self.lookup(scope, id).map(|s| s.type_)
    }

    /// Whether some scope of the program declares `name`.
    pub fn is_name_used(&self, name: &str) -> bool {
        self.all_names.contains(&name.to_ascii_lowercase())
    }
}

/// A passive real scalar temporary the booster introduces.
pub fn temporary_symbol(name: &str) -> Symbol {
    Symbol {
        symbol_id: name.to_string().into(),
        kind: SymbolKind::Variable,
        type_: SymbolType::Real,
        fe_type: Default::default(),
        shape: SymbolShape::Scalar,
        active: false,
        temp: true,
        pointer: false,
        annotation: Default::default(),
        dimension_bounds: Vec::new(),
    }
}
