//! The booster's view of the shared scope index
//! (`xaif_schema::index::ScopeIndex`): symbols as [`SymbolInfo`], the
//! activity of variable uses, and whether a name is taken (for fresh
//! names of booster temporaries).

use xaif_schema::index::{IndexError, ScopeIndex};
use xaif_schema::model::{
    ActiveUse, DimensionBounds, ScopeHierarchy, Symbol, SymbolKind, SymbolShape, SymbolType,
    VariableReference,
};

use crate::error::{BoostError, StatementError};
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

impl SymbolInfo {
    fn of(s: &Symbol) -> Self {
        SymbolInfo {
            type_: s.type_,
            shape: s.shape,
            active: s.active,
            pointer: s.pointer,
            assumed_size: s.annotation == xaif_schema::model::ASSUMED_SIZE_ANNOTATION,
            constant: s.annotation == xaif_schema::model::CONSTANT_ANNOTATION,
        }
    }
}

/// The symbols of a call graph's scope hierarchy, borrowed: the booster
/// moves graphs out of the model while it works, never the scopes, and
/// adds its temporaries to the scopes only once the index is dropped.
pub struct SymbolIndex<'a> {
    scopes: ScopeIndex<'a>,
}

impl<'a> SymbolIndex<'a> {
    pub fn new(hierarchy: &'a ScopeHierarchy) -> Result<Self, BoostError> {
        let scopes = ScopeIndex::new(hierarchy).map_err(|e: IndexError| BoostError {
            statement_id: None,
            cfg_symbol: None,
            kind: xaif_schema::diagnostic::Kind::Semantic,
            message: e.to_string(),
        })?;
        Ok(SymbolIndex { scopes })
    }

    /// The shared index underneath.
    pub fn scopes(&self) -> &ScopeIndex<'a> {
        &self.scopes
    }

    pub fn has_scope(&self, scope: u64) -> bool {
        self.scopes.has_scope(scope)
    }

    /// The symbol `id` as seen from `scope`: that scope first, then its
    /// ancestors.
    pub fn lookup(&self, scope: u64, id: &str) -> Option<SymbolInfo> {
        self.scopes.resolve(scope, id).map(SymbolInfo::of)
    }

    /// The declared bounds of array `id` as seen from `scope` (empty when
    /// the declaration gives none: assumed shape, allocatable, ...).
    pub fn dimension_bounds(&self, scope: u64, id: &str) -> &'a [DimensionBounds] {
        self.scopes
            .resolve(scope, id)
            .map_or(&[], |s| s.dimension_bounds.as_slice())
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
        self.scopes.is_declared_anywhere(name)
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
