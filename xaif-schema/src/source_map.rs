//! Where the statements and symbols of an XAIF document come from in the
//! user's Fortran: the side file `P.loc` the front end writes next to
//! `P.xaif` (`fortran2xaif --locations`) and the booster and the back end
//! read (`--locations`), so that a later stage refusing a statement can say
//! `userfile.f90:LINE:COLUMN: error: ...` instead of pointing into a
//! temporary XAIF file. XAIF itself has only `lineNumber`, without the file
//! (a program may span several files and `include`s) or the column.
//!
//! The format is text, one record a line, fields separated by one space;
//! a file name is the rest of its line (it may contain spaces):
//!
//! ```text
//! # openad source locations 1
//! file 1 src/head.f90
//! statement s12 1 14 7        statement_id, file, line, column
//! symbol 3 x 1 5 23           scope id, symbol_id, file, line, column
//! unit head 1 3 1             ControlFlowGraph symbol_id, file, line, column
//! canon 40 41 1 5 23          lines FIRST..=LAST of the canonical source, file, line, column
//! stmtlines s12 40 41          statement_id, lines FIRST..=LAST of the canonical source
//! ```
//!
//! `canon` records cover the statement after each `!$oad unit`, `decl` and
//! `stmt` tag of the canonical source `P.canon.f90` (with its continuation
//! lines): the back end reports problems with those lines (a declaration
//! it cannot rewrite, ...) at the user's unit header, declaration or
//! statement. `stmtlines` records say where each assignment, call and
//! opaque statement of the XAIF is in the canonical source (`openad
//! explore` links the derivative code to it through the back end's line
//! map, `P.dmap`, see [`crate::line_map`]).
//!
//! Lines and columns count from 1 in the original (not normalised) file.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;

use crate::error::XaifError;

const HEADER: &str = "# openad source locations 1";

/// A place in one of the user's files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceLocation {
    pub file: String,
    pub line: u64,
    pub column: u64,
}

impl std::fmt::Display for SourceLocation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}:{}", self.file, self.line, self.column)
    }
}

/// A position with the file as an index into the file table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Position {
    file: usize,
    line: u64,
    column: u64,
}

/// Statement, symbol and unit positions of one XAIF document.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SourceMap {
    files: Vec<String>,
    statements: BTreeMap<String, Position>,
    symbols: BTreeMap<(u64, String), Position>,
    units: BTreeMap<String, Position>,
    /// First line of a canonical-source range → (last line, origin).
    canon: BTreeMap<u64, (u64, Position)>,
    /// Statement id → its first and last line in the canonical source.
    statement_lines: BTreeMap<String, (u64, u64)>,
}

impl SourceMap {
    pub fn new() -> Self {
        SourceMap::default()
    }

    fn position(&mut self, at: &SourceLocation) -> Position {
        let file = match self.files.iter().position(|f| *f == at.file) {
            Some(k) => k,
            None => {
                self.files.push(at.file.clone());
                self.files.len() - 1
            }
        };
        Position {
            file,
            line: at.line,
            column: at.column,
        }
    }

    fn location(&self, p: Position) -> SourceLocation {
        SourceLocation {
            file: self.files[p.file].clone(),
            line: p.line,
            column: p.column,
        }
    }

    /// Records where statement `statement_id` is (the first record wins).
    pub fn add_statement(&mut self, statement_id: &str, at: &SourceLocation) {
        let p = self.position(at);
        self.statements.entry(statement_id.to_string()).or_insert(p);
    }

    /// Records where symbol `symbol_id` of scope `scope_id` is declared.
    pub fn add_symbol(&mut self, scope_id: u64, symbol_id: &str, at: &SourceLocation) {
        let p = self.position(at);
        self.symbols
            .entry((scope_id, symbol_id.to_string()))
            .or_insert(p);
    }

    /// Records where the subroutine of control flow graph `symbol_id` starts.
    pub fn add_unit(&mut self, symbol_id: &str, at: &SourceLocation) {
        let p = self.position(at);
        self.units.entry(symbol_id.to_string()).or_insert(p);
    }

    /// Records that canonical-source lines `first..=last` come from `at`.
    pub fn add_canon_lines(&mut self, first: u64, last: u64, at: &SourceLocation) {
        let p = self.position(at);
        self.canon.entry(first).or_insert((last.max(first), p));
    }

    /// Records that statement `statement_id` is on canonical-source lines
    /// `first..=last` (the first record wins).
    pub fn add_statement_lines(&mut self, statement_id: &str, first: u64, last: u64) {
        self.statement_lines
            .entry(statement_id.to_string())
            .or_insert((first, last.max(first)));
    }

    /// The canonical-source lines of statement `statement_id`; booster-made
    /// ids (`s12_oad_3`) fall back to the original, as in
    /// [`SourceMap::statement`].
    pub fn statement_lines(&self, statement_id: &str) -> Option<(u64, u64)> {
        let mut id = statement_id;
        loop {
            if let Some(r) = self.statement_lines.get(id) {
                return Some(*r);
            }
            id = &id[..id.rfind('_')?];
        }
    }

    /// Every statement's canonical-source lines: (id, first, last).
    pub fn statement_line_ranges(&self) -> impl Iterator<Item = (&str, u64, u64)> {
        self.statement_lines
            .iter()
            .map(|(id, (f, l))| (id.as_str(), *f, *l))
    }

    /// Where line `line` of the canonical source comes from, if a tagged
    /// statement covers it.
    pub fn canon_line(&self, line: u64) -> Option<SourceLocation> {
        let (_, (last, p)) = self.canon.range(..=line).next_back()?;
        (line <= *last).then(|| self.location(*p))
    }

    /// Where statement `statement_id` is. A statement the booster derived
    /// from another one has the original's id plus `_suffix` parts
    /// (`s12_oad_3`, `s12_oad_t1`): those fall back to the original.
    pub fn statement(&self, statement_id: &str) -> Option<SourceLocation> {
        let mut id = statement_id;
        loop {
            if let Some(p) = self.statements.get(id) {
                return Some(self.location(*p));
            }
            id = &id[..id.rfind('_')?];
        }
    }

    /// Where symbol `symbol_id` of scope `scope_id` is declared.
    pub fn symbol(&self, scope_id: u64, symbol_id: &str) -> Option<SourceLocation> {
        self.symbols
            .get(&(scope_id, symbol_id.to_string()))
            .map(|p| self.location(*p))
    }

    /// The declaration of `symbol_id` when exactly one scope declares it
    /// (callers that know the scope use [`SourceMap::symbol`]).
    pub fn symbol_in_any_scope(&self, symbol_id: &str) -> Option<SourceLocation> {
        let mut found = self.symbols.iter().filter(|((_, s), _)| s == symbol_id);
        match (found.next(), found.next()) {
            (Some((_, p)), None) => Some(self.location(*p)),
            _ => None,
        }
    }

    /// Where the subroutine of control flow graph `symbol_id` starts.
    pub fn unit(&self, symbol_id: &str) -> Option<SourceLocation> {
        self.units.get(symbol_id).map(|p| self.location(*p))
    }

    pub fn is_empty(&self) -> bool {
        self.statements.is_empty()
            && self.symbols.is_empty()
            && self.units.is_empty()
            && self.canon.is_empty()
            && self.statement_lines.is_empty()
    }

    /// The text of the side file (deterministic: records sorted by key).
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        out.push_str(HEADER);
        out.push('\n');
        for (k, f) in self.files.iter().enumerate() {
            let _ = writeln!(out, "file {} {f}", k + 1);
        }
        let pos = |p: &Position| format!("{} {} {}", p.file + 1, p.line, p.column);
        for (id, p) in &self.statements {
            let _ = writeln!(out, "statement {id} {}", pos(p));
        }
        for ((scope, id), p) in &self.symbols {
            let _ = writeln!(out, "symbol {scope} {id} {}", pos(p));
        }
        for (id, p) in &self.units {
            let _ = writeln!(out, "unit {id} {}", pos(p));
        }
        for (first, (last, p)) in &self.canon {
            let _ = writeln!(out, "canon {first} {last} {}", pos(p));
        }
        for (id, (first, last)) in &self.statement_lines {
            let _ = writeln!(out, "stmtlines {id} {first} {last}");
        }
        out
    }

    /// Reads the side file `file` whose content is `text`.
    pub fn parse(text: &str, file: &str) -> Result<SourceMap, XaifError> {
        let error = |k: usize, message: String| XaifError {
            file: file.to_string(),
            line: k + 1,
            column: 1,
            message,
        };
        let mut lines = text.lines().enumerate();
        match lines.next() {
            Some((_, first)) if first.trim_end() == HEADER => {}
            _ => {
                return Err(error(
                    0,
                    format!("not a source locations file (first line must be `{HEADER}`)"),
                ))
            }
        }
        let mut map = SourceMap::new();
        let mut file_numbers: HashMap<usize, usize> = HashMap::new();
        for (k, line) in lines {
            let line = line.trim_end_matches('\r');
            if line.trim().is_empty() || line.starts_with('#') {
                continue;
            }
            let (kind, rest) = line.split_once(' ').unwrap_or((line, ""));
            let bad = |what: &str| error(k, format!("malformed `{kind}` record: {what}"));
            let number = |w: Option<&str>, what: &str| -> Result<u64, XaifError> {
                w.and_then(|w| w.parse().ok())
                    .ok_or_else(|| bad(&format!("expected {what}")))
            };
            if kind == "file" {
                let (n, name) = rest.split_once(' ').ok_or_else(|| bad("expected a name"))?;
                let n = number(Some(n), "a file number")? as usize;
                map.files.push(name.to_string());
                file_numbers.insert(n, map.files.len() - 1);
                continue;
            }
            let words: Vec<&str> = rest.split(' ').collect();
            if kind == "stmtlines" {
                let [id, first, last] = words[..] else {
                    return Err(bad("wrong number of fields"));
                };
                let first = number(Some(first), "a first line")?;
                let last = number(Some(last), "a last line")?;
                map.statement_lines.insert(id.to_string(), (first, last));
                continue;
            }
            let (key, place) = match kind {
                "statement" | "unit" if words.len() == 4 => (&words[..1], &words[1..]),
                "symbol" | "canon" if words.len() == 5 => (&words[..2], &words[2..]),
                "statement" | "unit" | "symbol" | "canon" => {
                    return Err(bad("wrong number of fields"))
                }
                _ => return Err(error(k, format!("unknown record `{kind}`"))),
            };
            let file_number = number(Some(place[0]), "a file number")? as usize;
            let file = *file_numbers
                .get(&file_number)
                .ok_or_else(|| bad(&format!("file {file_number} is not in the file table")))?;
            let p = Position {
                file,
                line: number(Some(place[1]), "a line")?,
                column: number(Some(place[2]), "a column")?,
            };
            match kind {
                "statement" => {
                    map.statements.insert(key[0].to_string(), p);
                }
                "unit" => {
                    map.units.insert(key[0].to_string(), p);
                }
                "canon" => {
                    let first = number(Some(key[0]), "a first line")?;
                    let last = number(Some(key[1]), "a last line")?;
                    map.canon.insert(first, (last, p));
                }
                _ => {
                    let scope = number(Some(key[0]), "a scope id")?;
                    map.symbols.insert((scope, key[1].to_string()), p);
                }
            }
        }
        Ok(map)
    }

    /// Reads the side file at `path`.
    pub fn read_file(path: &std::path::Path) -> Result<SourceMap, XaifError> {
        let (text, name) = XaifError::read_side_file(path, "source locations")?;
        SourceMap::parse(&text, &name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(file: &str, line: u64, column: u64) -> SourceLocation {
        SourceLocation {
            file: file.into(),
            line,
            column,
        }
    }

    #[test]
    fn text_round_trip_keeps_every_record() {
        let mut m = SourceMap::new();
        m.add_statement("s12", &at("dir with space/head.f90", 14, 7));
        m.add_statement("s3", &at("inc.h", 2, 1));
        m.add_symbol(3, "x", &at("dir with space/head.f90", 5, 23));
        m.add_unit("head", &at("dir with space/head.f90", 3, 1));
        m.add_canon_lines(40, 41, &at("inc.h", 7, 9));
        m.add_statement_lines("s12", 40, 41);
        let text = m.to_text();
        let back = SourceMap::parse(&text, "P.loc").unwrap();
        assert_eq!(back, m);
        assert_eq!(
            back.statement("s12").unwrap().to_string(),
            "dir with space/head.f90:14:7"
        );
        assert_eq!(back.statement("s3").unwrap().to_string(), "inc.h:2:1");
        assert_eq!(back.symbol(3, "x").unwrap().line, 5);
        assert_eq!(back.unit("head").unwrap().column, 1);
        assert_eq!(back.canon_line(41).unwrap().to_string(), "inc.h:7:9");
        assert_eq!(back.statement_lines("s12"), Some((40, 41)));
        assert_eq!(back.statement_lines("s12_oad_t1"), Some((40, 41)));
        assert_eq!(back.statement_lines("s3"), None);
    }

    #[test]
    fn canonical_lines_map_only_inside_their_ranges() {
        let mut m = SourceMap::new();
        m.add_canon_lines(10, 12, &at("a.f90", 3, 1));
        m.add_canon_lines(14, 14, &at("a.f90", 9, 5));
        assert_eq!(m.canon_line(9), None);
        assert_eq!(m.canon_line(10).unwrap().line, 3);
        assert_eq!(m.canon_line(12).unwrap().line, 3);
        assert_eq!(m.canon_line(13), None);
        assert_eq!(m.canon_line(14).unwrap().column, 5);
        assert_eq!(m.canon_line(15), None);
    }

    #[test]
    fn derived_statement_ids_fall_back_to_the_original() {
        let mut m = SourceMap::new();
        m.add_statement("s1", &at("a.f90", 1, 1));
        m.add_statement("s12", &at("a.f90", 12, 3));
        assert_eq!(m.statement("s12_oad_3").unwrap().line, 12);
        assert_eq!(m.statement("s12_oad_t1").unwrap().line, 12);
        // Only whole `_` parts are dropped: s123 is not s12 nor s1.
        assert_eq!(m.statement("s123"), None);
        assert_eq!(m.statement("x_oad_1"), None);
    }

    #[test]
    fn symbol_in_any_scope_only_when_unambiguous() {
        let mut m = SourceMap::new();
        m.add_symbol(2, "x", &at("a.f90", 4, 3));
        m.add_symbol(3, "x", &at("a.f90", 9, 3));
        m.add_symbol(3, "y", &at("a.f90", 10, 3));
        assert_eq!(m.symbol_in_any_scope("x"), None);
        assert_eq!(m.symbol_in_any_scope("y").unwrap().line, 10);
    }

    #[test]
    fn malformed_files_are_rejected_with_their_line() {
        let e = SourceMap::parse("hello\n", "P.loc").unwrap_err();
        assert_eq!((e.line, e.file.as_str()), (1, "P.loc"));
        let text = format!("{HEADER}\nfile 1 a.f90\nstatement s1 2 3 4\n");
        let e = SourceMap::parse(&text, "P.loc").unwrap_err();
        assert_eq!(e.line, 3);
        assert!(e.message.contains("file 2"), "{}", e.message);
        let text = format!("{HEADER}\nfile 1 a.f90\nsymbol 3 x 1 5\n");
        assert_eq!(SourceMap::parse(&text, "P.loc").unwrap_err().line, 3);
        let text = format!("{HEADER}\nvertex 1\n");
        assert!(SourceMap::parse(&text, "P.loc")
            .unwrap_err()
            .message
            .contains("unknown record"));
    }
}
