//! Lexical helpers shared by both forms: where strings and `!` comments
//! are on a line, `include` lines and `# line` markers.

/// What a scan of one line of statement text found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct CodeScan {
    /// Byte offset of a `!` that starts a comment (outside strings).
    pub comment_start: Option<usize>,
    /// The quote of a string still open at the end of the text.
    pub open_quote: Option<char>,
    /// Where that open string started, if it started in this text.
    pub open_quote_start: Option<usize>,
}

/// Scans `text`, which starts inside a string quoted by `open_quote` if
/// that is given. A doubled quote inside a string is a quote character.
pub(crate) fn scan_code(text: &str, open_quote: Option<char>) -> CodeScan {
    let mut quote = open_quote;
    let mut quote_start = None;
    let mut chars = text.char_indices().peekable();
    while let Some((index, c)) = chars.next() {
        match quote {
            Some(q) if c == q => {
                if chars.peek().is_some_and(|&(_, next)| next == q) {
                    chars.next();
                } else {
                    quote = None;
                    quote_start = None;
                }
            }
            Some(_) => {}
            None if c == '\'' || c == '"' => {
                quote = Some(c);
                quote_start = Some(index);
            }
            None if c == '!' => {
                return CodeScan {
                    comment_start: Some(index),
                    open_quote: None,
                    open_quote_start: None,
                }
            }
            None => {}
        }
    }
    CodeScan {
        comment_start: None,
        open_quote: quote,
        open_quote_start: quote_start,
    }
}

/// If `code` (statement text without comment) is an `include 'name'` line:
/// the name and the byte offset of the `include` keyword.
pub(crate) fn parse_include(code: &str) -> Option<(String, usize)> {
    let keyword_start = code.len() - code.trim_start().len();
    let after_blanks = &code[keyword_start..];
    let keyword = after_blanks.get(..7)?;
    if !keyword.eq_ignore_ascii_case("include") {
        return None;
    }
    let rest = after_blanks[7..].trim_start();
    let quote = rest.chars().next().filter(|&c| c == '\'' || c == '"')?;
    let mut name = String::new();
    let mut chars = rest[1..].char_indices().peekable();
    while let Some((index, c)) = chars.next() {
        if c == quote {
            if chars.peek().is_some_and(|&(_, next)| next == quote) {
                chars.next();
                name.push(quote);
                continue;
            }
            let after = &rest[1 + index + 1..];
            return after.trim().is_empty().then_some((name, keyword_start));
        }
        name.push(c);
    }
    None
}

/// A preprocessor line marker `# 12 "file"`, `# 12`, `#line 12 "file"`:
/// the line number and the file name.
pub(crate) fn parse_line_marker(line: &str) -> Option<(usize, Option<String>)> {
    let rest = line.strip_prefix('#')?.trim_start();
    let rest = rest.strip_prefix("line").unwrap_or(rest).trim_start();
    let digits_end = rest
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(rest.len());
    if digits_end == 0 {
        return None;
    }
    let line_number = rest[..digits_end].parse().ok()?;
    let rest = rest[digits_end..].trim_start();
    if rest.is_empty() {
        return Some((line_number, None));
    }
    let name = rest.strip_prefix('"')?;
    let end = name.find('"')?;
    Some((line_number, Some(name[..end].to_string())))
}

/// Is `code` (first line of a statement, label removed) a FORMAT
/// statement? Blanks do not count (fixed form).
pub(crate) fn is_format_statement(code: &str) -> bool {
    let squeezed: String = code
        .chars()
        .filter(|c| !c.is_whitespace())
        .take(7)
        .collect();
    squeezed.eq_ignore_ascii_case("format(")
}

/// Byte offset of a Hollerith edit descriptor (`5Hhello`) in a line of a
/// FORMAT statement, outside strings.
pub(crate) fn find_hollerith(code: &str, open_quote: Option<char>) -> Option<usize> {
    let mut quote = open_quote;
    let mut previous_significant = Some('(');
    let bytes: Vec<(usize, char)> = code.char_indices().collect();
    let mut position = 0;
    while let Some(&(index, c)) = bytes.get(position) {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None if c == '\'' || c == '"' => quote = Some(c),
            None if c.is_ascii_digit() && matches!(previous_significant, Some('(' | ',' | '/')) => {
                let mut next = position;
                while bytes.get(next).is_some_and(|&(_, d)| d.is_ascii_digit()) {
                    next += 1;
                }
                if bytes.get(next).is_some_and(|&(_, h)| h == 'h' || h == 'H') {
                    return Some(index);
                }
                position = next;
                previous_significant = bytes.get(next - 1).map(|&(_, d)| d);
                continue;
            }
            None => {}
        }
        if !c.is_whitespace() {
            previous_significant = Some(c);
        }
        position += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_start_outside_strings_only() {
        let scan = scan_code("x = 'a!b' // \"c!\" ! real", None);
        assert_eq!(scan.comment_start, Some(18));
        assert_eq!(scan.open_quote, None);
        let scan = scan_code("s = 'it''s ! here'", None);
        assert_eq!(scan.comment_start, None);
        assert_eq!(scan.open_quote, None);
    }

    #[test]
    fn open_strings_are_reported_and_continued() {
        let scan = scan_code("print *, 'abc ! still", None);
        assert_eq!(scan.comment_start, None);
        assert_eq!(scan.open_quote, Some('\''));
        assert_eq!(scan.open_quote_start, Some(9));
        let scan = scan_code("def' ! now a comment", Some('\''));
        assert_eq!(scan.comment_start, Some(5));
        let scan = scan_code("more \"\" text", Some('"'));
        assert_eq!(scan.open_quote, Some('"'));
        assert_eq!(scan.open_quote_start, None);
    }

    #[test]
    fn include_lines() {
        assert_eq!(parse_include("include 'a.h'"), Some(("a.h".into(), 0)));
        assert_eq!(
            parse_include("  INCLUDE \"b c.inc\"  "),
            Some(("b c.inc".into(), 2))
        );
        assert_eq!(
            parse_include("Include'it''s.h'"),
            Some(("it's.h".into(), 0))
        );
        assert_eq!(parse_include("include = 3"), None);
        assert_eq!(parse_include("include 'a.h' x"), None);
        assert_eq!(parse_include("include 'a.h"), None);
        assert_eq!(parse_include("includes 'a.h'"), None);
        assert_eq!(parse_include("inc"), None);
    }

    #[test]
    fn line_markers() {
        assert_eq!(
            parse_line_marker("# 12 \"x.F90\" 2"),
            Some((12, Some("x.F90".into())))
        );
        assert_eq!(parse_line_marker("#line 7"), Some((7, None)));
        assert_eq!(parse_line_marker("#define X 1"), None);
        assert_eq!(parse_line_marker("# 3 \"unterminated"), None);
    }

    #[test]
    fn hollerith_in_format_statements() {
        assert!(is_format_statement("FORMAT (1x, i5)"));
        assert!(is_format_statement("for mat(a)"));
        assert!(!is_format_statement("formatted = 1"));
        assert_eq!(find_hollerith("format(1x, 5Hhello)", None), Some(11));
        assert_eq!(find_hollerith("format(12habcdefghijkl)", None), Some(7));
        assert_eq!(
            find_hollerith("format(1x, i5, 'say 5Hi', 2(f8.3))", None),
            None
        );
        assert_eq!(find_hollerith("format(e12.4, 3x)", None), None);
    }
}
