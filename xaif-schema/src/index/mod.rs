//! One index over a call graph that every consumer of XAIF shares: the
//! resolved scopes and symbols (`scopes.rs`), the control flow graphs and
//! replacement lists of each unit (`units.rs`), the variables each
//! unit's graphs reference (`references.rs`), and the nesting of loops and
//! branches in a structured control flow graph (`nesting.rs`).
//!
//! The index borrows the model and copies nothing but keys: a symbol name
//! that is already lower case is a borrowed key, so building it allocates
//! one hash table entry per symbol and per graph. It is built once, after
//! reading, from a `&CallGraph` ([`XaifIndex::new`]); a stage that moves
//! graphs out of the model while it works builds only the [`ScopeIndex`]
//! from the scope hierarchy, which it does not move.
//!
//! Names are matched ignoring ASCII case (Fortran's rule, and what the
//! front end writes: every name in lower case). Annotations `unit:TAG` tie
//! a scope, a control flow graph or a replacement list to the unit `TAG`
//! of the canonical source; `type:NAME` names the scope of derived type
//! NAME's components.
//!
//! ```
//! use xaif_schema::index::XaifIndex;
//! let cg = xaif_schema::read::read_call_graph(
//!     r#"<xaif:CallGraph xmlns:xaif="http://www.mcs.anl.gov/XAIF" program_name="p">
//!   <xaif:ScopeHierarchy>
//!     <xaif:Scope vertex_id="1"><xaif:SymbolTable>
//!       <xaif:Symbol symbol_id="g" kind="variable" type="real"/>
//!     </xaif:SymbolTable></xaif:Scope>
//!     <xaif:Scope vertex_id="2" annotation="unit:u1"><xaif:SymbolTable/></xaif:Scope>
//!     <xaif:ScopeEdge edge_id="1" source="2" target="1"/>
//!   </xaif:ScopeHierarchy>
//! </xaif:CallGraph>"#,
//!     "p.xaif",
//! )
//! .unwrap();
//! let index = XaifIndex::new(&cg).unwrap();
//! let unit = index.unit_scope("u1").unwrap();
//! assert_eq!(index.scopes().resolve_scope(unit, "G"), Some(1));
//! ```

pub mod nesting;
mod references;
mod scopes;
mod units;

use std::collections::HashMap;

use crate::model::{CallGraph, ControlFlowGraph, ReplacementList};

pub use references::{unit_references, UnitReferences};
pub use scopes::ScopeIndex;
pub use units::{UnitGraph, UnitIndex};

/// Prefix of the annotation that ties a scope or graph to a unit.
pub const UNIT_PREFIX: &str = "unit:";

/// Prefix of the annotation of a derived type's component scope.
pub const TYPE_PREFIX: &str = "type:";

/// The unit tag of an annotation `unit:TAG`.
pub fn unit_tag(annotation: &str) -> Option<&str> {
    annotation.strip_prefix(UNIT_PREFIX).map(str::trim)
}

/// Why an index could not be built: the document's scope hierarchy is
/// not one (the reader checks ids are unique, not that they are numbers).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum IndexError {
    #[error("scope vertex_id '{vertex_id}' is not a number")]
    ScopeId { vertex_id: String },
    #[error("scope edge '{edge_id}' does not join two scope ids")]
    ScopeEdge { edge_id: String, from: String },
}

impl IndexError {
    /// The attribute of the offending element as written in the document
    /// (`name="value"`), for a consumer that places the error by it.
    pub fn attribute(&self) -> String {
        match self {
            IndexError::ScopeId { vertex_id } => format!("vertex_id=\"{vertex_id}\""),
            IndexError::ScopeEdge { from, .. } => format!("source=\"{from}\""),
        }
    }
}

/// Scopes, symbols and units of one call graph.
pub struct XaifIndex<'a> {
    scopes: ScopeIndex<'a>,
    units: UnitIndex<'a>,
    /// Unit tag → its scope: the scope annotated `unit:TAG`, else the
    /// scope of the unit's graph.
    unit_scopes: HashMap<&'a str, u64>,
    /// Scope → the first unit tag naming it.
    scope_units: HashMap<u64, &'a str>,
}

impl<'a> XaifIndex<'a> {
    pub fn new(cg: &'a CallGraph) -> Result<Self, IndexError> {
        let scopes = ScopeIndex::new(&cg.scope_hierarchy)?;
        let units = UnitIndex::new(&cg.vertices);
        let mut unit_scopes: HashMap<&'a str, u64> = HashMap::new();
        let mut order: Vec<&'a str> = Vec::new();
        for (tag, scope) in scopes.unit_scopes() {
            if unit_scopes.insert(tag, scope).is_none() {
                order.push(tag);
            }
        }
        for graph in units.graphs() {
            if let Some(tag) = graph.tag {
                if let std::collections::hash_map::Entry::Vacant(e) = unit_scopes.entry(tag) {
                    e.insert(graph.scope);
                    order.push(tag);
                }
            }
        }
        let mut scope_units = HashMap::new();
        for tag in order {
            scope_units.entry(unit_scopes[tag]).or_insert(tag);
        }
        Ok(XaifIndex {
            scopes,
            units,
            unit_scopes,
            scope_units,
        })
    }

    /// Scopes and symbols.
    pub fn scopes(&self) -> &ScopeIndex<'a> {
        &self.scopes
    }

    /// Graphs by unit and by subroutine name.
    pub fn units(&self) -> &UnitIndex<'a> {
        &self.units
    }

    /// The scope of unit `tag`.
    pub fn unit_scope(&self, tag: &str) -> Option<u64> {
        self.unit_scopes.get(tag).copied()
    }

    /// The tag of the unit a scope belongs to.
    pub fn unit_of_scope(&self, scope: u64) -> Option<&'a str> {
        self.scope_units.get(&scope).copied()
    }

    /// The control flow graph of unit `tag` (a passive or input unit).
    pub fn cfg_of_unit(&self, tag: &str) -> Option<&'a ControlFlowGraph> {
        self.units.cfg_of_unit(tag)
    }

    /// The control flow graph of subroutine `name`.
    pub fn cfg_named(&self, name: &str) -> Option<&'a ControlFlowGraph> {
        self.units.cfg_named(name)
    }

    /// The replacement list of unit `tag` (an adjoint unit).
    pub fn replacements_of_unit(&self, tag: &str) -> Option<&'a ReplacementList> {
        self.units.replacements_of_unit(tag)
    }

    /// The replacement list of subroutine `name`.
    pub fn replacement_list_named(&self, name: &str) -> Option<&'a ReplacementList> {
        self.units.replacement_list_named(name)
    }
}

/// `name` in lower case, borrowed when it already is.
pub(crate) fn folded(name: &str) -> std::borrow::Cow<'_, str> {
    if name.bytes().any(|b| b.is_ascii_uppercase()) {
        std::borrow::Cow::Owned(name.to_ascii_lowercase())
    } else {
        std::borrow::Cow::Borrowed(name)
    }
}

#[cfg(test)]
mod tests;
