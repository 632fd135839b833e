//! Inline definitions of runtime routines (tape push/pop, checkpoint
//! store/restore): each is a Fortran subroutine whose body replaces an
//! `InlinableSubroutineCall`, with the dummy names replaced by the actual
//! argument texts.

use std::collections::HashMap;
use std::sync::OnceLock;

use crate::error::{error_at, Result};
use crate::fortran_text::{code_part, substitute_identifiers};

/// Push routines whose built-in definitions the back end may fuse, with
/// the `OAD_tape` stack each writes to.
const FUSABLE_PUSHES: [(&str, &str); 3] = [
    ("push_real", "oad_dt"),
    ("push_int", "oad_it"),
    ("push_bool", "oad_lt"),
];

/// The default definitions, built in.
pub const DEFAULT_INLINE: &str = include_str!("../templates/inline.f90");

/// One definition.
#[derive(Debug, Clone, PartialEq)]
struct InlineDef {
    dummies: Vec<String>,
    body: Vec<String>,
}

/// Definitions by lower-case routine name.
#[derive(Debug, Clone, Default)]
pub struct InlineDefs {
    defs: HashMap<String, InlineDef>,
}

impl InlineDefs {
    /// Parses `subroutine NAME(a, b) ... end subroutine` blocks; other
    /// lines outside blocks are ignored.
    pub fn parse(file: &str, text: &str) -> Result<Self> {
        let mut defs = HashMap::new();
        let mut current: Option<(String, InlineDef, usize)> = None;
        for (i, line) in text.lines().enumerate() {
            let code = code_part(line).trim();
            let lower = code.to_ascii_lowercase();
            if let Some((name, def, _)) = current.as_mut() {
                if lower.starts_with("end subroutine") || lower == "end" {
                    defs.insert(name.clone(), def.clone());
                    current = None;
                } else if !code.is_empty() {
                    def.body.push(code.to_string());
                }
                continue;
            }
            if let Some(rest) = lower.strip_prefix("subroutine ") {
                let (name, args) = match rest.find('(') {
                    Some(p) => (
                        rest[..p].trim().to_string(),
                        rest[p + 1..].trim_end_matches(')').to_string(),
                    ),
                    None => (rest.trim().to_string(), String::new()),
                };
                let dummies = args
                    .split(',')
                    .map(|s| s.trim().to_string())
                    .filter(|s| !s.is_empty())
                    .collect();
                current = Some((
                    name,
                    InlineDef {
                        dummies,
                        body: Vec::new(),
                    },
                    i,
                ));
            }
        }
        if let Some((name, _, line)) = current {
            return Err(error_at(
                file,
                line + 1,
                1,
                format!("inline definition '{name}' has no 'end subroutine'"),
            ));
        }
        Ok(InlineDefs { defs })
    }

    /// The built-in definitions.
    pub fn builtin() -> Self {
        Self::parse("inline.f90", DEFAULT_INLINE).expect("built-in inline definitions parse")
    }

    /// The stack a push routine writes to, when its definition is the
    /// built-in one (`push_real` → `oad_dt`, `push_int` → `oad_it`,
    /// `push_bool` → `oad_lt`): only then may the back end fuse several
    /// pushes into one capacity test (`push_runs.rs`). A user definition
    /// of the routine is always expanded call by call.
    pub fn fusable_push(&self, name: &str) -> Option<&'static str> {
        static BUILTIN: OnceLock<InlineDefs> = OnceLock::new();
        let lower = name.to_ascii_lowercase();
        let &(_, stack) = FUSABLE_PUSHES.iter().find(|(n, _)| *n == lower)?;
        let builtin = BUILTIN.get_or_init(Self::builtin);
        let def = self.defs.get(&lower)?;
        (Some(def) == builtin.defs.get(&lower)).then_some(stack)
    }

    /// The statements replacing a call; `None` if there is no definition,
    /// `Some(Err(ArityMismatch { takes }))` if the definition takes another
    /// number of arguments.
    pub fn expand(
        &self,
        name: &str,
        args: &[String],
    ) -> Option<std::result::Result<Vec<String>, ArityMismatch>> {
        let def = self.defs.get(&name.to_ascii_lowercase())?;
        if def.dummies.len() != args.len() {
            return Some(Err(ArityMismatch {
                takes: def.dummies.len(),
            }));
        }
        let map: HashMap<&str, &str> = def
            .dummies
            .iter()
            .map(String::as_str)
            .zip(args.iter().map(String::as_str))
            .collect();
        Some(Ok(def
            .body
            .iter()
            .map(|l| substitute_identifiers(l, &|n| map.get(n).map(|s| s.to_string())))
            .collect()))
    }
}

/// A call of an inline definition with another number of arguments than
/// the definition's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("takes {takes}")]
pub struct ArityMismatch {
    pub takes: usize,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_push_pop() {
        let d = InlineDefs::builtin();
        let push = d.expand("push_real", &["x%v".into()]).unwrap().unwrap();
        assert!(push.iter().any(|l| l == "oad_dt(oad_dt_ptr) = x%v"));
        assert_eq!(
            d.expand("push_real", &[]).unwrap(),
            Err(ArityMismatch { takes: 1 })
        );
        assert!(d.expand("no_such", &[]).is_none());
    }

    #[test]
    fn only_builtin_pushes_are_fusable() {
        let d = InlineDefs::builtin();
        assert_eq!(d.fusable_push("push_real"), Some("oad_dt"));
        assert_eq!(d.fusable_push("PUSH_INT"), Some("oad_it"));
        assert_eq!(d.fusable_push("push_bool"), Some("oad_lt"));
        assert_eq!(d.fusable_push("pop_real"), None);
        let user = InlineDefs::parse(
            "user.f90",
            "subroutine push_real(x)\n  call my_push(x)\nend subroutine\n",
        )
        .unwrap();
        assert_eq!(user.fusable_push("push_real"), None);
        assert_eq!(user.fusable_push("push_int"), None);
    }
}
