//! Diagnostics: every rejected input is reported as
//! `file:line:column: error: message`.

use std::fmt;

/// A diagnostic pointing at a place in one of the inputs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    pub file: String,
    pub line: usize,
    pub column: usize,
    pub message: String,
}

impl Diagnostic {
    pub fn new(file: &str, line: usize, column: usize, message: impl Into<String>) -> Self {
        Diagnostic {
            file: file.to_string(),
            line,
            column,
            message: message.into(),
        }
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{}: error: {}",
            self.file, self.line, self.column, self.message
        )
    }
}

impl std::error::Error for Diagnostic {}

pub type Result<T> = std::result::Result<T, Diagnostic>;

/// Finds places in the XAIF text so that errors about model elements (which
/// carry no positions) can still name a line and column: the first
/// occurrence of a distinctive attribute such as `name="foo_scal"`.
#[derive(Debug, Clone, Default)]
pub struct XaifLocator {
    pub file: String,
    text: Option<String>,
}

impl XaifLocator {
    /// A locator over the text of the XAIF file.
    pub fn new(file: &str, text: Option<String>) -> Self {
        XaifLocator {
            file: file.to_string(),
            text,
        }
    }

    /// A diagnostic at the first occurrence of `needle` (1:1 if absent).
    pub fn error(&self, needle: &str, message: impl Into<String>) -> Diagnostic {
        let (line, column) = self
            .text
            .as_deref()
            .and_then(|t| t.find(needle).map(|at| line_column(t, at)))
            .unwrap_or((1, 1));
        Diagnostic::new(&self.file, line, column, message)
    }
}

/// 1-based line and column of a byte offset.
pub fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let column = before.len() - before.rfind('\n').map_or(0, |p| p + 1) + 1;
    (line, column)
}
