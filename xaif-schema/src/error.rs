//! The one error type of the crate: a message anchored at a place in a file.

use std::fmt;

/// A rejected XAIF document (or an I/O failure reading it), with the place
/// it was found. Lines and columns count from 1; the column counts
/// characters. `line == 0` means "no position" (e.g. the file could not be
/// opened), `column == 0` "line only".
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct XaifError {
    pub file: String,
    pub line: usize,
    pub column: usize,
    pub message: String,
}

impl XaifError {
    /// An error at a byte offset of `text`: line and column are computed
    /// from the offset (only when an error happens, so reading stays fast).
    pub fn at_offset(file: &str, text: &str, offset: usize, message: impl Into<String>) -> Self {
        let (line, column) = line_column(text, offset);
        XaifError {
            file: file.to_string(),
            line,
            column,
            message: message.into(),
        }
    }

    /// The text of the side file at `path` and the name its errors carry;
    /// an unreadable file is an error with no position, naming `what`
    /// the file holds.
    pub fn read_side_file(path: &std::path::Path, what: &str) -> Result<(String, String), Self> {
        let name = path.display().to_string();
        match std::fs::read_to_string(path) {
            Ok(text) => Ok((text, name)),
            Err(e) => Err(XaifError::without_position(
                &name,
                format!("cannot read the {what}: {e}"),
            )),
        }
    }

    /// An error with no position in the file.
    pub fn without_position(file: &str, message: impl Into<String>) -> Self {
        XaifError {
            file: file.to_string(),
            line: 0,
            column: 0,
            message: message.into(),
        }
    }
}

impl fmt::Display for XaifError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            write!(f, "{}: {}", self.file, self.message)
        } else if self.column == 0 {
            // libxml2 often knows only the line.
            write!(f, "{}:{}: {}", self.file, self.line, self.message)
        } else {
            write!(
                f,
                "{}:{}:{}: {}",
                self.file, self.line, self.column, self.message
            )
        }
    }
}

impl std::error::Error for XaifError {}

/// 1-based line and column (in characters) of a byte offset in `text`.
/// Offsets past the end are clamped to the end.
pub fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let bytes = text.as_bytes();
    let offset = offset.min(bytes.len());
    let before = &bytes[..offset];
    let line = 1 + before.iter().filter(|&&b| b == b'\n').count();
    let line_start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |p| p + 1);
    // Count characters, not bytes: continuation bytes do not start one.
    let column = 1 + before[line_start..]
        .iter()
        .filter(|&&b| (b & 0xC0) != 0x80)
        .count();
    (line, column)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_column_counts_from_one() {
        let t = "ab\ncd\né!";
        assert_eq!(line_column(t, 0), (1, 1));
        assert_eq!(line_column(t, 1), (1, 2));
        assert_eq!(line_column(t, 3), (2, 1));
        assert_eq!(line_column(t, 4), (2, 2));
        // 'é' is two bytes but one column.
        assert_eq!(line_column(t, 8), (3, 2));
        assert_eq!(line_column(t, 1000), (3, 3));
    }

    #[test]
    fn display_is_file_line_column_message() {
        let e = XaifError::at_offset("f.xaif", "a\nbc", 3, "bad thing");
        assert_eq!(e.to_string(), "f.xaif:2:2: bad thing");
        let e = XaifError::without_position("f.xaif", "cannot open");
        assert_eq!(e.to_string(), "f.xaif: cannot open");
    }
}
