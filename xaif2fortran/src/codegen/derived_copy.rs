//! Joint mode: whole-value copies of derived types keep the target's
//! derivatives.
//!
//! The front end keeps `a = b` of a derived type with real components as
//! an opaque statement followed by assignments of every real component
//! (docs/xaif.md, "Derived types"), and marks the opaque copy
//! `;copy:TYPE:RANK:CHAIN@T%LEAF[+a],...`. Copying the whole value also
//! copies the `%d` of its active components. In the tangent modes that is
//! what the component assignments do anyway, and in split mode the
//! forward sweep runs before any adjoint exists; but joint mode re-runs
//! routines (plain and taped) in the middle of the reverse sweep, where
//! `%d` holds live adjoints that the copy would overwrite. There the copy
//! is wrapped: the target is saved in a variable of its type first, and
//! the `%d` of its active components are put back after (zero where the
//! copy allocated a component anew, as `allocation.rs` does).

use xaif_schema::Marker;

use super::UnitGen;
use crate::error::Result;
use crate::template::Section;
use crate::Mode;

/// One real component of the copied type.
#[derive(Debug, Clone, PartialEq)]
struct Leaf {
    /// `grid%dx` from the copied value.
    chain: String,
    type_name: String,
    leaf: String,
    allocatable: bool,
}

/// The parsed `copy:` annotation.
#[derive(Debug, Clone, PartialEq)]
struct Copy {
    type_name: String,
    rank: usize,
    leaves: Vec<Leaf>,
}

fn parse(text: &str) -> Option<Copy> {
    let mut parts = text.splitn(3, ':');
    let type_name = parts.next()?.trim().to_string();
    let rank = parts.next()?.trim().parse().ok()?;
    let mut leaves = Vec::new();
    for item in parts.next()?.split(',').filter(|s| !s.trim().is_empty()) {
        let (chain, declared) = item.split_once('@')?;
        let (declared, allocatable) = match declared.strip_suffix("+a") {
            Some(d) => (d, true),
            None => (declared, false),
        };
        let (t, leaf) = declared.split_once('%')?;
        leaves.push(Leaf {
            chain: chain.trim().to_string(),
            type_name: t.to_string(),
            leaf: leaf.to_string(),
            allocatable,
        });
    }
    Some(Copy {
        type_name,
        rank,
        leaves,
    })
}

/// The target of an assignment `TARGET = VALUE`: the text before the
/// first `=` outside parentheses.
fn assignment_target(source: &str) -> Option<&str> {
    let mut depth = 0i32;
    for (i, c) in source.char_indices() {
        match c {
            '(' | '[' => depth += 1,
            ')' | ']' => depth -= 1,
            '=' if depth == 0 => return Some(source[..i].trim()),
            _ => {}
        }
    }
    None
}

impl UnitGen<'_, '_> {
    /// Emits the copy `source` (whose statement lines `emit` writes) with
    /// the target's derivatives kept where joint mode needs it (module
    /// comment).
    pub(crate) fn derived_copy(
        &mut self,
        source: &str,
        annotation: &str,
        m: &Marker,
        emit: &dyn Fn(&mut Self),
    ) -> Result<()> {
        let wrap = self.env.mode == Mode::AdjointJoint
            && matches!(self.section, Section::Plain | Section::Tape);
        if !wrap {
            emit(self);
            return Ok(());
        }
        let malformed = || {
            self.env.xaif.error(
                &format!("annotation=\"{}\"", m.annotation),
                format!("malformed derived-type copy annotation '{annotation}'"),
            )
        };
        let copy = parse(annotation).ok_or_else(malformed)?;
        let target = assignment_target(source).ok_or_else(malformed)?.to_string();
        let active: Vec<&Leaf> = copy
            .leaves
            .iter()
            .filter(|l| self.env.index.is_active_component(&l.type_name, &l.leaf))
            .collect();
        if active.is_empty() {
            emit(self);
            return Ok(());
        }
        // An array target, whole or a section of a vector: the whole
        // vector is saved (elements the copy leaves alone keep theirs).
        let root: String = target
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        let rest = target[root.len()..].trim();
        let vector_root = self
            .visible_symbol(&root)
            .is_some_and(|(_, sym, _)| sym.shape.rank() == 1);
        let whole_vector = copy.rank == 1
            && vector_root
            && (rest.is_empty()
                || (rest.starts_with('(') && rest.ends_with(')') && !rest.contains('%')));
        let target = if whole_vector { root } else { target };
        if copy.rank > 0 && !whole_vector {
            return Err(self.env.xaif.unsupported(
                &format!("annotation=\"{}\"", m.annotation),
                format!(
                    "unsupported construct in joint adjoint mode (-m rj): assignment to '{target}', an \
                     array of derived type '{}' with active components that is not a vector or a \
                     section of one (use -m rs, or copy element by element in a loop)",
                    copy.type_name
                ),
            ));
        }
        let saved = format!(
            "oad_dcopy{}",
            self.fresh_temp().trim_start_matches("oad_ctmp")
        );
        if whole_vector {
            self.extra_decls.push(format!(
                "type({}), allocatable :: {saved}(:)",
                copy.type_name
            ));
            self.extra_decls.push(format!("integer :: {saved}_k"));
        } else {
            self.extra_decls
                .push(format!("type({}) :: {saved}", copy.type_name));
        }
        self.line(format!("{saved} = {target}"));
        emit(self);
        if whole_vector {
            self.line(format!("if (size({saved}) == size({target})) then"));
            self.indent += 1;
            self.line(format!("do {saved}_k = 1, size({saved})"));
            self.indent += 1;
            let element = format!("{target}(lbound({target}, 1) + {saved}_k - 1)");
            let saved_element = format!("{saved}({saved}_k)");
            for l in &active {
                self.restore_derivative(&element, &saved_element, l);
            }
            self.indent -= 1;
            self.line("end do");
            self.indent -= 1;
            self.line("end if");
        } else {
            for l in &active {
                self.restore_derivative(&target, &saved, l);
            }
        }
        Ok(())
    }

    /// `target%chain%d = saved%chain%d`, or zero for an allocatable
    /// component the copy (re)allocated.
    fn restore_derivative(&mut self, target: &str, saved: &str, l: &Leaf) {
        let t = format!("{target}%{}", l.chain);
        let s = format!("{saved}%{}", l.chain);
        if !l.allocatable {
            self.line(format!("{t}%d = {s}%d"));
            return;
        }
        self.line(format!("if (allocated({t})) then"));
        self.indent += 1;
        self.line(format!("if (allocated({s})) then"));
        self.indent += 1;
        self.line(format!("if (size({s}) == size({t})) then"));
        self.line(format!("  {t}%d = {s}%d"));
        self.line("else");
        self.line(format!("  {t}%d = 0"));
        self.line("end if");
        self.indent -= 1;
        self.line("else");
        self.line(format!("  {t}%d = 0"));
        self.line("end if");
        self.indent -= 1;
        self.line("end if");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copy_annotations_and_targets() {
        let c = parse("state:0:g%dx@grid%dx,h@state%h+a").unwrap();
        assert_eq!(c.type_name, "state");
        assert_eq!(c.rank, 0);
        assert_eq!(c.leaves.len(), 2);
        assert_eq!(c.leaves[0].chain, "g%dx");
        assert_eq!(c.leaves[0].type_name, "grid");
        assert!(!c.leaves[0].allocatable);
        assert!(c.leaves[1].allocatable);
        assert!(parse("state:x:").is_none());
        assert_eq!(
            assignment_target("cells(i) = cells(i - 1)"),
            Some("cells(i)")
        );
        assert_eq!(assignment_target("s%grid = g"), Some("s%grid"));
    }
}
