//! Where each line of the derivative code comes from: the side file
//! `P.dmap` the back end writes (`xaif2fortran --line-map`) next to
//! `P.oad.f90`, and `openad explore` reads to link every generated line to
//! the statement it was generated from (and, through the front end's
//! `P.loc`, to the canonical source and the user's file).
//!
//! Text, one record a line, fields separated by one space:
//!
//! ```text
//! # openad derivative lines 1
//! statement 27 29 s14_oad_t1   derivative lines FIRST..=LAST, XAIF statement_id
//! canon 6 6 8                  derivative lines FIRST..=LAST, the canonical line copied
//! ```
//!
//! `statement` records cover the code of a basic block element: an
//! assignment, a call, an opaque statement (marker), a tape push or pop,
//! and the derivative propagators after it (propagators have no id; they
//! belong to the statement before them). Booster-made ids keep the
//! original's id as prefix (`s14_oad_t1` is made from `s14`); ids of what
//! the booster adds for control flow (`oad_cf_3`, `oad_ix_1_2`) name no
//! user statement. `canon` records cover lines copied unchanged from the
//! canonical source (unit headers, lines outside executable parts). Lines
//! no record covers (declarations, `use` lines, control flow, template
//! text) come from no single statement. Lines count from 1.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::error::XaifError;

const HEADER: &str = "# openad derivative lines 1";

/// What a line of the derivative code was made from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LineOrigin {
    /// Generated for the XAIF statement with this `statement_id`.
    Statement(String),
    /// Copied from this line of the canonical source.
    Canon(u64),
}

/// The origins of the lines of one derivative program.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LineMap {
    /// First line of a range → (last line, origin).
    ranges: BTreeMap<u64, (u64, LineOrigin)>,
}

impl LineMap {
    pub fn new() -> Self {
        LineMap::default()
    }

    /// Records that line `line` comes from `origin`; extends the range
    /// ending at `line - 1` when it has the same origin.
    pub fn add_line(&mut self, line: u64, origin: LineOrigin) {
        if let Some((_, (last, o))) = self.ranges.range_mut(..line).next_back() {
            if *last + 1 == line && *o == origin {
                *last = line;
                return;
            }
        }
        self.ranges.insert(line, (line, origin));
    }

    /// Where line `line` comes from, if a record covers it.
    pub fn origin(&self, line: u64) -> Option<&LineOrigin> {
        let (_, (last, o)) = self.ranges.range(..=line).next_back()?;
        (line <= *last).then_some(o)
    }

    /// Every range: (first, last, origin), by first line.
    pub fn ranges(&self) -> impl Iterator<Item = (u64, u64, &LineOrigin)> {
        self.ranges.iter().map(|(f, (l, o))| (*f, *l, o))
    }

    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }

    /// The text of the side file.
    pub fn to_text(&self) -> String {
        let mut out = format!("{HEADER}\n");
        for (first, (last, origin)) in &self.ranges {
            let _ = match origin {
                LineOrigin::Statement(id) => writeln!(out, "statement {first} {last} {id}"),
                LineOrigin::Canon(line) => writeln!(out, "canon {first} {last} {line}"),
            };
        }
        out
    }

    /// Reads the side file `file` whose content is `text`.
    pub fn parse(text: &str, file: &str) -> Result<LineMap, XaifError> {
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
                    format!("not a derivative line map (first line must be `{HEADER}`)"),
                ))
            }
        }
        let mut map = LineMap::new();
        for (k, line) in lines {
            let line = line.trim_end_matches('\r');
            if line.trim().is_empty() || line.starts_with('#') {
                continue;
            }
            let words: Vec<&str> = line.split(' ').collect();
            let [kind, first, last, what] = words[..] else {
                return Err(error(
                    k,
                    format!("malformed record `{line}`: expected 4 fields"),
                ));
            };
            let number = |w: &str, name: &str| {
                w.parse::<u64>()
                    .map_err(|_| error(k, format!("malformed `{kind}` record: expected {name}")))
            };
            let first = number(first, "a first line")?;
            let last = number(last, "a last line")?;
            if first == 0 || last < first {
                return Err(error(k, format!("bad line range {first}..{last}")));
            }
            let origin = match kind {
                "statement" => LineOrigin::Statement(what.to_string()),
                "canon" => LineOrigin::Canon(number(what, "a canonical line")?),
                _ => return Err(error(k, format!("unknown record `{kind}`"))),
            };
            map.ranges.insert(first, (last, origin));
        }
        Ok(map)
    }

    /// Reads the side file at `path`.
    pub fn read_file(path: &std::path::Path) -> Result<LineMap, XaifError> {
        let (text, name) = XaifError::read_side_file(path, "derivative line map")?;
        LineMap::parse(&text, &name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn statement(id: &str) -> LineOrigin {
        LineOrigin::Statement(id.into())
    }

    #[test]
    fn consecutive_lines_of_one_origin_form_one_range() {
        let mut m = LineMap::new();
        m.add_line(3, statement("s1"));
        m.add_line(4, statement("s1"));
        m.add_line(5, statement("s2"));
        m.add_line(7, statement("s2"));
        m.add_line(8, LineOrigin::Canon(12));
        let ranges: Vec<_> = m.ranges().map(|(f, l, _)| (f, l)).collect();
        assert_eq!(ranges, [(3, 4), (5, 5), (7, 7), (8, 8)]);
        assert_eq!(m.origin(2), None);
        assert_eq!(m.origin(4), Some(&statement("s1")));
        assert_eq!(m.origin(6), None);
        assert_eq!(m.origin(8), Some(&LineOrigin::Canon(12)));
        assert_eq!(m.origin(9), None);
    }

    #[test]
    fn text_round_trip() {
        let mut m = LineMap::new();
        m.add_line(1, LineOrigin::Canon(2));
        m.add_line(10, statement("s14_oad_t1"));
        m.add_line(11, statement("s14_oad_t1"));
        let text = m.to_text();
        assert!(text.contains("statement 10 11 s14_oad_t1\n"), "{text}");
        assert_eq!(LineMap::parse(&text, "P.dmap").unwrap(), m);
    }

    #[test]
    fn malformed_files_are_rejected_with_their_line() {
        assert_eq!(LineMap::parse("x\n", "P.dmap").unwrap_err().line, 1);
        let text = format!("{HEADER}\nstatement 3 2 s1\n");
        assert_eq!(LineMap::parse(&text, "P.dmap").unwrap_err().line, 2);
        let text = format!("{HEADER}\ncanon 1 1 x\n");
        assert!(LineMap::parse(&text, "P.dmap")
            .unwrap_err()
            .message
            .contains("canonical line"));
        let text = format!("{HEADER}\nvertex 1 1 1\n");
        assert!(LineMap::parse(&text, "P.dmap")
            .unwrap_err()
            .message
            .contains("unknown record"));
    }
}
