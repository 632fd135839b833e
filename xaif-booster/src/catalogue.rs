//! The intrinsics catalogue: partial derivatives of every operator and
//! intrinsic as XAIF expressions over `ArgumentReference`s. The built-in
//! catalogue is `data/intrinsics.xaif`; `--intrinsics FILE` replaces it.

use std::collections::HashMap;
use std::path::Path;
use xaif_schema::model::{
    ExpressionVertex, InlinableIntrinsic, InlinableIntrinsicDefinitions, IntrinsicPartial,
    SymbolType,
};
use xaif_schema::XaifError;

use crate::error::StatementError;
use crate::expr::ExprView;

/// A catalogue that breaks the rules of partials (reported at the start of
/// its file: the definitions carry no positions once read).
#[derive(Debug, thiserror::Error)]
pub enum CatalogueError {
    #[error("intrinsic '{intrinsic}': {problem}")]
    Intrinsic { intrinsic: String, problem: String },
    #[error("intrinsic '{0}' is defined twice")]
    Twice(String),
}

/// The text of the built-in catalogue.
pub const BUILTIN_CATALOGUE: &str = include_str!("../data/intrinsics.xaif");

/// How a partial enters the chain rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PartialKind {
    /// Zero: no derivative flows through this argument.
    Passive,
    /// The constant one.
    One,
    /// The constant minus one.
    MinusOne,
    /// Anything else: evaluate the expression.
    General,
}

/// Catalogue entries by intrinsic name.
pub struct Catalogue {
    entries: HashMap<String, InlinableIntrinsic>,
}

impl Catalogue {
    /// The built-in catalogue.
    pub fn builtin() -> Result<Catalogue, XaifError> {
        Catalogue::parse(BUILTIN_CATALOGUE, "<built-in intrinsics.xaif>")
    }

    /// Reads a catalogue file.
    pub fn load(path: &Path) -> Result<Catalogue, XaifError> {
        let name = path.display().to_string();
        let text = std::fs::read_to_string(path)
            .map_err(|e| at_start(&name, format!("cannot read: {e}")))?;
        Catalogue::parse(&text, &name)
    }

    pub fn parse(text: &str, file_name: &str) -> Result<Catalogue, XaifError> {
        let defs = xaif_schema::read::read_inlinable_intrinsics(text, file_name)?;
        Catalogue::from_definitions(defs).map_err(|e| at_start(file_name, e.to_string()))
    }

    /// Checks that every partial is well formed: ids within the argument
    /// count, argument references within range, expressions acyclic.
    pub fn from_definitions(
        defs: InlinableIntrinsicDefinitions,
    ) -> Result<Catalogue, CatalogueError> {
        let mut entries = HashMap::new();
        for ii in defs.intrinsics {
            let wrong = |problem: String| CatalogueError::Intrinsic {
                intrinsic: ii.name.clone(),
                problem,
            };
            for p in &ii.partials {
                if p.partial_id == 0 || p.partial_id > ii.nr_arguments {
                    return Err(wrong(format!(
                        "partial_id {} outside 1..{}",
                        p.partial_id, ii.nr_arguments
                    )));
                }
                let partial = |e: StatementError| wrong(format!("partial {}: {e}", p.partial_id));
                let view = ExprView::new(&p.expression).map_err(partial)?;
                view.root().map_err(partial)?;
                for v in &p.expression.vertices {
                    if let ExpressionVertex::ArgumentReference(a) = v {
                        if a.argument > ii.nr_arguments {
                            return Err(wrong(format!(
                                "partial {} refers to argument {}",
                                p.partial_id, a.argument
                            )));
                        }
                    }
                }
            }
            let name = ii.name.clone();
            if entries.insert(name.clone(), ii).is_some() {
                return Err(CatalogueError::Twice(name));
            }
        }
        Ok(Catalogue { entries })
    }

    pub fn get(&self, name: &str) -> Option<&InlinableIntrinsic> {
        self.entries.get(name)
    }

    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.entries.keys().map(|k| k.as_str())
    }

    /// The partial of `name` with respect to argument `argument` (from 1);
    /// a missing partial means no derivative flows through that argument.
    pub fn partial(&self, name: &str, argument: u64) -> Option<&IntrinsicPartial> {
        self.get(name)?
            .partials
            .iter()
            .find(|p| p.partial_id == argument)
    }

    /// Whether the result of `name` can carry a derivative at all.
    pub fn has_real_result(&self, name: &str) -> bool {
        self.get(name)
            .is_some_and(|ii| matches!(ii.return_type, SymbolType::Real))
    }
}

/// An error about the file as a whole, reported at its first line.
fn at_start(file: &str, message: String) -> XaifError {
    XaifError {
        file: file.to_string(),
        line: 1,
        column: 1,
        message,
    }
}

/// The kind of a catalogue partial: the declared `partial_type`, with the
/// constant expressions `0`, `1`, `-1` recognised whatever the declaration.
pub fn partial_kind(p: &IntrinsicPartial) -> PartialKind {
    match p.partial_type.as_str() {
        "passive" => return PartialKind::Passive,
        "linear_one" => return PartialKind::One,
        "linear_minus_one" => return PartialKind::MinusOne,
        _ => {}
    }
    if let [ExpressionVertex::Constant(c)] = p.expression.vertices.as_slice() {
        match crate::expr::exact_integer_literal(c) {
            Some(0) => return PartialKind::Passive,
            Some(1) => return PartialKind::One,
            Some(-1) => return PartialKind::MinusOne,
            _ => {}
        }
    }
    PartialKind::General
}
