//! Copies of loop-free module procedures holding one section of their
//! template, called where the caller knows the mode the callee runs in.
//!
//! Joint mode: plain copies, so that the forward sweeps that only
//! recompute values run at the original's speed. Joint mode runs a routine's original computation (placeholder 1) once
//! more per level of the call tree above it. In the template, that code
//! calls its callees' templates, which test the mode and carry their tape
//! and adjoint sections: calls gfortran cannot inline, costing ten times
//! the computation for a small routine called per face of a grid (issue
//! 11, `flux_tree`). A loop-free routine of a module (joint leaf template)
//! gets a second subroutine, `oad_plain_NAME`, holding only its original
//! computation; plain sections in the same module call that instead, and
//! gfortran inlines it as it inlines the original.
//!
//! Split mode (issue 11 part 5): the same for the two sweeps. A loop-free
//! module procedure under the default split template gets `oad_tape_NAME`
//! (its tape section alone) and `oad_adj_NAME` (its adjoint section
//! alone); the tape and adjoint sections of callers in the same module
//! call those. Under the split template a callee runs in its caller's
//! mode, and CONTRACT.md's split driver sets exactly one switch, so the
//! callee would run exactly that section: the copy is the same code
//! without the three mode tests and the call it hides from gfortran's
//! inliner (flux_tree: a third fewer instructions). Not in a section that
//! switches the mode itself (a checkpointed loop's `oad_mode_*` actions):
//! there a call may run in another sweep's mode (`calls.rs`).
//!
//! Joint mode's sweeps (issue 11 part 5): a joint leaf (`joint_leaf.f90`,
//! `joint_loop_free.f90`) is never re-run: its caller's forward sweep
//! (placeholder 2, mode plain + arg_store) runs exactly its placeholder 2,
//! which tapes it, and its caller's reverse sweep (placeholder 3, mode
//! tape + adjoint + arg_restore) exactly its placeholder 3; the modes its
//! template would switch to for its own callees are those its caller has
//! already set. So the leaves get `oad_tape_NAME` and `oad_adj_NAME` too,
//! called from those sections of callers in the same module, as in split
//! mode: flux_tree's joint adjoint had its per-face calls go through two
//! templates (mode tests, calls gfortran cannot inline) and ran at 1.7×
//! the split adjoint's time.
//!
//! Only where the copy is an exact stand-in: a module procedure (callers in
//! the same module see it without an interface or `public`), without
//! internal procedures, `save`d or initialised locals, `data` or `save`
//! statements (a copy would have state of its own).

use std::collections::HashMap;

use crate::canon::CanonSource;
use crate::template::Section;

/// The copies of one unit: the module it lives in, and per template
/// section copied, the copy's name.
#[derive(Debug, Clone)]
pub struct PlainClone {
    pub module: String,
    pub copies: Vec<(Section, String)>,
}

impl PlainClone {
    /// The name of the copy standing in for the unit in `section`.
    pub fn copy_for(&self, section: Section) -> Option<&str> {
        self.copies
            .iter()
            .find(|(s, _)| *s == section)
            .map(|(_, n)| n.as_str())
    }
}

/// Prefix of the copies' names, per section copied.
pub fn clone_prefix(section: Section) -> &'static str {
    match section {
        Section::Tape => "oad_tape_",
        Section::Adjoint => "oad_adj_",
        _ => "oad_plain_",
    }
}

/// The booster placeholder a copied section comes from.
pub fn placeholder_of(section: Section) -> &'static str {
    match section {
        Section::Tape => "2",
        Section::Adjoint => "3",
        _ => "1",
    }
}

/// The units (by symbol) among `leaves` (tag, symbol) that get a copy of
/// each of `sections`.
pub fn plan(
    canon: &CanonSource,
    leaves: &[(String, String)],
    sections: &[Section],
) -> HashMap<String, PlainClone> {
    let mut out = HashMap::new();
    for (tag, symbol) in leaves {
        let Some((module, _)) = tag.rsplit_once('.') else {
            continue;
        };
        // Module procedures only: `module.proc`, not `host.proc` of an
        // external host (a module's tag has no dot).
        if module.contains('.') || !canon.units.iter().any(|u| u == module) {
            continue;
        }
        let has_internal = canon.units.iter().any(|u| {
            u.strip_prefix(tag.as_str())
                .is_some_and(|r| r.starts_with('.'))
        });
        if has_internal || has_own_state(canon, tag) {
            continue;
        }
        let copies: Vec<(Section, String)> = sections
            .iter()
            .map(|&s| (s, format!("{}{symbol}", clone_prefix(s))))
            .collect();
        let clash = |name: &str| {
            name.len() > 63 || canon.units.iter().any(|u| u.ends_with(&format!(".{name}")))
        };
        if copies.iter().any(|(_, n)| clash(n)) {
            continue;
        }
        out.insert(
            symbol.clone(),
            PlainClone {
                copies,
                module: module.to_string(),
            },
        );
    }
    out
}

/// Whether a unit keeps state between calls: a bare `save` statement, or
/// a declaration with `save` or an initial value (`P.decl`).
fn has_own_state(canon: &CanonSource, tag: &str) -> bool {
    let declarations = &canon.declarations;
    declarations.saves_all(tag)
        || declarations
            .entities_of(tag)
            .any(|(_, a)| a.save || (a.initialised && !a.parameter))
}

/// The unit's header lines with the subroutine's name replaced by
/// `clone`.
pub fn renamed_header(header: &[String], name: &str, clone: &str) -> Vec<String> {
    let mut done = false;
    header
        .iter()
        .map(|line| {
            if done {
                return line.clone();
            }
            let lower = line.to_ascii_lowercase();
            let Some(k) = lower.find("subroutine") else {
                return line.clone();
            };
            let after = k + "subroutine".len();
            let rest = &lower[after..];
            let start = after + (rest.len() - rest.trim_start().len());
            if lower[start..].starts_with(name) {
                done = true;
                format!("{}{clone}{}", &line[..start], &line[start + name.len()..])
            } else {
                line.clone()
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_rename_keeps_prefixes_and_arguments() {
        let h = vec!["  pure subroutine flux(u, i, f)".to_string()];
        assert_eq!(
            renamed_header(&h, "flux", "oad_plain_flux"),
            vec!["  pure subroutine oad_plain_flux(u, i, f)".to_string()]
        );
    }
}
