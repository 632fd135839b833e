//! Inline definitions of runtime routines (tape push/pop, checkpoint
//! store/restore): each is a Fortran subroutine whose body replaces an
//! `InlinableSubroutineCall`, with the dummy names replaced by the actual
//! argument texts.

use std::collections::HashMap;

use crate::error::{Diagnostic, Result};
use crate::fortran_text::{code_part, substitute_identifiers};

/// The default definitions, built in.
pub const DEFAULT_INLINE: &str = include_str!("../templates/inline.f90");

/// One definition.
#[derive(Debug, Clone)]
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
            return Err(Diagnostic::new(
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

    /// The statements replacing a call; `None` if there is no definition,
    /// `Some(Err(n))` if the definition takes `n` arguments.
    pub fn expand(
        &self,
        name: &str,
        args: &[String],
    ) -> Option<std::result::Result<Vec<String>, String>> {
        let def = self.defs.get(&name.to_ascii_lowercase())?;
        if def.dummies.len() != args.len() {
            return Some(Err(format!("takes {}", def.dummies.len())));
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_push_pop() {
        let d = InlineDefs::builtin();
        let push = d.expand("push_real", &["x%v".into()]).unwrap().unwrap();
        assert!(push.iter().any(|l| l == "oad_dt(oad_dt_ptr) = x%v"));
        assert!(d.expand("push_real", &[]).unwrap().is_err());
        assert!(d.expand("no_such", &[]).is_none());
    }
}
