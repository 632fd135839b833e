//! The one diagnostic type of every stage: a severity, a kind (what sort
//! of problem, for tools and tests to match on), a place in a file the user
//! gave, a one-line message and optional notes.
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

    /// No place in a file: a problem of the program `name` itself (its
    /// options, a tool it needs, a stage it runs). Line and column are 0,
    /// and the GNU form shows only the name (`openad: error: ...`).
    pub fn program(name: impl Into<PathBuf>) -> Self {
        Location::new(name, 0, 0)
    }

    /// Whether this is a [`Location::program`], not a place in a file.
    pub fn is_program(&self) -> bool {
        self.line == 0
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_program() {
            return write!(f, "{}", self.file.display());
        }
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

/// What sort of problem a diagnostic reports. The message says what and
/// why for the user; the kind is what programs (tests, `openad check`,
/// editors) match on, never the message text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// The input is not well-formed: Fortran that does not parse, XML that
    /// is not XAIF, a malformed pragma or side file.
    Syntax,
    /// Well-formed input that breaks a rule of the language or of the tool's
    /// contract (an undeclared name, a wrong pragma target, an argument
    /// mismatch).
    Semantic,
    /// A construct the tool does not handle (in this mode); the message
    /// names the construct ("named error").
    Unsupported,
    /// A file that cannot be read or written.
    InputOutput,
    /// Wrong options on the command line.
    Usage,
    /// A bug of the tool: an invariant between stages does not hold.
    Internal,
}

impl Kind {
    /// The kind's name in machine-readable output (`--error-format json`).
    pub fn name(self) -> &'static str {
        match self {
            Kind::Syntax => "syntax",
            Kind::Semantic => "semantic",
            Kind::Unsupported => "unsupported",
            Kind::InputOutput => "input-output",
            Kind::Usage => "usage",
            Kind::Internal => "internal",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    pub severity: Severity,
    pub kind: Kind,
    pub location: Location,
    pub message: String,
    pub notes: Vec<String>,
}

impl Diagnostic {
    /// An error breaking a rule of the language or the tool (kind
    /// [`Kind::Semantic`]); other kinds have their own constructors.
    pub fn error(location: Location, message: impl Into<String>) -> Self {
        Diagnostic::new(Severity::Error, location, message)
    }

    /// An error of the given kind.
    pub fn of_kind(kind: Kind, location: Location, message: impl Into<String>) -> Self {
        Diagnostic::error(location, message).with_kind(kind)
    }

    /// A construct the tool refuses: `message` names it.
    pub fn unsupported(location: Location, message: impl Into<String>) -> Self {
        Diagnostic::error(location, message).with_kind(Kind::Unsupported)
    }

    /// Input that does not parse.
    pub fn syntax(location: Location, message: impl Into<String>) -> Self {
        Diagnostic::error(location, message).with_kind(Kind::Syntax)
    }

    /// A file that cannot be read or written (at its start).
    pub fn input_output(file: impl Into<PathBuf>, message: impl Into<String>) -> Self {
        Diagnostic::error(Location::start_of(file), message).with_kind(Kind::InputOutput)
    }

    /// Options the program `program` refuses (at no place in a file).
    pub fn usage(program: &str, message: impl Into<String>) -> Self {
        Diagnostic::of_program(Kind::Usage, program, message)
    }

    /// An error of program `program` itself, at no place in a file (a
    /// stage or tool it cannot find or run, a directory it cannot write).
    pub fn of_program(kind: Kind, program: &str, message: impl Into<String>) -> Self {
        Diagnostic::of_kind(kind, Location::program(program), message)
    }

    /// A broken invariant of the tool itself.
    pub fn internal(location: Location, message: impl Into<String>) -> Self {
        Diagnostic::error(location, message).with_kind(Kind::Internal)
    }

    pub fn warning(location: Location, message: impl Into<String>) -> Self {
        Diagnostic::new(Severity::Warning, location, message)
    }

    pub fn new(severity: Severity, location: Location, message: impl Into<String>) -> Self {
        Diagnostic {
            severity,
            kind: Kind::Semantic,
            location,
            message: message.into(),
            notes: Vec::new(),
        }
    }

    pub fn with_kind(mut self, kind: Kind) -> Self {
        self.kind = kind;
        self
    }

    pub fn with_note(mut self, note: impl Into<String>) -> Self {
        self.notes.push(note.into());
        self
    }

    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }

    /// One JSON object on one line (`--error-format json`): `severity`,
    /// `kind` ([`Kind::name`]), `file`, `line`, `column`, `message`, `notes`.
    pub fn to_json(&self) -> String {
        serde_json::json!({
            "severity": self.severity.to_string(),
            "kind": self.kind.name(),
            "file": self.location.file.display().to_string(),
            "line": self.location.line,
            "column": self.location.column,
            "message": self.message,
            "notes": self.notes,
        })
        .to_string()
    }

    /// Reads back what [`Diagnostic::to_json`] wrote; `None` for any other line.
    pub fn from_json(line: &str) -> Option<Diagnostic> {
        let v: serde_json::Value = serde_json::from_str(line).ok()?;
        let kind = match v.get("kind")?.as_str()? {
            "syntax" => Kind::Syntax,
            "semantic" => Kind::Semantic,
            "unsupported" => Kind::Unsupported,
            "input-output" => Kind::InputOutput,
            "usage" => Kind::Usage,
            "internal" => Kind::Internal,
            _ => return None,
        };
        let severity = match v.get("severity")?.as_str()? {
            "error" => Severity::Error,
            "warning" => Severity::Warning,
            _ => return None,
        };
        let location = Location::new(
            v.get("file")?.as_str()?,
            v.get("line")?.as_u64()? as usize,
            v.get("column")?.as_u64()? as usize,
        );
        let notes = v
            .get("notes")?
            .as_array()?
            .iter()
            .map(|n| n.as_str().map(str::to_string))
            .collect::<Option<Vec<_>>>()?;
        Some(Diagnostic {
            severity,
            kind,
            location,
            message: v.get("message")?.as_str()?.to_string(),
            notes,
        })
    }
}

/// How a stage prints its diagnostics on stderr (`--error-format`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum ErrorFormat {
    /// The GNU line, the source line with a caret, the notes ([`render`]).
    #[default]
    Human,
    /// One JSON object per line ([`Diagnostic::to_json`]).
    Json,
}

impl ErrorFormat {
    /// The text to print for `diag`, ending with a newline.
    pub fn format(self, diag: &Diagnostic) -> String {
        match self {
            ErrorFormat::Human => render(diag),
            ErrorFormat::Json => format!("{}\n", diag.to_json()),
        }
    }

    /// Prints `diag` on stderr in this format.
    pub fn print(self, diag: &Diagnostic) {
        eprint!("{}", self.format(diag));
    }

    /// The format a command line asks for, read from its words before (or
    /// without) parsing them, so that a command line the parser refuses is
    /// still reported in the format asked for. The last `--error-format`
    /// wins, as with the parser; anything unreadable means human.
    pub fn from_args<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> ErrorFormat {
        let mut format = ErrorFormat::Human;
        let mut words = args.iter().map(|a| a.as_ref().to_string_lossy());
        while let Some(word) = words.next() {
            let value = match word.strip_prefix("--error-format") {
                Some("") => words.next().map(|v| v.into_owned()),
                Some(rest) => rest.strip_prefix('=').map(str::to_string),
                None => None,
            };
            match value.as_deref() {
                Some("json") => format = ErrorFormat::Json,
                Some("human") => format = ErrorFormat::Human,
                _ => {}
            }
        }
        format
    }
}

/// What clap refused, in one line: the first line of its text without the
/// `error: ` that the diagnostic's severity already says (the rest of the
/// text is usage help).
pub fn cli_error_message(error: &clap::Error) -> String {
    let rendered = error.render().to_string();
    rendered
        .lines()
        .next()
        .map(|l| l.trim_start_matches("error: ").to_string())
        .filter(|l| !l.is_empty())
        .unwrap_or_else(|| error.kind().to_string())
}

/// Reports a command line that clap refused, as program `program`'s usage
/// diagnostic in `format` (human: clap's own text, which shows the usage
/// line), and returns the exit status: 2, or 0 for `--help`/`--version`,
/// which clap models as errors and prints on stdout.
pub fn report_cli_error(error: &clap::Error, program: &str, format: ErrorFormat) -> u8 {
    if !error.use_stderr() {
        let _ = error.print();
        return 0;
    }
    match format {
        ErrorFormat::Human => {
            let _ = error.print();
        }
        ErrorFormat::Json => {
            // clap's hints (possible values, a similar option) become notes;
            // its usage line and help pointer are for people at a terminal.
            let rendered = error.render().to_string();
            let notes = rendered
                .lines()
                .skip(1)
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .take_while(|l| !l.starts_with("Usage:") && !l.starts_with("For more information"));
            let diag = notes.fold(
                Diagnostic::usage(program, cli_error_message(error)),
                |d, note| d.with_note(note),
            );
            format.print(&diag)
        }
    }
    2
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

/// A reader error becomes a diagnostic at its place in the XAIF file: a
/// file that could not be read (no position) is an input/output problem,
/// anything else malformed input.
impl From<crate::XaifError> for Diagnostic {
    fn from(e: crate::XaifError) -> Self {
        let message = e.message.strip_prefix("error: ").unwrap_or(&e.message);
        let kind = if e.line == 0 {
            Kind::InputOutput
        } else {
            Kind::Syntax
        };
        Diagnostic::error(
            Location::new(e.file.as_str(), e.line.max(1), e.column.max(1)),
            message.to_string(),
        )
        .with_kind(kind)
    }
}

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
    if diag.location.is_program() {
        return None;
    }
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
    fn json_round_trips_kind_place_and_notes() {
        let diag = Diagnostic::unsupported(
            Location::new("m.f90", 7, 3),
            "unsupported construct: 'x' \"q\"",
        )
        .with_note("use -m rs");
        let line = diag.to_json();
        assert!(!line.contains('\n'));
        assert!(line.contains("\"kind\":\"unsupported\""), "{line}");
        assert_eq!(Diagnostic::from_json(&line), Some(diag));
        assert_eq!(Diagnostic::from_json("m.f90:7:3: error: x"), None);
    }

    #[test]
    fn constructors_set_their_kind() {
        let at = || Location::new("a.f90", 1, 1);
        assert_eq!(Diagnostic::error(at(), "m").kind, Kind::Semantic);
        assert_eq!(Diagnostic::syntax(at(), "m").kind, Kind::Syntax);
        assert_eq!(Diagnostic::unsupported(at(), "m").kind, Kind::Unsupported);
        assert_eq!(Diagnostic::internal(at(), "m").kind, Kind::Internal);
        assert_eq!(
            Diagnostic::input_output("a.f90", "m").kind,
            Kind::InputOutput
        );
        let unreadable = crate::XaifError::without_position("p.xaif", "cannot open");
        assert_eq!(Diagnostic::from(unreadable).kind, Kind::InputOutput);
        let malformed = crate::XaifError {
            file: "p.xaif".into(),
            line: 3,
            column: 0,
            message: "error: bad".into(),
        };
        let d = Diagnostic::from(malformed);
        assert_eq!(
            (d.kind, d.location.line, d.location.column),
            (Kind::Syntax, 3, 1)
        );
        assert_eq!(d.message, "bad");
    }

    #[test]
    fn display_is_gnu_one_line_form() {
        let diag = Diagnostic::error(Location::new("dir/a.f", 12, 7), "bad thing")
            .with_note("a note that Display leaves out");
        assert_eq!(diag.to_string(), "dir/a.f:12:7: error: bad thing");
        let warning = Diagnostic::warning(Location::new("b.f90", 1, 2), "odd\nthing");
        assert_eq!(warning.to_string(), "b.f90:1:2: warning: odd thing");
    }

    #[test]
    fn program_diagnostics_have_no_place_in_a_file() {
        let diag = Diagnostic::usage("openad", "-m needs f, fv, rs or rj");
        assert_eq!(diag.kind, Kind::Usage);
        assert_eq!(diag.to_string(), "openad: error: -m needs f, fv, rs or rj");
        // No snippet, even when a file of the program's name exists here.
        assert_eq!(render(&diag), format!("{diag}\n"));
        let line = diag.to_json();
        assert!(line.contains("\"line\":0"), "{line}");
        assert_eq!(Diagnostic::from_json(&line), Some(diag));
    }

    #[test]
    fn error_format_is_read_from_unparsed_words() {
        let f = |words: &[&str]| ErrorFormat::from_args(words);
        assert_eq!(f(&["openad", "x.f90"]), ErrorFormat::Human);
        assert_eq!(f(&["--error-format", "json", "-m"]), ErrorFormat::Json);
        assert_eq!(f(&["--error-format=json"]), ErrorFormat::Json);
        assert_eq!(
            f(&["--error-format=json", "--error-format", "human"]),
            ErrorFormat::Human
        );
        assert_eq!(f(&["--error-format"]), ErrorFormat::Human);
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
