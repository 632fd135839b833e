//! Free form: lines are copied unchanged; the scan only finds comment
//! lines (for pragmas), `include` lines and `#` lines, which requires
//! knowing which lines continue a statement or a string.

use super::scan;
use super::{FileContext, Loader};
use crate::diagnostics::Diagnostic;

impl Loader {
    pub(super) fn process_free<'a>(
        &mut self,
        cx: &mut FileContext,
        lines: impl Iterator<Item = &'a str>,
    ) -> Result<(), Diagnostic> {
        // The previous code line ended with `&`, and in a string if
        // `open_quote` is set.
        let mut continuing = false;
        let mut open_quote: Option<char> = None;
        for (index, line) in lines.enumerate() {
            let physical_line = index + 1;
            let Some((first_nonblank, first)) =
                line.char_indices().find(|(_, c)| !c.is_whitespace())
            else {
                self.push_line(cx, physical_line, String::new(), &[]);
                continue;
            };
            if first == '!' {
                self.comment_line(cx, physical_line, line, first_nonblank, line.to_string())?;
                continue;
            }
            if first_nonblank == 0 && first == '#' && !continuing {
                self.directive_line(cx, physical_line, line)?;
                continue;
            }
            if !continuing {
                let code_end = scan::scan_code(line, None)
                    .comment_start
                    .unwrap_or(line.len());
                if let Some((name, keyword)) = scan::parse_include(&line[..code_end]) {
                    let site = self.location(cx, physical_line, keyword);
                    self.include(cx, physical_line, &name, site)?;
                    continue;
                }
            }
            let statement_start = if continuing && first == '&' {
                first_nonblank + 1
            } else {
                0
            };
            let scan = scan::scan_code(&line[statement_start..], open_quote);
            let code = &line[statement_start..]
                [..scan.comment_start.unwrap_or(line.len() - statement_start)];
            continuing = code.trim_end().ends_with('&');
            open_quote = scan.open_quote.filter(|_| continuing);
            self.push_line(cx, physical_line, line.to_string(), &[]);
        }
        Ok(())
    }
}
