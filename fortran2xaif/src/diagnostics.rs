//! Diagnostics of the front end: a severity, a place in an original source
//! file, a one-line message and optional notes.
//!
//! `Display` gives the GNU one-line form `file:line:column: error: message`
//! that editors and `compile` modes understand; [`render`] adds the source
//! line with a caret under the column (rendered by `codespan-reporting`).

use std::fmt;
use std::path::{Path, PathBuf};

use codespan_reporting::diagnostic as cs;
use codespan_reporting::files::SimpleFile;
use codespan_reporting::term;

/// A place in an original source file. `line` and `column` are 1-based;
/// `column` counts bytes within the line (the same as characters for ASCII
/// source).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Location {
    pub file: PathBuf,
    pub line: usize,
    pub column: usize,
}

impl Location {
    pub fn new(file: impl Into<PathBuf>, line: usize, column: usize) -> Self {
        Location {
            file: file.into(),
            line,
            column,
        }
    }

    /// The start of a file, where problems with the file as a whole go.
    pub fn start_of(file: impl Into<PathBuf>) -> Self {
        Location::new(file, 1, 1)
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.file.display(), self.line, self.column)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Severity {
    Error,
    Warning,
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        })
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    pub severity: Severity,
    pub location: Location,
    pub message: String,
    pub notes: Vec<String>,
}

impl Diagnostic {
    pub fn error(location: Location, message: impl Into<String>) -> Self {
        Diagnostic::new(Severity::Error, location, message)
    }

    pub fn warning(location: Location, message: impl Into<String>) -> Self {
        Diagnostic::new(Severity::Warning, location, message)
    }

    pub fn new(severity: Severity, location: Location, message: impl Into<String>) -> Self {
        Diagnostic {
            severity,
            location,
            message: message.into(),
            notes: Vec::new(),
        }
    }

    pub fn with_note(mut self, note: impl Into<String>) -> Self {
        self.notes.push(note.into());
        self
    }

    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: {}: {}",
            self.location,
            self.severity,
            one_line(&self.message)
        )
    }
}

impl std::error::Error for Diagnostic {}

/// Messages are meant to be one line; a stray newline would break the GNU
/// format that tools parse, so it becomes a blank.
fn one_line(message: &str) -> std::borrow::Cow<'_, str> {
    if message.contains(['\n', '\r']) {
        std::borrow::Cow::Owned(message.replace(['\n', '\r'], " "))
    } else {
        std::borrow::Cow::Borrowed(message)
    }
}

/// The diagnostic as a user should see it: the GNU line, then the original
/// source line with a caret under the column, then the notes. When the file
/// cannot be read or has no such line, the snippet is left out.
pub fn render(diag: &Diagnostic) -> String {
    let mut out = format!("{diag}\n");
    match render_snippet(diag) {
        Some(snippet) => out.push_str(&snippet),
        None => {
            for note in &diag.notes {
                out.push_str(&format!("  = note: {}\n", one_line(note)));
            }
        }
    }
    out
}

/// codespan-reporting's rich view without its header line (the header
/// repeats the message that the GNU line already gave).
fn render_snippet(diag: &Diagnostic) -> Option<String> {
    let source = read_lossy(&diag.location.file)?;
    let range = byte_range_of(&source, diag.location.line, diag.location.column)?;
    let file = SimpleFile::new(diag.location.file.display().to_string(), source);
    let severity = match diag.severity {
        Severity::Error => cs::Severity::Error,
        Severity::Warning => cs::Severity::Warning,
    };
    let notes = diag
        .notes
        .iter()
        .map(|note| format!("note: {}", one_line(note)))
        .collect();
    let codespan_diag = cs::Diagnostic::new(severity)
        .with_message(one_line(&diag.message))
        .with_labels(vec![cs::Label::primary((), range)])
        .with_notes(notes);
    let config = term::Config {
        chars: term::Chars::ascii(),
        ..term::Config::default()
    };
    let mut writer = term::termcolor::NoColor::new(Vec::<u8>::new());
    term::emit(&mut writer, &config, &file, &codespan_diag).ok()?;
    let rendered = String::from_utf8_lossy(&writer.into_inner()).into_owned();
    let (_header, snippet) = rendered.split_once('\n')?;
    Some(format!("{}\n", snippet.trim_end()))
}

fn read_lossy(path: &Path) -> Option<String> {
    let bytes = std::fs::read(path).ok()?;
    Some(String::from_utf8_lossy(&bytes).into_owned())
}

/// Byte range of the character at 1-based (`line`, `column`), the column
/// clamped to the line's end (an empty range there). `None` if the file has
/// no such line.
fn byte_range_of(source: &str, line: usize, column: usize) -> Option<std::ops::Range<usize>> {
    let line_start = if line <= 1 {
        0
    } else {
        source
            .match_indices('\n')
            .nth(line - 2)
            .map(|(index, _)| index + 1)?
    };
    if line_start > source.len() {
        return None;
    }
    let rest = &source[line_start..];
    let line_text = rest.split(['\n', '\r']).next().unwrap_or("");
    let mut offset = column.saturating_sub(1).min(line_text.len());
    while !line_text.is_char_boundary(offset) {
        offset -= 1;
    }
    let width = line_text[offset..]
        .chars()
        .next()
        .map_or(0, |first| first.len_utf8());
    let start = line_start + offset;
    Some(start..start + width)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_is_gnu_one_line_form() {
        let diag = Diagnostic::error(Location::new("dir/a.f", 12, 7), "bad thing")
            .with_note("a note that Display leaves out");
        assert_eq!(diag.to_string(), "dir/a.f:12:7: error: bad thing");
        let warning = Diagnostic::warning(Location::new("b.f90", 1, 2), "odd\nthing");
        assert_eq!(warning.to_string(), "b.f90:1:2: warning: odd thing");
    }

    #[test]
    fn diagnostic_is_a_std_error() {
        let diag = Diagnostic::error(Location::start_of("x.f"), "boom");
        let boxed: Box<dyn std::error::Error> = Box::new(diag);
        assert_eq!(boxed.to_string(), "x.f:1:1: error: boom");
    }

    #[test]
    fn render_puts_caret_under_the_column() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("p.f");
        std::fs::write(&path, "      program p\n      x = y + z\n      end\n").unwrap();
        let diag = Diagnostic::error(Location::new(&path, 2, 15), "unknown variable z")
            .with_note("declare it");
        let text = render(&diag);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines[0],
            format!("{}:2:15: error: unknown variable z", path.display())
        );
        let source_line = lines
            .iter()
            .position(|line| line.ends_with("      x = y + z"))
            .expect("source line shown");
        let caret_line = lines[source_line + 1];
        let bar = lines[source_line].find("      x").unwrap();
        assert_eq!(caret_line.find('^'), Some(bar + 14), "{text}");
        assert!(text.contains("note: declare it"), "{text}");
        assert!(!text.contains("\u{1b}["), "no colour codes: {text}");
        assert!(text.ends_with("note: declare it\n"), "{text:?}");
    }

    #[test]
    fn render_degrades_when_file_is_missing_or_short() {
        let diag =
            Diagnostic::error(Location::new("/nonexistent/q.f", 3, 1), "gone").with_note("n");
        assert_eq!(
            render(&diag),
            "/nonexistent/q.f:3:1: error: gone\n  = note: n\n"
        );
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("short.f90");
        std::fs::write(&path, "x = 1\n").unwrap();
        let beyond = Diagnostic::warning(Location::new(&path, 40, 3), "far away");
        assert_eq!(render(&beyond), format!("{beyond}\n"));
        // A column past the end of the line still renders, at the line end.
        let past_end = Diagnostic::warning(Location::new(&path, 1, 99), "past end");
        assert!(render(&past_end).contains('^'));
    }

    #[test]
    fn byte_range_handles_multibyte_and_line_zero() {
        let source = "ab\néx\n";
        assert_eq!(byte_range_of(source, 2, 1), Some(3..5));
        // Column inside a multi-byte character snaps back to its start.
        assert_eq!(byte_range_of(source, 2, 2), Some(3..5));
        assert_eq!(byte_range_of(source, 0, 0), Some(0..1));
        assert_eq!(byte_range_of(source, 5, 1), None);
    }
}
