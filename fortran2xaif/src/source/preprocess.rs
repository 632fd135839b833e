//! The C preprocessor, run the way gfortran runs it on its own sources:
//! `gfortran -E -cpp` as a subprocess (we do not write a preprocessor of
//! our own). Its output carries line markers (`# 12 "file"`), which the
//! loader turns into a line map back to the user's files, `#include`d
//! headers included, so every later diagnostic names the original place.
//!
//! Which files are preprocessed: those whose extension gfortran
//! preprocesses (`.F .FOR .FTN .FPP .fpp .F90 .F95 .F03 .F08`), or every
//! file with `--cpp`, none with `--no-cpp`.

use std::path::{Path, PathBuf};
use std::process::Command;

use super::Form;
use crate::diagnostics::{Diagnostic, Kind, Location, Severity};

/// When to run the preprocessor.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Preprocessing {
    /// As gfortran decides: by the file's extension.
    #[default]
    ByExtension,
    /// Every file (`--cpp`).
    Always,
    /// No file (`--no-cpp`): a directive is then an error.
    Never,
}

/// The user's preprocessor options, passed on to gfortran.
#[derive(Debug, Clone)]
pub struct PreprocessOptions {
    pub when: Preprocessing,
    /// `-D NAME` or `-D NAME=VALUE`, as given (without `-D`).
    pub defines: Vec<String>,
    /// `-U NAME`.
    pub undefines: Vec<String>,
    /// `-I DIR`: searched by `#include` and by Fortran `include` lines.
    pub include_dirs: Vec<PathBuf>,
    /// The compiler whose preprocessor runs (default `gfortran`).
    pub compiler: PathBuf,
}

impl Default for PreprocessOptions {
    fn default() -> Self {
        PreprocessOptions {
            when: Preprocessing::ByExtension,
            defines: Vec::new(),
            undefines: Vec::new(),
            include_dirs: Vec::new(),
            compiler: PathBuf::from("gfortran"),
        }
    }
}

/// Does gfortran preprocess a file with this name by default? Capitalised
/// Fortran extensions and `.fpp`.
pub fn extension_wants_preprocessing(path: &Path) -> bool {
    let Some(extension) = path.extension().and_then(|e| e.to_str()) else {
        return false;
    };
    matches!(
        extension,
        "F" | "FOR" | "FTN" | "FPP" | "fpp" | "F90" | "F95" | "F03" | "F08"
    )
}

impl PreprocessOptions {
    pub fn applies_to(&self, path: &Path) -> bool {
        match self.when {
            Preprocessing::ByExtension => extension_wants_preprocessing(path),
            Preprocessing::Always => true,
            Preprocessing::Never => false,
        }
    }
}

/// What the preprocessor produced: the text and its warnings.
pub(crate) struct Preprocessed {
    pub text: Vec<u8>,
    pub warnings: Vec<Diagnostic>,
}

/// Runs `gfortran -E -cpp` on `path` in `form`. The preprocessor's own
/// errors are already at file:line:column; the first becomes the
/// diagnostic, the others its notes.
pub(crate) fn preprocess(
    path: &Path,
    form: Form,
    options: &PreprocessOptions,
) -> Result<Preprocessed, Diagnostic> {
    let mut command = Command::new(&options.compiler);
    command
        .arg("-E")
        .arg("-cpp")
        .arg("-fdiagnostics-plain-output")
        .arg(match form {
            Form::Fixed => "-ffixed-form",
            Form::Free => "-ffree-form",
        });
    for define in &options.defines {
        command.arg(format!("-D{define}"));
    }
    for name in &options.undefines {
        command.arg(format!("-U{name}"));
    }
    for dir in &options.include_dirs {
        command.arg("-I").arg(dir);
    }
    command.arg(path);
    let output = command.output().map_err(|error| {
        Diagnostic::of_kind(
            Kind::InputOutput,
            Location::start_of(path),
            format!(
                "cannot run the C preprocessor `{} -E -cpp`: {error}",
                options.compiler.display()
            ),
        )
        .with_note(
            "the file is preprocessed because of its extension or --cpp; \
             install gfortran, set OPENAD_GFORTRAN to a gfortran, or pass --no-cpp",
        )
    })?;
    let stderr = String::from_utf8_lossy(&output.stderr);
    let messages: Vec<Diagnostic> = stderr.lines().filter_map(compiler_message).collect();
    if !output.status.success() {
        let mut errors = messages.iter().filter(|d| d.is_error()).cloned();
        let error = match errors.next() {
            Some(first) => errors.fold(first, |first, other| {
                first.with_note(format!("also: {other}"))
            }),
            None => Diagnostic::of_kind(
                Kind::InputOutput,
                Location::start_of(path),
                format!(
                    "the C preprocessor failed ({}): {}",
                    output.status,
                    stderr.trim()
                ),
            ),
        };
        return Err(error.with_note(format!(
            "reported by the C preprocessor (`{} -E -cpp`)",
            options.compiler.display()
        )));
    }
    Ok(Preprocessed {
        text: output.stdout,
        warnings: messages.into_iter().filter(|d| !d.is_error()).collect(),
    })
}

/// One line of gfortran's plain diagnostics, `FILE:LINE:COLUMN: Error: text`
/// (also `Fatal Error`, `Warning`); other lines are not messages.
fn compiler_message(line: &str) -> Option<Diagnostic> {
    let (severity, marker) = [
        (Severity::Error, ": Fatal Error: "),
        (Severity::Error, ": Error: "),
        (Severity::Warning, ": Warning: "),
    ]
    .into_iter()
    .find(|(_, marker)| line.contains(marker))?;
    let (place, message) = line.split_once(marker)?;
    // FILE may hold colons: the last two fields are the numbers.
    let mut fields = place.rsplitn(3, ':');
    let column: usize = fields.next()?.trim().parse().ok()?;
    let line_number: usize = fields.next()?.trim().parse().ok()?;
    let file = fields.next()?;
    Some(Diagnostic::new(
        severity,
        Location::new(file, line_number.max(1), column.max(1)),
        message.trim(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extensions_gfortran_preprocesses() {
        for name in ["a.F", "a.F90", "a.FOR", "a.fpp", "a.FPP", "a.F08"] {
            assert!(extension_wants_preprocessing(Path::new(name)), "{name}");
        }
        for name in ["a.f", "a.f90", "a.for", "a.h", "a"] {
            assert!(!extension_wants_preprocessing(Path::new(name)), "{name}");
        }
    }

    #[test]
    fn plain_compiler_messages() {
        let error = compiler_message("dir/m.F90:7:2: Error: #error \"no physics\"").unwrap();
        assert!(error.is_error());
        assert_eq!(error.location, Location::new("dir/m.F90", 7, 2));
        assert_eq!(error.message, "#error \"no physics\"");
        let fatal = compiler_message("a.F:3:10: Fatal Error: x.h: No such file").unwrap();
        assert!(fatal.is_error());
        assert_eq!(fatal.location, Location::new("a.F", 3, 10));
        let warning = compiler_message("w.F90:1:0: Warning: #warning x [-Wcpp]").unwrap();
        assert!(!warning.is_error());
        assert_eq!(warning.location, Location::new("w.F90", 1, 1));
        assert!(compiler_message("compilation terminated.").is_none());
    }
}
