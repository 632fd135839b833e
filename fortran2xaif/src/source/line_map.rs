//! Maps positions in the normalised text back to the original files.

use std::path::{Path, PathBuf};

use crate::diagnostics::Location;

/// From one line of the normalised text to the original file and line, with
/// the column shifts that normalisation introduced on that line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LineOrigin {
    /// Index into `LineMap::files`.
    pub file: usize,
    pub line: usize,
    /// Sorted by `text_column`; the first one starts at column 1.
    pub segments: Vec<ColumnSegment>,
}

/// From `text_column` on, text column `text_column + k` is original column
/// `original_column + k`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ColumnSegment {
    pub text_column: usize,
    pub original_column: usize,
}

impl LineOrigin {
    /// A line copied unchanged: columns are identical.
    #[cfg(test)]
    pub fn identity(file: usize, line: usize) -> Self {
        LineOrigin {
            file,
            line,
            segments: vec![ColumnSegment {
                text_column: 1,
                original_column: 1,
            }],
        }
    }

    fn original_column(&self, column: usize) -> usize {
        let column = column.max(1);
        let segment = self
            .segments
            .iter()
            .rev()
            .find(|segment| segment.text_column <= column)
            .copied()
            .unwrap_or(ColumnSegment {
                text_column: 1,
                original_column: 1,
            });
        segment.original_column + (column - segment.text_column)
    }
}

/// Line `n` (1-based) of `NormalizedSource::text` came from
/// `lines[n - 1]`. Columns count bytes, 1-based.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineMap {
    root: PathBuf,
    files: Vec<PathBuf>,
    lines: Vec<LineOrigin>,
}

impl LineMap {
    pub(crate) fn new(root: PathBuf) -> Self {
        LineMap {
            root,
            files: Vec::new(),
            lines: Vec::new(),
        }
    }

    /// Index of `path` in the file table, adding it if new.
    pub(crate) fn file_index(&mut self, path: &Path) -> usize {
        match self.files.iter().position(|known| known == path) {
            Some(index) => index,
            None => {
                self.files.push(path.to_path_buf());
                self.files.len() - 1
            }
        }
    }

    pub(crate) fn push(&mut self, origin: LineOrigin) {
        self.lines.push(origin);
    }

    /// Records that `inserted` bytes were inserted into text line
    /// `line_index` (0-based) after text column `after_column`: what
    /// follows keeps mapping to where it came from.
    pub(crate) fn record_insertion(
        &mut self,
        line_index: usize,
        after_column: usize,
        inserted: usize,
    ) {
        let Some(origin) = self.lines.get_mut(line_index) else {
            return;
        };
        let moved_from = after_column + 1;
        let original_column = origin.original_column(moved_from);
        origin
            .segments
            .retain(|segment| segment.text_column <= after_column);
        origin.segments.push(ColumnSegment {
            text_column: moved_from + inserted,
            original_column,
        });
    }

    /// The original place of 1-based (`line`, `column`) of the normalised
    /// text. Out-of-range lines are clamped to the first or last line; a map
    /// without lines points at the start of the root file.
    pub fn location(&self, line: usize, column: usize) -> Location {
        let index = line.max(1).min(self.lines.len()) - usize::from(!self.lines.is_empty());
        match self.lines.get(index) {
            Some(origin) => Location {
                file: self
                    .files
                    .get(origin.file)
                    .cloned()
                    .unwrap_or_else(|| self.root.clone()),
                line: origin.line,
                column: origin.original_column(column),
            },
            None => Location::start_of(self.root.clone()),
        }
    }

    /// Number of lines of the normalised text.
    pub fn len(&self) -> usize {
        self.lines.len()
    }

    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }

    /// The file the text was loaded from.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Every file that contributed lines (the root and its includes, and
    /// names given by `# line` markers), in order of first use.
    pub fn files(&self) -> &[PathBuf] {
        &self.files
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample_map() -> LineMap {
        let mut map = LineMap::new(PathBuf::from("main.f"));
        let main = map.file_index(Path::new("main.f"));
        let included = map.file_index(Path::new("inc/defs.h"));
        assert_eq!(map.file_index(Path::new("main.f")), main);
        map.push(LineOrigin::identity(main, 1));
        map.push(LineOrigin::identity(included, 4));
        map.push(LineOrigin {
            file: main,
            line: 3,
            segments: vec![
                ColumnSegment {
                    text_column: 1,
                    original_column: 1,
                },
                ColumnSegment {
                    text_column: 7,
                    original_column: 2,
                },
            ],
        });
        map
    }

    #[test]
    fn maps_lines_files_and_column_segments() {
        let map = sample_map();
        assert_eq!(map.len(), 3);
        assert_eq!(map.location(1, 9), Location::new("main.f", 1, 9));
        assert_eq!(map.location(2, 3), Location::new("inc/defs.h", 4, 3));
        assert_eq!(map.location(3, 3), Location::new("main.f", 3, 3));
        assert_eq!(map.location(3, 7), Location::new("main.f", 3, 2));
        assert_eq!(map.location(3, 10), Location::new("main.f", 3, 5));
        assert_eq!(
            map.files(),
            &[PathBuf::from("main.f"), PathBuf::from("inc/defs.h")]
        );
    }

    #[test]
    fn out_of_range_positions_are_clamped() {
        let map = sample_map();
        assert_eq!(map.location(0, 0), Location::new("main.f", 1, 1));
        assert_eq!(map.location(99, 1), Location::new("main.f", 3, 1));
        let empty = LineMap::new(PathBuf::from("empty.f90"));
        assert!(empty.is_empty());
        assert_eq!(empty.location(5, 5), Location::new("empty.f90", 1, 1));
    }
}
