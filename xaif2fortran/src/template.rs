//! Subroutine templates for the adjoint modes: a Fortran subroutine
//! skeleton
//!
//! ```text
//! subroutine template()
//!   use OAD_tape                      <- use statements: go after the unit header
//!   use OAD_rev
//!   !$template_pragma_declarations    <- the unit's declarations
//!   if (our_rev_mode%tape) then
//!     !$placeholder_pragma$ id=2      <- code of Replacement placeholder="2"
//!   end if
//! end subroutine template
//! ```
//!
//! Lines after the declarations pragma (declarations of template locals,
//! then executable statements) replace the unit's executable part.

use crate::error::{Diagnostic, Result};
use crate::fortran_text::code_part;

/// The built-in split template.
pub const DEFAULT_SPLIT: &str = include_str!("../templates/split.f90");
/// The built-in joint template.
pub const DEFAULT_JOINT: &str = include_str!("../templates/joint.f90");

const DECLARATIONS_PRAGMA: &str = "!$template_pragma_declarations";
const PLACEHOLDER_PRAGMA: &str = "!$placeholder_pragma$";

/// One line of a template body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TemplateLine {
    Text(String),
    /// A placeholder with its id and indentation.
    Placeholder {
        id: String,
        indent: usize,
    },
}

/// A parsed template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Template {
    pub file: String,
    /// `use` statements to put after the unit header.
    pub uses: Vec<String>,
    pub body: Vec<TemplateLine>,
}

impl Template {
    pub fn parse(file: &str, text: &str) -> Result<Template> {
        let err = |i: usize, col: usize, msg: &str| Diagnostic::new(file, i + 1, col, msg);
        let lines: Vec<&str> = text.lines().collect();
        let header = lines
            .iter()
            .position(|l| {
                code_part(l)
                    .trim()
                    .to_ascii_lowercase()
                    .starts_with("subroutine ")
            })
            .ok_or_else(|| err(0, 1, "template has no 'subroutine' line"))?;
        let decl = (header + 1..lines.len())
            .find(|&i| lines[i].trim().eq_ignore_ascii_case(DECLARATIONS_PRAGMA))
            .ok_or_else(|| {
                err(
                    header,
                    1,
                    "template has no '!$template_pragma_declarations' line",
                )
            })?;
        let end = (decl + 1..lines.len())
            .rev()
            .find(|&i| {
                let l = code_part(lines[i]).trim().to_ascii_lowercase();
                l == "end" || l.starts_with("end subroutine")
            })
            .ok_or_else(|| err(decl, 1, "template has no 'end subroutine' line"))?;
        let mut uses = Vec::new();
        for (i, l) in lines.iter().enumerate().take(decl).skip(header + 1) {
            let code = code_part(l).trim();
            if code.is_empty() {
                continue;
            }
            if !code.to_ascii_lowercase().starts_with("use ") {
                let col = l.len() - l.trim_start().len() + 1;
                return Err(err(
                    i,
                    col,
                    "only use statements may come before '!$template_pragma_declarations'",
                ));
            }
            uses.push(code.to_string());
        }
        let mut body = Vec::new();
        for (i, l) in lines.iter().enumerate().take(end).skip(decl + 1) {
            let t = l.trim();
            if t.len() >= PLACEHOLDER_PRAGMA.len()
                && t[..PLACEHOLDER_PRAGMA.len()].eq_ignore_ascii_case(PLACEHOLDER_PRAGMA)
            {
                let rest = t[PLACEHOLDER_PRAGMA.len()..].trim();
                let id = rest
                    .strip_prefix("id=")
                    .or_else(|| rest.strip_prefix("ID="))
                    .map(str::trim)
                    .filter(|s| !s.is_empty())
                    .ok_or_else(|| {
                        err(
                            i,
                            l.len() - l.trim_start().len() + 1,
                            "placeholder pragma without 'id=N'",
                        )
                    })?;
                let indent = (l.len() - l.trim_start().len()) / 2;
                body.push(TemplateLine::Placeholder {
                    id: id.to_string(),
                    indent,
                });
            } else {
                body.push(TemplateLine::Text(l.trim_end().to_string()));
            }
        }
        Ok(Template {
            file: file.to_string(),
            uses,
            body,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_templates_parse() {
        let s = Template::parse("split.f90", DEFAULT_SPLIT).unwrap();
        assert_eq!(s.uses, vec!["use OAD_tape", "use OAD_rev"]);
        let ids: Vec<_> = s
            .body
            .iter()
            .filter_map(|l| match l {
                TemplateLine::Placeholder { id, .. } => Some(id.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(ids, vec!["1", "2", "3"]);
        assert!(Template::parse("joint.f90", DEFAULT_JOINT).is_ok());
    }

    #[test]
    fn template_errors_name_the_line() {
        let e = Template::parse("t.f90", "subroutine template()\n  implicit none\n  !$template_pragma_declarations\nend subroutine\n")
            .unwrap_err();
        assert_eq!((e.line, e.column), (2, 3));
        assert!(Template::parse("t.f90", "subroutine template()\nend subroutine\n").is_err());
    }
}
