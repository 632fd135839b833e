//! Subroutine templates for the adjoint modes: a Fortran subroutine
//! skeleton
//!
//! ```text
//! subroutine template()
//!   use OAD_tape                      <- use statements: go after the unit header
//!   use OAD_rev
//!   !$template_pragma_declarations    <- the unit's declarations
//!   if (our_rev_mode%tape) then
//!     !$placeholder 2                 <- code of Replacement placeholder="2"
//!   end if
//! end subroutine template
//! ```
//!
//! Lines after the declarations pragma (declarations of template locals,
//! then executable statements) replace the unit's executable part.
//! `!$placeholder arg_store` and `!$placeholder arg_restore` stand for
//! checkpoint code the back end generates for the arguments. OpenAD's
//! spelling `!$placeholder_pragma$ id=N` is accepted too.

use crate::error::{error_at, Result};
use crate::fortran_text::code_part;

/// The built-in split template.
pub const DEFAULT_SPLIT: &str = include_str!("../templates/split.f90");
/// The built-in joint template.
pub const DEFAULT_JOINT: &str = include_str!("../templates/joint.f90");
/// The built-in joint template of a routine whose call tree has no loop:
/// taped in its caller's sweeps, not re-run; it passes the sweep on to its
/// callees.
pub const DEFAULT_JOINT_LOOP_FREE: &str = include_str!("../templates/joint_loop_free.f90");
/// The same for a leaf (calls no routine with an adjoint): no mode switch.
pub const DEFAULT_JOINT_LEAF: &str = include_str!("../templates/joint_leaf.f90");

const DECLARATIONS_PRAGMA: &str = "!$template_pragma_declarations";
/// `!$placeholder ID` (the form of docs/ARCHITECTURE.md).
const PLACEHOLDER: &str = "!$placeholder";
/// `!$placeholder_pragma$ id=ID` (OpenAD's spelling, also accepted).
const PLACEHOLDER_PRAGMA: &str = "!$placeholder_pragma$";

/// For a placeholder line, its id (`None` inside if the id is missing).
fn placeholder_id(line: &str) -> Option<Option<String>> {
    let lower = line.to_ascii_lowercase();
    let rest = if lower.starts_with(PLACEHOLDER_PRAGMA) {
        let r = line[PLACEHOLDER_PRAGMA.len()..].trim();
        r.strip_prefix("id=")
            .or_else(|| r.strip_prefix("ID="))
            .unwrap_or("")
    } else if lower.starts_with(PLACEHOLDER)
        && line[PLACEHOLDER.len()..].starts_with(|c: char| c.is_whitespace())
    {
        &line[PLACEHOLDER.len()..]
    } else if lower == PLACEHOLDER {
        ""
    } else {
        return None;
    };
    let id = rest.trim();
    Some((!id.is_empty()).then(|| id.to_string()))
}

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
    /// Whether the template stores or restores argument checkpoints.
    pub fn has_checkpoints(&self) -> bool {
        self.body.iter().any(|l| {
            matches!(l, TemplateLine::Placeholder { id, .. } if id == "arg_store" || id == "arg_restore")
        })
    }

    pub fn parse(file: &str, text: &str) -> Result<Template> {
        let err = |i: usize, col: usize, msg: &str| error_at(file, i + 1, col, msg);
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
            let indent = (l.len() - l.trim_start().len()) / 2;
            if let Some(id) = placeholder_id(l.trim()) {
                let id = id.ok_or_else(|| {
                    err(
                        i,
                        l.len() - l.trim_start().len() + 1,
                        "placeholder line without an id",
                    )
                })?;
                body.push(TemplateLine::Placeholder { id, indent });
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

/// Which section of an adjoint template is being generated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Section {
    /// Tangent modes, or a placeholder without this meaning.
    #[default]
    Other,
    /// Placeholder 1: the original computation.
    Plain,
    /// Placeholder 2: the augmented forward sweep.
    Tape,
    /// Placeholder 3: the reverse sweep.
    Adjoint,
}

impl Section {
    /// The section a booster placeholder id stands for.
    pub fn of_placeholder(id: &str) -> Section {
        match id.trim() {
            "1" => Section::Plain,
            "2" => Section::Tape,
            "3" => Section::Adjoint,
            _ => Section::Other,
        }
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
        let j = Template::parse("joint.f90", DEFAULT_JOINT).unwrap();
        assert_eq!(
            j.body
                .iter()
                .filter(|l| matches!(l, TemplateLine::Placeholder { .. }))
                .count(),
            5
        );
        assert_eq!(
            placeholder_id("!$placeholder_pragma$ id=7"),
            Some(Some("7".into()))
        );
        assert_eq!(placeholder_id("!$placeholder"), Some(None));
        assert_eq!(placeholder_id("!$placeholders 1"), None);
    }

    #[test]
    fn template_errors_name_the_line() {
        let e = Template::parse("t.f90", "subroutine template()\n  implicit none\n  !$template_pragma_declarations\nend subroutine\n")
            .unwrap_err();
        assert_eq!((e.location.line, e.location.column), (2, 3));
        assert!(Template::parse("t.f90", "subroutine template()\nend subroutine\n").is_err());
    }
}
