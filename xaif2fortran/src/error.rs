//! Diagnostics: every rejected input is reported as
//! `file:line:column: error: message`.

use std::cell::{OnceCell, RefCell};
use std::path::{Path, PathBuf};

use xaif_schema::source_map::{SourceLocation, SourceMap};
use xaif_schema::BasicBlockElement;

pub use xaif_schema::diagnostic::{Diagnostic, Kind, Location};

/// An error (kind `Semantic`) at 1-based `line` and `column` of `file`.
pub fn error_at(file: &str, line: usize, column: usize, message: impl Into<String>) -> Diagnostic {
    Diagnostic::error(Location::new(file, line, column), message)
}

pub type Result<T> = std::result::Result<T, Diagnostic>;

/// Finds the place an error about a model element (which carries no
/// position) is reported at. With the front end's source locations
/// (`--locations`): the statement being generated, else the statement,
/// subroutine or symbol declaration `needle` names, in the user's Fortran.
/// Otherwise (XAIF from elsewhere) the first occurrence in the XAIF text of
/// a distinctive attribute such as `name="foo_scal"`.
#[derive(Debug, Clone, Default)]
pub struct XaifLocator {
    pub file: String,
    /// The XAIF text, needed only to place a diagnostic: read from `path`
    /// when first asked for (a large XAIF is not kept during generation).
    text: OnceCell<Option<String>>,
    path: Option<PathBuf>,
    source: Option<SourceMap>,
    /// Statement ids of the elements being generated (innermost last).
    current: RefCell<Vec<Option<String>>>,
    /// The statement of the element generated last: elements without an
    /// id (derivative propagators from elsewhere) belong to the statement
    /// before them.
    last: RefCell<Option<String>>,
}

/// While alive, errors are reported at the statement of one basic block
/// element (see [`XaifLocator::at_element`]).
pub struct StatementScope<'a> {
    locator: &'a XaifLocator,
}

impl Drop for StatementScope<'_> {
    fn drop(&mut self) {
        let id = self.locator.current.borrow_mut().pop().flatten();
        *self.locator.last.borrow_mut() = id;
    }
}

/// The statement id of a basic block element (a propagator's is optional).
fn element_statement_id(e: &BasicBlockElement) -> Option<&str> {
    match e {
        BasicBlockElement::Assignment(a) => Some(&a.statement_id),
        BasicBlockElement::SubroutineCall(c) => Some(&c.statement_id),
        BasicBlockElement::Marker(m) => Some(&m.statement_id),
        BasicBlockElement::InlinableSubroutineCall(c) => Some(&c.statement_id),
        BasicBlockElement::DerivativePropagator(p) => p.statement_id(),
    }
}

/// The value of attribute `name` in the XML start tag around byte `at`.
fn attribute_of_tag_at<'t>(text: &'t str, at: usize, name: &str) -> Option<&'t str> {
    let start = text[..at].rfind('<')?;
    let end = start + text[start..].find('>')?;
    let tag = &text[start..end];
    let key = format!(" {name}=\"");
    let from = tag.find(&key)? + key.len();
    let len = tag[from..].find('"')?;
    Some(&tag[from..from + len])
}

/// The `vertex_id` of the `Scope` whose symbol table holds byte `at`.
fn enclosing_scope(text: &str, at: usize) -> Option<u64> {
    let before = &text[..at];
    let scope = before.rfind("<xaif:Scope ")?;
    if before[scope..].contains("</xaif:ScopeHierarchy>") {
        return None;
    }
    attribute_of_tag_at(text, scope + 1, "vertex_id")?
        .parse()
        .ok()
}

impl XaifLocator {
    /// A locator over the text of the XAIF file.
    pub fn new(file: &str, text: Option<String>) -> Self {
        XaifLocator {
            file: file.to_string(),
            text: OnceCell::from(text),
            ..XaifLocator::default()
        }
    }

    /// A locator over the XAIF file at `path`, read again only if a
    /// diagnostic needs its text.
    pub fn from_file(file: &str, path: &Path) -> Self {
        XaifLocator {
            file: file.to_string(),
            path: Some(path.to_path_buf()),
            ..XaifLocator::default()
        }
    }

    fn text(&self) -> Option<&str> {
        self.text
            .get_or_init(|| {
                let bytes = std::fs::read(self.path.as_ref()?).ok()?;
                let text = xaif_schema::read::decode(&bytes, &self.file).ok()?;
                Some(text.into_owned())
            })
            .as_deref()
    }

    /// Also report at the user's Fortran, by the front end's source map.
    pub fn with_source_map(mut self, map: SourceMap) -> Self {
        self.source = Some(map);
        self
    }

    /// Errors raised while the returned guard lives concern element `e`.
    pub fn at_element(&self, e: &BasicBlockElement) -> StatementScope<'_> {
        let id = element_statement_id(e)
            .map(str::to_string)
            .or_else(|| self.last.borrow().clone());
        self.current.borrow_mut().push(id);
        StatementScope { locator: self }
    }

    /// The statement id of the basic block element being generated (for
    /// a derivative propagator, the statement before it), if any.
    pub fn current_statement(&self) -> Option<String> {
        self.current.borrow().last().cloned().flatten()
    }

    /// A diagnostic about what `needle` (an attribute as written in the
    /// XAIF, e.g. `symbol_id="x"`) designates; 1:1 of the XAIF if nothing
    /// finer is known.
    pub fn error(&self, needle: &str, message: impl Into<String>) -> Diagnostic {
        let found = self.text().and_then(|t| t.find(needle));
        if let Some(at) = self.source_location(needle, found) {
            return error_at(&at.file, at.line as usize, at.column as usize, message);
        }
        let (line, column) = match (self.text(), found) {
            (Some(t), Some(at)) => line_column(t, at),
            _ => (1, 1),
        };
        error_at(&self.file, line, column, message)
    }

    /// [`XaifLocator::error`] for a construct the back end refuses
    /// (`message` names it).
    pub fn unsupported(&self, needle: &str, message: impl Into<String>) -> Diagnostic {
        self.error(needle, message).with_kind(Kind::Unsupported)
    }

    /// A diagnostic at the declaration of variable `name` of XAIF scope
    /// `scope` in the user's Fortran, when the source map knows it.
    pub fn at_symbol(&self, scope: u64, name: &str, message: &str) -> Option<Diagnostic> {
        let at = self.source.as_ref()?.symbol(scope, name)?;
        Some(error_at(
            &at.file,
            at.line as usize,
            at.column as usize,
            message,
        ))
    }

    /// A diagnostic at the header of the unit tagged `tag` (its control
    /// flow graph's `unit:` annotation) in the user's Fortran.
    pub fn at_unit(&self, tag: &str, message: &str) -> Option<Diagnostic> {
        let text = self.text()?;
        let needle = format!("annotation=\"unit:{tag}\"");
        let at = text.match_indices(&needle).map(|(i, _)| i).find(|&i| {
            text[..i]
                .rfind('<')
                .is_some_and(|o| text[o..].starts_with("<xaif:ControlFlowGraph "))
        })?;
        let symbol = attribute_of_tag_at(text, at, "symbol_id")?;
        let place = self.source.as_ref()?.unit(symbol)?;
        Some(error_at(
            &place.file,
            place.line as usize,
            place.column as usize,
            message,
        ))
    }

    /// A diagnostic about a line of the canonical source `canon_file`
    /// (which `openad` deletes) moved to the unit header, declaration or
    /// statement of the user's Fortran that line comes from, when the
    /// source map knows it; other diagnostics are returned unchanged.
    pub fn in_user_source(&self, d: Diagnostic, canon_file: &str) -> Diagnostic {
        if d.location.file.as_os_str() != canon_file {
            return d;
        }
        match self
            .source
            .as_ref()
            .and_then(|m| m.canon_line(d.location.line as u64))
        {
            Some(at) => Diagnostic {
                location: Location::new(at.file, at.line as usize, at.column as usize),
                ..d
            },
            None => d,
        }
    }

    /// The place in the user's Fortran, when the source map knows one.
    fn source_location(&self, needle: &str, found: Option<usize>) -> Option<SourceLocation> {
        let map = self.source.as_ref()?;
        let current = self.current.borrow().last().cloned().flatten();
        if let Some(at) = current.and_then(|id| map.statement(&id)) {
            return Some(at);
        }
        // The statement whose element the needle is in (markers, calls, ...).
        let text = self.text();
        if let Some(id) = text
            .zip(found)
            .and_then(|(t, at)| attribute_of_tag_at(t, at, "statement_id"))
        {
            if let Some(at) = map.statement(id) {
                return Some(at);
            }
        }
        // A subroutine or a variable, by name; a variable by its scope
        // when the needle is its entry in a symbol table.
        let name = needle
            .strip_prefix("symbol_id=\"")
            .and_then(|n| n.strip_suffix('"'))?;
        let scope = text.zip(found).and_then(|(t, at)| enclosing_scope(t, at));
        map.unit(name)
            .or_else(|| scope.and_then(|s| map.symbol(s, name)))
            .or_else(|| map.symbol_in_any_scope(name))
    }
}

/// 1-based line and column of a byte offset.
pub fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let column = before.len() - before.rfind('\n').map_or(0, |p| p + 1) + 1;
    (line, column)
}

#[cfg(test)]
mod tests {
    use super::*;
    use xaif_schema::{Assignment, DerivativePropagator, Marker};

    const XAIF: &str = r#"<xaif:CallGraph>
  <xaif:ScopeHierarchy>
    <xaif:Scope vertex_id="2" annotation="unit:a">
      <xaif:Symbol symbol_id="x" kind="variable"/>
    </xaif:Scope>
    <xaif:Scope vertex_id="3" annotation="unit:b">
      <xaif:Symbol symbol_id="x" kind="variable"/>
      <xaif:Symbol symbol_id="t" kind="variable"/>
    </xaif:Scope>
  </xaif:ScopeHierarchy>
  <xaif:ControlFlowGraph symbol_id="b">
      <xaif:Marker statement_id="s3" annotation="canon:3"/>
      <xaif:Marker statement_id="s4" annotation="canon:4"/>
  </xaif:ControlFlowGraph>
</xaif:CallGraph>
"#;

    fn at(line: u64, column: u64) -> SourceLocation {
        SourceLocation {
            file: "user.f90".into(),
            line,
            column,
        }
    }

    fn locator() -> XaifLocator {
        let mut map = SourceMap::new();
        map.add_statement("s12", &at(12, 3));
        map.add_statement("s3", &at(3, 5));
        map.add_symbol(2, "x", &at(20, 1));
        map.add_symbol(3, "x", &at(30, 1));
        map.add_unit("b", &at(29, 1));
        map.add_canon_lines(40, 41, &at(7, 9));
        XaifLocator::new("p.xb.xaif", Some(XAIF.into())).with_source_map(map)
    }

    fn place(d: &Diagnostic) -> (&str, usize, usize) {
        let at = &d.location;
        (at.file.to_str().unwrap_or(""), at.line, at.column)
    }

    fn assignment(id: &str) -> BasicBlockElement {
        BasicBlockElement::Assignment(Assignment {
            statement_id: id.into(),
            ..Assignment::default()
        })
    }

    #[test]
    fn errors_while_generating_a_statement_point_at_it() {
        let l = locator();
        {
            // A booster temporary's assignment counts as its original.
            let _at = l.at_element(&assignment("s12_oad_1"));
            assert_eq!(place(&l.error("name=\"q\"", "m")), ("user.f90", 12, 3));
        }
        // The propagator after it belongs to the same statement.
        let propagator = BasicBlockElement::DerivativePropagator(DerivativePropagator::default());
        let _at = l.at_element(&propagator);
        assert_eq!(place(&l.error("name=\"q\"", "m")), ("user.f90", 12, 3));
    }

    #[test]
    fn needles_name_statements_units_and_declarations() {
        let l = locator();
        let marker = "annotation=\"canon:3\"";
        assert_eq!(place(&l.error(marker, "m")), ("user.f90", 3, 5));
        assert_eq!(place(&l.error("symbol_id=\"b\"", "m")), ("user.f90", 29, 1));
        // The first `x` is in scope 2's table: its declaration, although
        // scope 3 declares an `x` too.
        assert_eq!(place(&l.error("symbol_id=\"x\"", "m")), ("user.f90", 20, 1));
    }

    #[test]
    fn without_a_source_position_the_xaif_position_is_reported() {
        // s4 and t are not in the map: their XAIF lines.
        let l = locator();
        let marker = "annotation=\"canon:4\"";
        assert_eq!(place(&l.error(marker, "m")), ("p.xb.xaif", 13, 38));
        assert_eq!(
            place(&l.error("symbol_id=\"t\"", "m")),
            ("p.xb.xaif", 8, 20)
        );
        let _at = l.at_element(&BasicBlockElement::Marker(Marker {
            statement_id: "s99".into(),
            annotation: Default::default(),
        }));
        assert_eq!(
            place(&l.error("symbol_id=\"t\"", "m")),
            ("p.xb.xaif", 8, 20)
        );
        // A locator without a map (XAIF from elsewhere): always the XAIF.
        let plain = XaifLocator::new("p.xb.xaif", Some(XAIF.into()));
        let _at = plain.at_element(&assignment("s12"));
        assert_eq!(place(&plain.error(marker, "m")), ("p.xb.xaif", 13, 38));
    }

    #[test]
    fn canonical_source_lines_move_to_their_origin() {
        let l = locator();
        let d = error_at("p.canon.f90", 41, 3, "cannot rewrite");
        let moved = l.in_user_source(d.clone(), "p.canon.f90");
        assert_eq!(place(&moved), ("user.f90", 7, 9));
        assert_eq!(moved.message, "cannot rewrite");
        // Untagged lines, other files and locators without a map: unchanged.
        let other = error_at("p.canon.f90", 42, 1, "m");
        assert_eq!(l.in_user_source(other.clone(), "p.canon.f90"), other);
        assert_eq!(l.in_user_source(d.clone(), "other.f90"), d);
        let plain = XaifLocator::new("p.xb.xaif", None);
        assert_eq!(plain.in_user_source(d.clone(), "p.canon.f90"), d);
    }
}
