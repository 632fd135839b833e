//! The booster's errors: a statement a transformation refuses
//! ([`StatementError`]) and the same error placed in its subroutine
//! ([`BoostError`]), rendered as a [`Diagnostic`] at the user's Fortran
//! when the front end's source map knows the statement, else at the XAIF.
//! Its own module so that the input preparation passes, the tangent and
//! the adjoint transformations share it without importing each other.

use xaif_schema::diagnostic::{Diagnostic, Kind, Location};
use xaif_schema::source_map::SourceMap;

/// A rejected input, with what is needed to point at it in the XAIF file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BoostError {
    pub statement_id: Option<String>,
    pub cfg_symbol: Option<String>,
    pub kind: Kind,
    pub message: String,
}

/// A statement a transformation refuses: its id (if it has one), what sort
/// of problem, why. Becomes a [`BoostError`] once its subroutine is known.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StatementError {
    pub statement_id: Option<String>,
    pub kind: Kind,
    pub message: String,
}

impl StatementError {
    /// Input that breaks a rule of XAIF or of the canonical form.
    pub fn new(statement_id: Option<String>, message: impl Into<String>) -> Self {
        StatementError {
            statement_id,
            kind: Kind::Semantic,
            message: message.into(),
        }
    }

    /// A construct the booster refuses; `message` names it.
    pub fn unsupported(statement_id: Option<String>, message: impl Into<String>) -> Self {
        StatementError {
            kind: Kind::Unsupported,
            ..StatementError::new(statement_id, message)
        }
    }

    /// A broken invariant of the booster itself.
    pub fn internal(statement_id: Option<String>, message: impl Into<String>) -> Self {
        StatementError {
            kind: Kind::Internal,
            ..StatementError::new(statement_id, message)
        }
    }

    /// Input that breaks a rule, found below the statement level (in an
    /// expression, a symbol); the caller places it with [`Self::at`].
    pub fn semantic(message: impl Into<String>) -> Self {
        StatementError::new(None, message)
    }

    /// A file the booster cannot write (`--dot` graphs and reports).
    pub fn input_output(statement_id: Option<String>, message: impl Into<String>) -> Self {
        StatementError {
            kind: Kind::InputOutput,
            ..StatementError::new(statement_id, message)
        }
    }

    /// The error at statement `id`, unless it already names a statement
    /// (the innermost one is the most precise place).
    pub fn at(mut self, id: &str) -> Self {
        if self.statement_id.is_none() {
            self.statement_id = Some(id.to_string());
        }
        self
    }

    /// The error in subroutine `cfg_symbol`.
    pub fn in_cfg(self, cfg_symbol: &str) -> BoostError {
        BoostError {
            statement_id: self.statement_id,
            cfg_symbol: Some(cfg_symbol.to_string()),
            kind: self.kind,
            message: self.message,
        }
    }
}

/// The message alone (the statement is placed by [`BoostError::diagnostic`]).
impl std::fmt::Display for StatementError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for StatementError {}

impl std::fmt::Display for BoostError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if let Some(cfg) = &self.cfg_symbol {
            write!(f, "in '{cfg}': ")?;
        }
        if let Some(s) = &self.statement_id {
            write!(f, "statement '{s}': ")?;
        }
        f.write_str(&self.message)
    }
}

impl BoostError {
    /// The diagnostic `file:line:column: error: {prefix}...`, of the
    /// error's kind. With the
    /// front end's source locations it points at the offending statement
    /// (else the subroutine) in the user's Fortran; without them, or when
    /// they do not know the statement, at its element in the XAIF input
    /// (`xaif_file` with content `xaif_text`).
    pub fn diagnostic(
        &self,
        xaif_file: &str,
        xaif_text: &str,
        locations: Option<&SourceMap>,
        prefix: &str,
    ) -> Diagnostic {
        if let Some(map) = locations {
            let in_source = self
                .statement_id
                .as_deref()
                .and_then(|s| map.statement(s))
                .or_else(|| self.cfg_symbol.as_deref().and_then(|c| map.unit(c)));
            if let Some(at) = in_source {
                let unit = match &self.cfg_symbol {
                    Some(cfg) => format!("in '{cfg}': "),
                    None => String::new(),
                };
                let place = Location::new(at.file, at.line as usize, at.column as usize);
                let message = format!("{prefix}{unit}{}", self.message);
                return Diagnostic::of_kind(self.kind, place, message);
            }
        }
        // The statement, else the subroutine's graph (not the symbol
        // declaring its name, which comes first in the document).
        let statement = self.statement_id.as_ref().and_then(|s| {
            let off = xaif_text.find(&format!("statement_id=\"{s}\""))?;
            Some(xaif_text[..off].rfind('<').unwrap_or(off))
        });
        let graph = || {
            let needle = format!("symbol_id=\"{}\"", self.cfg_symbol.as_ref()?);
            xaif_text.match_indices(&needle).find_map(|(off, _)| {
                let start = xaif_text[..off].rfind('<')?;
                let tag = xaif_text[start + 1..off].split_whitespace().next()?;
                ["ControlFlowGraph", "ReplacementList"]
                    .iter()
                    .any(|t| tag == *t || tag.ends_with(&format!(":{t}")))
                    .then_some(start)
            })
        };
        let offset = statement.or_else(graph).unwrap_or(0);
        let (line, column) = xaif_schema::error::line_column(xaif_text, offset);
        let place = Location::new(xaif_file, line, column);
        Diagnostic::of_kind(self.kind, place, format!("{prefix}{self}"))
    }
}
