//! Source loading: reads a Fortran file (through the C preprocessor when
//! its extension or `--cpp` asks for it), turns fixed form into free form,
//! expands `include` lines, collects `$openad` pragmas and keeps a line map
//! from the normalised text back to the original files.
//!
//! See `docs/frontend-source.md` for the rules.

mod fixed;
mod free;
mod line_map;
mod pragma;
mod preprocess;
mod scan;

#[cfg(test)]
mod tests;

use std::fs;
use std::path::{Path, PathBuf};

pub use crate::diagnostics::Location;
use crate::diagnostics::{Diagnostic, Kind};
pub use line_map::LineMap;
use line_map::{ColumnSegment, LineOrigin};
pub use pragma::{Pragma, PragmaKind, SnapshotCount};
pub use preprocess::{extension_wants_preprocessing, PreprocessOptions, Preprocessing};

/// Source form of a Fortran file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Form {
    Fixed,
    Free,
}

impl std::fmt::Display for Form {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Form::Fixed => "fixed",
            Form::Free => "free",
        })
    }
}

/// `fixed` or `free`, any case (for command-line options).
impl std::str::FromStr for Form {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        if text.eq_ignore_ascii_case("fixed") {
            Ok(Form::Fixed)
        } else if text.eq_ignore_ascii_case("free") {
            Ok(Form::Free)
        } else {
            Err(format!(
                "unknown source form `{text}` (expected `fixed` or `free`)"
            ))
        }
    }
}

/// The form a file's extension stands for: `.f .for .ftn .fpp` fixed, `.f90
/// .f95 .f03 .f08` free, in either case (`.F`, `.F90`, ...).
pub fn form_from_extension(path: impl AsRef<Path>) -> Option<Form> {
    let extension = path.as_ref().extension()?.to_str()?.to_ascii_lowercase();
    match extension.as_str() {
        "f" | "for" | "ftn" | "fpp" => Some(Form::Fixed),
        "f90" | "f95" | "f03" | "f08" => Some(Form::Free),
        _ => None,
    }
}

/// A source file ready for the parser.
#[derive(Debug, Clone)]
pub struct NormalizedSource {
    /// Free-form Fortran, includes expanded, comments kept, one line per
    /// original line (an `include` line is replaced by the included lines).
    pub text: String,
    pub line_map: LineMap,
    /// All `$openad` pragmas, in text order (includes too).
    pub pragmas: Vec<Pragma>,
    /// Things the user should hear about that do not stop loading.
    pub warnings: Vec<Diagnostic>,
}

/// How to read the input files.
#[derive(Debug, Clone, Default)]
pub struct LoadOptions {
    /// The form of every file (default: from each file's extension).
    pub form: Option<Form>,
    pub preprocessor: PreprocessOptions,
}

/// Loads `path` in `form`, or in the form its extension stands for
/// (preprocessed if its extension asks for it).
pub fn load(path: &Path, form: Option<Form>) -> Result<NormalizedSource, Diagnostic> {
    load_with(
        path,
        &LoadOptions {
            form,
            ..LoadOptions::default()
        },
    )
}

/// Loads `path` with `options`: the C preprocessor runs first when
/// `options.preprocessor` applies to the file; its line markers keep the
/// line map pointing at the user's files and headers.
pub fn load_with(path: &Path, options: &LoadOptions) -> Result<NormalizedSource, Diagnostic> {
    let form = options
        .form
        .or_else(|| form_from_extension(path))
        .ok_or_else(|| unknown_form(path))?;
    if !path.is_file() {
        let error = fs::read(path)
            .err()
            .map_or_else(|| "not a regular file".to_string(), |e| e.to_string());
        return Err(Diagnostic::of_kind(
            Kind::InputOutput,
            Location::start_of(path),
            format!("cannot read file: {error}"),
        ));
    }
    let preprocessing = options.preprocessor.applies_to(path);
    let (bytes, cpp_warnings) = if preprocessing {
        let output = preprocess::preprocess(path, form, &options.preprocessor)?;
        (output.text, output.warnings)
    } else {
        let bytes = fs::read(path).map_err(|error| {
            Diagnostic::of_kind(
                Kind::InputOutput,
                Location::start_of(path),
                format!("cannot read file: {error}"),
            )
        })?;
        (bytes, Vec::new())
    };
    let mut loader = Loader::new(path);
    loader.include_dirs = options.preprocessor.include_dirs.clone();
    loader.preprocessed = preprocessing;
    loader.warnings = cpp_warnings;
    let identity = fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    loader.include_stack.push(identity);
    loader.process_file(path, &bytes, form)?;
    Ok(loader.finish())
}

/// Like [`load`], for contents already in memory; `path` names them in
/// diagnostics and anchors relative `include` names.
pub fn normalize_bytes(
    path: &Path,
    bytes: &[u8],
    form: Form,
) -> Result<NormalizedSource, Diagnostic> {
    let mut loader = Loader::new(path);
    let identity = fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    loader.include_stack.push(identity);
    loader.process_file(path, bytes, form)?;
    Ok(loader.finish())
}

fn unknown_form(path: &Path) -> Diagnostic {
    Diagnostic::of_kind(
        Kind::InputOutput,
        Location::start_of(path),
        format!(
            "cannot tell the source form of `{}` from its extension",
            path.display()
        ),
    )
    .with_note("fixed form: .f .F .for .ftn; free form: .f90 .F90 .f95 .f03 .f08")
}

/// What `include 'mpif.h'` reads as.
pub const MPI_HEADER_USE: &str = "use mpi";

/// Whether an include line names MPI's Fortran header.
fn is_mpi_header(name: &str) -> bool {
    let file = name.rsplit('/').next().unwrap_or(name);
    file.eq_ignore_ascii_case("mpif.h")
}

/// Includes nest at most this deep (cycles are caught before that).
const MAX_INCLUDE_DEPTH: usize = 64;

/// Builds the normalised text line by line.
struct Loader {
    lines: Vec<String>,
    map: LineMap,
    pragmas: Vec<Pragma>,
    warnings: Vec<Diagnostic>,
    /// Canonical paths of the files being read, outermost first.
    include_stack: Vec<PathBuf>,
    /// Searched for `include` files after the including file's directory
    /// (`-I`, as gfortran does).
    include_dirs: Vec<PathBuf>,
    /// The text is the C preprocessor's output (for the wording of errors).
    preprocessed: bool,
    /// An OpenMP directive was reported (once per file).
    openmp_reported: bool,
}

/// The file being read and where its lines are said to come from.
struct FileContext<'a> {
    path: &'a Path,
    form: Form,
    /// File-table index lines are attributed to (changed by `# line`
    /// markers).
    reported_file: usize,
    /// Added to the physical line number (changed by `# line` markers).
    line_offset: i64,
    /// Bytes removed from the start of physical line 1 (a byte-order mark).
    first_line_shift: usize,
}

impl FileContext<'_> {
    fn reported_line(&self, physical_line: usize) -> usize {
        let line = (physical_line as i64).saturating_add(self.line_offset);
        usize::try_from(line).unwrap_or(1).max(1)
    }

    fn column_shift(&self, physical_line: usize) -> usize {
        if physical_line == 1 {
            self.first_line_shift
        } else {
            0
        }
    }
}

impl Loader {
    fn new(root: &Path) -> Self {
        Loader {
            lines: Vec::new(),
            map: LineMap::new(root.to_path_buf()),
            pragmas: Vec::new(),
            warnings: Vec::new(),
            include_stack: Vec::new(),
            include_dirs: Vec::new(),
            preprocessed: false,
            openmp_reported: false,
        }
    }

    fn finish(self) -> NormalizedSource {
        let mut text = self.lines.join("\n");
        if !self.lines.is_empty() {
            text.push('\n');
        }
        NormalizedSource {
            text,
            line_map: self.map,
            pragmas: self.pragmas,
            warnings: self.warnings,
        }
    }

    fn process_file(&mut self, path: &Path, bytes: &[u8], form: Form) -> Result<(), Diagnostic> {
        let file_index = self.map.file_index(path);
        let mut contents = self.decode(path, bytes);
        let mut cx = FileContext {
            path,
            form,
            reported_file: file_index,
            line_offset: 0,
            first_line_shift: 0,
        };
        if let Some(rest) = contents.strip_prefix('\u{feff}') {
            cx.first_line_shift = '\u{feff}'.len_utf8();
            contents = rest.to_string();
        }
        let mut physical_lines: Vec<&str> = contents.split('\n').collect();
        if contents.ends_with('\n') || contents.is_empty() {
            physical_lines.pop();
        }
        let physical_lines = physical_lines
            .into_iter()
            .map(|line| line.strip_suffix('\r').unwrap_or(line));
        match form {
            Form::Fixed => self.process_fixed(&mut cx, physical_lines),
            Form::Free => self.process_free(&mut cx, physical_lines),
        }
    }

    /// Invalid UTF-8 is replaced (it can only sensibly occur in comments
    /// and strings) and reported once per file.
    fn decode(&mut self, path: &Path, bytes: &[u8]) -> String {
        match std::str::from_utf8(bytes) {
            Ok(text) => text.to_string(),
            Err(error) => {
                let valid = &bytes[..error.valid_up_to()];
                let line = 1 + valid.iter().filter(|&&byte| byte == b'\n').count();
                let line_start = valid
                    .iter()
                    .rposition(|&byte| byte == b'\n')
                    .map_or(0, |index| index + 1);
                let column = valid.len() - line_start + 1;
                self.warnings.push(Diagnostic::warning(
                    Location::new(path, line, column),
                    "file is not valid UTF-8; invalid bytes were replaced",
                ));
                String::from_utf8_lossy(bytes).into_owned()
            }
        }
    }

    /// Location in the original file of byte `offset` of physical line
    /// `physical_line`.
    fn location(&self, cx: &FileContext, physical_line: usize, offset: usize) -> Location {
        let file = self
            .map
            .files()
            .get(cx.reported_file)
            .cloned()
            .unwrap_or_else(|| cx.path.to_path_buf());
        Location::new(
            file,
            cx.reported_line(physical_line),
            offset + 1 + cx.column_shift(physical_line),
        )
    }

    /// Appends a line of normalised text. `segments` are (text column,
    /// physical column) pairs, without the byte-order-mark shift.
    fn push_line(
        &mut self,
        cx: &FileContext,
        physical_line: usize,
        text: String,
        segments: &[(usize, usize)],
    ) -> usize {
        let shift = cx.column_shift(physical_line);
        let segments = if segments.is_empty() {
            vec![ColumnSegment {
                text_column: 1,
                original_column: 1 + shift,
            }]
        } else {
            segments
                .iter()
                .map(|&(text_column, original_column)| ColumnSegment {
                    text_column,
                    original_column: original_column + shift,
                })
                .collect()
        };
        self.map.push(LineOrigin {
            file: cx.reported_file,
            line: cx.reported_line(physical_line),
            segments,
        });
        self.lines.push(text);
        self.lines.len() - 1
    }

    /// A whole-line comment, copied to the text as `text`; checks `line`
    /// (the comment as far as it counts) for a pragma whose comment
    /// character is at byte `marker`.
    fn comment_line(
        &mut self,
        cx: &FileContext,
        physical_line: usize,
        line: &str,
        marker: usize,
        text: String,
    ) -> Result<(), Diagnostic> {
        self.push_line(cx, physical_line, text, &[]);
        let body_start = marker + line[marker..].chars().next().map_or(1, char::len_utf8);
        if let Some((body, offset)) = pragma::pragma_body(&line[body_start..]) {
            let location = self.location(cx, physical_line, marker);
            let body_location = self.location(cx, physical_line, body_start + offset);
            let pragma = pragma::parse(body, self.lines.len(), location, &body_location)?;
            self.pragmas.push(pragma);
        } else if let Some((body, offset)) = pragma::tapenade_body(&line[body_start..]) {
            let location = self.location(cx, physical_line, marker);
            let body_location = self.location(cx, physical_line, body_start + offset);
            match pragma::parse_tapenade(body, self.lines.len(), location.clone(), &body_location)?
            {
                Some(pragma) => self.pragmas.push(pragma),
                None => self.warnings.push(Diagnostic::warning(
                    location,
                    format!("Tapenade directive `$AD{}` ignored", body.trim_end()),
                )),
            }
        } else if !self.openmp_reported && pragma::is_openmp_directive(&line[body_start..]) {
            self.openmp_reported = true;
            self.warnings.push(Diagnostic::warning(
                self.location(cx, physical_line, marker),
                "OpenMP directives are ignored (this one and any later in the file): the derivative code runs serially",
            ));
        }
        Ok(())
    }

    /// A line starting with `#`: a `# N "file"` / `#line N "file"` marker
    /// (as a preprocessor writes) redirects the line map; other directives
    /// are rejected. The line itself becomes an empty line.
    fn directive_line(
        &mut self,
        cx: &mut FileContext,
        physical_line: usize,
        line: &str,
    ) -> Result<(), Diagnostic> {
        let Some((line_number, file)) = scan::parse_line_marker(line) else {
            let name: String = line[1..]
                .trim_start()
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric())
                .collect();
            let error = Diagnostic::of_kind(
                Kind::Unsupported,
                self.location(cx, physical_line, 0),
                format!("preprocessor directive `#{name}` is not supported"),
            );
            return Err(if self.preprocessed {
                error.with_note("the C preprocessor left this directive in its output")
            } else {
                error.with_note(
                    "the file is not preprocessed (lower-case extension or --no-cpp): \
                     pass --cpp, or name it .F90 / .F",
                )
            });
        };
        self.push_line(cx, physical_line, String::new(), &[]);
        // `<built-in>`, `<command-line>`: the preprocessor's own pseudo
        // files, which hold no lines of the program.
        if let Some(file) = file.filter(|f| !(f.starts_with('<') && f.ends_with('>'))) {
            cx.reported_file = self.map.file_index(Path::new(&file));
        }
        // The line after the marker is line `line_number`.
        cx.line_offset = i64::try_from(line_number)
            .unwrap_or(i64::MAX)
            .saturating_sub(physical_line as i64 + 1);
        Ok(())
    }

    /// Replaces an `include` line by the normalised lines of the file it
    /// names, in the including file's form. Searched in the directory of
    /// the file the line comes from (after the C preprocessor: the
    /// `#include`d header a line marker names), then the directory of the
    /// file being read, then the `-I` directories.
    ///
    /// `mpif.h`, MPI's header for Fortran, becomes `use mpi`: the front end
    /// knows module `mpi`'s names without its source (`mpi.rs`), and the
    /// header's own text is for compilers, not for this parser.
    fn include(
        &mut self,
        cx: &FileContext,
        physical_line: usize,
        name: &str,
        site: Location,
    ) -> Result<(), Diagnostic> {
        if is_mpi_header(name) {
            self.push_line(cx, physical_line, MPI_HEADER_USE.to_string(), &[]);
            return Ok(());
        }
        let directory = cx.path.parent().unwrap_or(Path::new(""));
        let mut candidates: Vec<PathBuf> = Vec::new();
        if let Some(reported) = self.map.files().get(cx.reported_file) {
            candidates.push(reported.parent().unwrap_or(Path::new("")).join(name));
        }
        candidates.push(directory.join(name));
        candidates.extend(self.include_dirs.iter().map(|dir| dir.join(name)));
        let path = candidates
            .iter()
            .find(|candidate| candidate.is_file())
            .cloned()
            .unwrap_or_else(|| directory.join(name));
        let cannot_open = |error: std::io::Error| {
            Diagnostic::of_kind(
                Kind::InputOutput,
                site.clone(),
                format!("cannot open include file `{name}`: {error}"),
            )
            .with_note(format!("looked for `{}`", path.display()))
        };
        let identity = fs::canonicalize(&path).map_err(cannot_open)?;
        if let Some(first) = self.include_stack.iter().position(|open| *open == identity) {
            let chain: Vec<String> = self.include_stack[first..]
                .iter()
                .chain(std::iter::once(&identity))
                .map(|file| file.display().to_string())
                .collect();
            return Err(Diagnostic::error(
                site,
                format!("include cycle: `{name}` includes itself"),
            )
            .with_note(format!("chain: {}", chain.join(" -> "))));
        }
        if self.include_stack.len() > MAX_INCLUDE_DEPTH {
            return Err(Diagnostic::error(
                site,
                format!("includes nested more than {MAX_INCLUDE_DEPTH} deep"),
            ));
        }
        let bytes = fs::read(&path).map_err(cannot_open)?;
        self.include_stack.push(identity);
        let result = self.process_file(&path, &bytes, cx.form);
        self.include_stack.pop();
        result
    }
}
