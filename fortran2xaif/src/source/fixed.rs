//! Fixed form to free form, one output line per input line.
//!
//! A statement line `LLLLLCtext` becomes `LLLLL text` (columns unchanged);
//! a continuation line becomes `     &text` and the previous code line of the
//! statement gets a trailing `&`. Columns 73 and beyond of code lines are
//! dropped; comment lines are kept whole.

use super::scan::{self, CodeScan};
use super::{FileContext, Loader};
use crate::diagnostics::{Diagnostic, Kind, Location};

/// Statement text runs from column 7 to column 72.
const TEXT_WIDTH: usize = 66;

/// How one physical line of fixed-form source is built.
enum FixedLine<'a> {
    Blank,
    /// Comment character at this byte offset.
    Comment(usize),
    Directive,
    Code {
        label: &'a str,
        continuation: bool,
        /// Byte offset where the statement text (column 7) starts.
        text_start: usize,
    },
    /// A character in the label field (columns 1 to 5) that is neither a
    /// digit nor a blank, at this byte offset.
    BadLabel(usize),
}

fn classify(line: &str) -> FixedLine<'_> {
    let Some((first_nonblank, first)) = line.char_indices().find(|(_, c)| !c.is_whitespace())
    else {
        return FixedLine::Blank;
    };
    if first_nonblank == 0 && matches!(first, 'c' | 'C' | '*' | '!' | 'd' | 'D') {
        return FixedLine::Comment(0);
    }
    if first_nonblank == 0 && first == '#' {
        return FixedLine::Directive;
    }
    // Tab format: a tab within columns 1-6 after nothing but label digits
    // and blanks; a digit 1-9 right after the tab marks a continuation.
    let field: Vec<(usize, char)> = line.char_indices().take(6).collect();
    if let Some(&(tab, _)) = field.iter().find(|(_, c)| *c == '\t') {
        let label = &line[..tab];
        if let Some(bad) = label.find(|c: char| c != ' ' && !c.is_ascii_digit()) {
            return label_or_comment(bad, first_nonblank, first);
        }
        let after_tab = tab + 1;
        if first == '!' && first_nonblank == after_tab {
            return FixedLine::Comment(first_nonblank);
        }
        let continuation = line[after_tab..].starts_with(|c: char| ('1'..='9').contains(&c));
        return FixedLine::Code {
            label,
            continuation,
            text_start: after_tab + usize::from(continuation),
        };
    }
    // `!` starts a comment anywhere but in column 6.
    if first == '!' && first_nonblank != 5 {
        return FixedLine::Comment(first_nonblank);
    }
    let label_end = field.get(5).map_or(line.len(), |&(index, _)| index);
    let label = &line[..label_end];
    if let Some(bad) = label.find(|c: char| c != ' ' && !c.is_ascii_digit()) {
        return label_or_comment(bad, first_nonblank, first);
    }
    let marker = field.get(5).map(|&(_, c)| c);
    let continuation = marker.is_some_and(|c| c != ' ' && c != '0');
    FixedLine::Code {
        label,
        continuation,
        text_start: label_end + marker.map_or(0, char::len_utf8),
    }
}

/// A label field with something other than digits and blanks: a comment
/// if that something is a `!`, else an error.
fn label_or_comment<'a>(bad: usize, first_nonblank: usize, first: char) -> FixedLine<'a> {
    if first == '!' {
        FixedLine::Comment(first_nonblank)
    } else {
        FixedLine::BadLabel(bad)
    }
}

/// The last code line of the statement being read, which gets the `&` if
/// a continuation line follows.
struct OpenStatement {
    /// Index of that line in `Loader::lines`.
    line_index: usize,
    /// Byte offset in that line where its code ends (before blanks and an
    /// inline comment).
    code_end: usize,
    /// Characters of statement text on that line (for padding a string).
    text_chars: usize,
    /// The line's text fills column 72 with a non-blank character, so a
    /// token may go on in column 7 of the next line.
    reaches_margin: bool,
    open_quote: Option<char>,
    /// Where the still-open string started.
    quote_location: Option<Location>,
    is_format: bool,
}

impl Loader {
    pub(super) fn process_fixed<'a>(
        &mut self,
        cx: &mut FileContext,
        lines: impl Iterator<Item = &'a str>,
    ) -> Result<(), Diagnostic> {
        let mut open: Option<OpenStatement> = None;
        for (index, line) in lines.enumerate() {
            let physical_line = index + 1;
            match classify(line) {
                FixedLine::Blank => {
                    self.push_line(cx, physical_line, String::new(), &[]);
                }
                FixedLine::Comment(marker) => {
                    // `c`, `C`, `*`, `d`, `D` in column 1 become `!`; the
                    // rest of the line is kept, so columns do not move.
                    let text = if marker == 0 && !line.starts_with('!') {
                        format!("!{}", &line[1..])
                    } else {
                        line.to_string()
                    };
                    // Like statements, pragmas end at column 72: sequence
                    // numbers beyond are not part of a name list.
                    self.comment_line(cx, physical_line, first_72_columns(line), marker, text)?;
                }
                FixedLine::Directive => {
                    close_statement(open.take())?;
                    self.directive_line(cx, physical_line, line)?;
                }
                FixedLine::BadLabel(offset) => {
                    return Err(Diagnostic::of_kind(
                        Kind::Syntax,
                        self.location(cx, physical_line, offset),
                        "invalid character in the label field (columns 1-5) of a fixed-form line",
                    )
                    .with_note(
                        "fixed-form statements start in column 7; if this file is free form, \
                         give it a .f90 extension or select the free form",
                    ));
                }
                FixedLine::Code {
                    label,
                    continuation,
                    text_start,
                } => {
                    let text = statement_text(&line[text_start..]);
                    if continuation {
                        let Some(statement) = open.take() else {
                            return Err(Diagnostic::of_kind(
                                Kind::Syntax,
                                self.location(cx, physical_line, text_start.saturating_sub(1)),
                                "continuation line with no statement to continue",
                            ));
                        };
                        open = Some(self.continue_statement(
                            cx,
                            physical_line,
                            statement,
                            text,
                            text_start,
                        )?);
                    } else {
                        close_statement(open.take())?;
                        if label.trim().is_empty() {
                            let code_end = scan::scan_code(text, None)
                                .comment_start
                                .unwrap_or(text.len());
                            if let Some((name, keyword)) = scan::parse_include(&text[..code_end]) {
                                let site = self.location(cx, physical_line, text_start + keyword);
                                self.include(cx, physical_line, &name, site)?;
                                continue;
                            }
                        }
                        open = Some(self.start_statement(
                            cx,
                            physical_line,
                            label,
                            text,
                            text_start,
                        )?);
                    }
                }
            }
        }
        close_statement(open)
    }

    fn start_statement(
        &mut self,
        cx: &FileContext,
        physical_line: usize,
        label: &str,
        text: &str,
        text_start: usize,
    ) -> Result<OpenStatement, Diagnostic> {
        let is_format = scan::is_format_statement(text);
        let prefix = format!("{label:<5} ");
        self.statement_line(cx, physical_line, prefix, text, text_start, None, is_format)
    }

    fn continue_statement(
        &mut self,
        cx: &FileContext,
        physical_line: usize,
        statement: OpenStatement,
        text: &str,
        text_start: usize,
    ) -> Result<OpenStatement, Diagnostic> {
        let previous = &mut self.lines[statement.line_index];
        let suffix = if statement.open_quote.is_some() {
            // Fixed form pads a line to column 72 with blanks, and inside a
            // string those blanks count.
            let padding = TEXT_WIDTH.saturating_sub(statement.text_chars);
            format!("{}&", " ".repeat(padding))
        } else if statement.reaches_margin {
            "&".to_string()
        } else {
            " &".to_string()
        };
        let code_end = statement.code_end.min(previous.len());
        previous.insert_str(code_end, &suffix);
        self.map
            .record_insertion(statement.line_index, code_end, suffix.len());
        self.statement_line(
            cx,
            physical_line,
            "     &".to_string(),
            text,
            text_start,
            statement
                .open_quote
                .map(|quote| (quote, statement.quote_location)),
            statement.is_format,
        )
    }

    /// Emits `prefix` + `text` and returns the statement state after it.
    #[allow(clippy::too_many_arguments)]
    fn statement_line(
        &mut self,
        cx: &FileContext,
        physical_line: usize,
        prefix: String,
        text: &str,
        text_start: usize,
        open_string: Option<(char, Option<Location>)>,
        is_format: bool,
    ) -> Result<OpenStatement, Diagnostic> {
        let open_quote = open_string.as_ref().map(|(quote, _)| *quote);
        if is_format {
            if let Some(offset) = scan::find_hollerith(text, open_quote) {
                return Err(Diagnostic::of_kind(
                    Kind::Unsupported,
                    self.location(cx, physical_line, text_start + offset),
                    "Hollerith edit descriptors are not supported",
                )
                .with_note("write the text as a character constant, e.g. 'hello'"));
            }
        }
        let CodeScan {
            comment_start,
            open_quote: quote_at_end,
            open_quote_start,
        } = scan::scan_code(text, open_quote);
        let code = &text[..comment_start.unwrap_or(text.len())];
        let code_len = if quote_at_end.is_some() {
            code.len()
        } else {
            code.trim_end().len()
        };
        let kept = if comment_start.is_some() || quote_at_end.is_some() {
            text
        } else {
            text.trim_end()
        };
        let quote_location = match (quote_at_end, open_quote_start) {
            (None, _) => None,
            (Some(_), Some(start)) => Some(self.location(cx, physical_line, text_start + start)),
            (Some(_), None) => open_string.and_then(|(_, location)| location),
        };
        let text_chars = text.chars().count();
        let reaches_margin = comment_start.is_none()
            && text_chars == TEXT_WIDTH
            && text.chars().last().is_some_and(|c| !c.is_whitespace());
        let code_end = prefix.len() + code_len;
        let segments = [(1, 1), (prefix.len() + 1, text_start + 1)];
        let line_index = self.push_line(cx, physical_line, format!("{prefix}{kept}"), &segments);
        Ok(OpenStatement {
            line_index,
            code_end,
            text_chars,
            reaches_margin,
            open_quote: quote_at_end,
            quote_location,
            is_format,
        })
    }
}

/// A statement ends: a string still open in it was never closed.
fn close_statement(statement: Option<OpenStatement>) -> Result<(), Diagnostic> {
    match statement {
        Some(OpenStatement {
            open_quote: Some(_),
            quote_location: Some(location),
            ..
        }) => Err(Diagnostic::of_kind(
            Kind::Syntax,
            location,
            "unterminated character constant",
        )),
        _ => Ok(()),
    }
}

fn first_72_columns(line: &str) -> &str {
    match line.char_indices().nth(72) {
        Some((end, _)) => &line[..end],
        None => line,
    }
}

/// Columns 7 to 72 of a line (given from column 7 on).
fn statement_text(from_column_7: &str) -> &str {
    match from_column_7.char_indices().nth(TEXT_WIDTH) {
        Some((end, _)) => &from_column_7[..end],
        None => from_column_7,
    }
}
