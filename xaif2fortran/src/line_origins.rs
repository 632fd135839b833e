//! Where each line of the derivative program comes from (`--line-map`,
//! the side file `P.dmap` of `xaif_schema::line_map`). Lines are strings
//! that the generator moves, reorders and copies between sections, so the
//! origin travels inside the string: a suffix after a control character
//! that no Fortran line contains, added when the line is generated and
//! removed when the program text is put together.

use xaif_schema::line_map::{LineMap, LineOrigin};

/// Separates a generated line from its origin. Never in the output.
const MARK: char = '\u{1f}';

/// `line` marked as generated for XAIF statement `statement_id`.
pub fn from_statement(line: String, statement_id: &str) -> String {
    format!("{line}{MARK}s{statement_id}")
}

/// `line` marked as a copy of 0-based line `index` of the canonical source.
pub fn from_canon(line: String, index: usize) -> String {
    format!("{line}{MARK}c{}", index + 1)
}

/// The line without its mark, and the origin the mark names.
pub fn split(line: &str) -> (&str, Option<LineOrigin>) {
    let Some((text, mark)) = line.split_once(MARK) else {
        return (line, None);
    };
    let origin = match mark.split_at(mark.len().min(1)) {
        ("s", id) if !id.is_empty() => Some(LineOrigin::Statement(id.to_string())),
        ("c", n) => n.parse().ok().map(LineOrigin::Canon),
        _ => None,
    };
    (text, origin)
}

/// The comment that stands for a line's origin while a rewrite working on
/// Fortran tokens passes over the line (`active_layout.rs`).
const COMMENT_MARK: &str = " !\u{1f}";

/// `line` with its origin turned into a trailing comment.
pub fn origin_as_comment(line: String) -> String {
    match line.split_once(MARK) {
        Some((text, mark)) => format!("{text}{COMMENT_MARK}{mark}"),
        None => line,
    }
}

/// The origin comment of a line in the form of [`origin_as_comment`]
/// (empty if it has none): to give a generated line the same origin.
pub fn origin_comment(line: &str) -> &str {
    line.find(COMMENT_MARK).map_or("", |at| &line[at..])
}

/// Undoes [`origin_as_comment`].
pub fn origin_from_comment(line: String) -> String {
    match line.split_once(COMMENT_MARK) {
        Some((text, mark)) => format!("{text}{MARK}{mark}"),
        None => line,
    }
}

/// Puts the marked lines together: the program text (long lines wrapped,
/// marks removed) and the origin of each of its lines.
pub fn assemble(lines: Vec<String>) -> (String, LineMap) {
    let mut text = String::new();
    let mut map = LineMap::new();
    let mut line_no = 0u64;
    for l in &lines {
        let (l, origin) = split(l);
        for physical in l.split('\n') {
            for part in crate::fortran_text::wrap_line(physical) {
                text.push_str(&part);
                text.push('\n');
                line_no += 1;
                if let Some(o) = &origin {
                    map.add_line(line_no, o.clone());
                }
            }
        }
    }
    (text, map)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_are_removed_and_give_each_physical_line_its_origin() {
        let long = format!("x = {}", vec!["a"; 80].join(" + "));
        let lines = vec![
            from_canon("subroutine f(x)".into(), 4),
            "  use OAD_active".into(),
            from_statement(format!("  {long}"), "s3"),
            from_statement("  y%d = 0\n  z%d = 0".into(), "s4_oad_t1"),
        ];
        let (text, map) = assemble(lines);
        assert!(!text.contains(MARK));
        let n = text.lines().count() as u64;
        assert!(n >= 6, "{text}");
        assert_eq!(map.origin(1), Some(&LineOrigin::Canon(5)));
        assert_eq!(map.origin(2), None);
        // The wrapped statement: every continuation line is s3's.
        for k in 3..=n - 2 {
            assert_eq!(map.origin(k), Some(&LineOrigin::Statement("s3".into())));
        }
        assert_eq!(
            map.origin(n),
            Some(&LineOrigin::Statement("s4_oad_t1".into()))
        );
    }

    #[test]
    fn unmarked_and_malformed_marks() {
        assert_eq!(split("x = 1"), ("x = 1", None));
        assert_eq!(split("x = 1\u{1f}c"), ("x = 1", None));
        assert_eq!(split("x = 1\u{1f}s"), ("x = 1", None));
    }
}
