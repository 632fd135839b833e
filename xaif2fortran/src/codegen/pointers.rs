//! Pointer associations in the adjoint modes (docs/backend.md, "Pointer
//! associations"): the marker field `pointer:KIND:NAMES` the front end
//! puts on every statement that changes the association of an active
//! pointer (docs/xaif.md).
//!
//! | where | `record` code |
//! |---|---|
//! | tape section, before the statement | `call oad_ptr_push(p)` for each pointer (its association before the statement) |
//! | tape section, `deallocate(p)` | `nullify(p)` instead: the storage lives on for the reverse sweep |
//! | adjoint section, mirror of `p => ...`, `nullify(p)` | `call oad_ptr_pop(p)` |
//! | adjoint section, mirror of `allocate(p(...))` | `deallocate(p)`, then the pop |
//! | adjoint section, mirror of `deallocate(p)` | the pop, then `p%d = 0` (dead storage has adjoint zero) |
//! | sections apart, end of the tape section / start of the adjoint section | push / pop of every recorded local pointer (released at return) |
//!
//! The pushes copy the pointer's descriptor onto the association stacks of
//! the runtime module `OAD_ptr`, so the pop gives back exactly the
//! association the forward sweep had: target, section bounds and strides,
//! lower bounds, or an anonymous allocation. The front end records only
//! pointers whose targets outlive the sweeps (module, common, `save` data,
//! anonymous allocations); `replay` associations are made again at the
//! start of the adjoint section instead; `local` ones are refused.

use xaif_schema::{BasicBlockElement, ControlFlowVertex, Marker};

use super::allocation::{parse_allocation, AllocKind};
use super::UnitGen;
use crate::error::Result;
use crate::fortran_text::add_value_suffix_with;
use crate::markers::{CANON_PREFIX, MIRROR_PREFIX, POINTER_PREFIX};
use crate::template::Section;
use crate::Mode;

/// The pointer field of an association the adjoint section makes again.
const POINTER_REPLAY: &str = "pointer:replay:";
/// The pointer field of an association the sweeps record and restore.
const POINTER_RECORD: &str = "pointer:record:";
/// The highest pointer rank `OAD_ptr` has stacks for.
const MAX_RANK: usize = 4;

/// What the sweeps do at a statement changing pointer associations.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum PointerAction {
    /// Push / pop the associations of these pointers (`OAD_ptr`).
    Record(Vec<String>),
    /// Record the assignment of this local pointer symbolically
    /// (`pointer_frames.rs`).
    Frame(String),
}

/// What a recorded statement does to its pointers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Change {
    /// `p => target`, `nullify(p)`.
    Associate,
    Allocate,
    Deallocate,
}

fn change_of(source: &str) -> Change {
    match parse_allocation(source).map(|a| a.kind) {
        Some(AllocKind::Allocate) => Change::Allocate,
        Some(AllocKind::Deallocate) => Change::Deallocate,
        None => Change::Associate,
    }
}

impl UnitGen<'_, '_> {
    /// The pointers whose associations this marker's statement changes and
    /// the sweeps record (`pointer:record:NAMES`), in the adjoint modes;
    /// `None` otherwise. A `local` association is refused by name.
    pub(crate) fn recorded_pointers(
        &self,
        field: &str,
        m: &Marker,
    ) -> Result<Option<PointerAction>> {
        if !matches!(self.env.mode, Mode::AdjointSplit | Mode::AdjointJoint) {
            return Ok(None);
        }
        let field = field.strip_prefix(POINTER_PREFIX).unwrap_or(field);
        let (kind, names) = field.split_once(':').unwrap_or((field, "?"));
        let names: Vec<String> = names
            .split(',')
            .map(|n| n.trim().to_ascii_lowercase())
            .collect();
        match kind {
            "replay" => Ok(None),
            "record" => {
                for n in &names {
                    let rank = self.visible_symbol(n).map_or(0, |(_, s, _)| s.shape.rank());
                    if rank > MAX_RANK {
                        return Err(self.env.xaif.unsupported(
                            &format!("annotation=\"{}\"", m.annotation),
                            format!("unsupported construct in the adjoint modes (-m rs, -m rj): pointer association of the active pointer '{n}' of rank {rank} (the association stacks go to rank {MAX_RANK})"),
                        ));
                    }
                }
                Ok(Some(PointerAction::Record(names)))
            }
            "frame" => Ok(Some(PointerAction::Frame(names[0].clone()))),
            _ => Err(self.env.xaif.unsupported(
                &format!("annotation=\"{}\"", m.annotation),
                format!(
                    "unsupported construct in the adjoint modes (-m rs, -m rj): pointer association of the active pointer '{}' with a local or a dummy argument of a routine (the adjoint sweep of a split reversal runs in another call, where that storage need not be at the same address); supported: targets in module, common or save storage, allocation through the pointer, or a local pointer re-pointed only by p => variable(subscripts) or p => null() in its own routine (use -m f or -m fv otherwise)",
                    names.join("', '")
                ),
            )),
        }
    }

    /// Tape section, before a recorded statement: pushes the pointers'
    /// associations. Returns the text to emit instead of the statement (a
    /// `deallocate` becomes `nullify`: the reverse sweep needs the storage).
    pub(crate) fn record_pointers_forward(
        &mut self,
        names: &[String],
        source: &str,
        m: &Marker,
    ) -> Result<Option<String>> {
        self.refuse_joint_persistent_allocation(names, source, m)?;
        if self.section != Section::Tape {
            return Ok(None);
        }
        for n in names {
            self.line(format!("call oad_ptr_push({n})"));
        }
        if change_of(source) != Change::Deallocate {
            return Ok(None);
        }
        let stmt = parse_allocation(source).expect("a deallocate statement");
        let only_pointers = stmt
            .objects
            .iter()
            .all(|o| !o.is_component() && names.contains(&o.designator));
        let options = source.contains('=');
        if !only_pointers || options {
            return Err(self.env.xaif.unsupported(
                &format!("annotation=\"{}\"", m.annotation),
                "unsupported construct in the adjoint modes (-m rs, -m rj): deallocate of an active pointer together with other objects or with stat=/errmsg= (write it as deallocate(p) on its own)".to_string(),
            ));
        }
        Ok(Some(format!("nullify({})", names.join(", "))))
    }

    /// Joint mode re-runs routines from their argument checkpoints: a
    /// (de)allocation through a pointer that outlives the routine (a dummy,
    /// module or `save` data) would give the re-run other storage than the
    /// one the caller's reverse sweep accumulated adjoints into, or storage
    /// already released. Refused by name, as for allocatable arrays.
    fn refuse_joint_persistent_allocation(
        &self,
        names: &[String],
        source: &str,
        m: &Marker,
    ) -> Result<()> {
        if self.env.mode != Mode::AdjointJoint || change_of(source) == Change::Associate {
            return Ok(());
        }
        let own = |n: &String| self.env.index.symbol(self.scope, n).is_some();
        let Some(n) = names
            .iter()
            .find(|n| !(own(n) && self.is_released_at_return(n)))
        else {
            return Ok(());
        };
        let what = parse_allocation(source).map_or("allocate", |a| match a.kind {
            AllocKind::Allocate => "allocate",
            AllocKind::Deallocate => "deallocate",
        });
        Err(self.env.xaif.unsupported(
            &format!("annotation=\"{}\"", m.annotation),
            format!("unsupported construct in joint adjoint mode (-m rj): {what} through the active pointer '{n}', a dummy argument, module or save variable (a routine re-run in the reverse sweep would work on other storage; use -m rs, or a local pointer)"),
        ))
    }

    /// Adjoint section, at the mirror of a recorded statement: gives the
    /// pointers back the associations they had before it.
    pub(crate) fn record_pointers_mirror(&mut self, names: &[String], source: &str) {
        let change = change_of(source);
        for n in names.iter().rev() {
            if change == Change::Allocate {
                self.line(format!("deallocate({n})"));
            }
            self.line(format!("call oad_ptr_pop({n})"));
            if change == Change::Deallocate {
                self.line(format!("{n}%d = 0"));
            }
        }
    }

    /// The recorded pointers among the unit's markers that are locals of
    /// the unit (released at return), sorted.
    fn recorded_locals(&self, vertices: &[ControlFlowVertex]) -> Vec<String> {
        let mut names = Vec::new();
        for (_, field) in pointer_fields(vertices) {
            let Some(list) = field.strip_prefix(POINTER_RECORD) else {
                continue;
            };
            for n in list.split(',').map(|n| n.trim().to_ascii_lowercase()) {
                let own = self.env.index.symbol(self.scope, &n).is_some();
                if own && self.is_released_at_return(&n) {
                    names.push(n);
                }
            }
        }
        names.sort();
        names.dedup();
        names
    }

    /// Sections apart (split mode, joint leaves), end of the tape section:
    /// the associations of the recorded local pointers, which the adjoint
    /// call starts without.
    pub(crate) fn tape_live_pointers(&mut self, vertices: &[ControlFlowVertex]) {
        if !self.sections_apart {
            return;
        }
        for n in self.recorded_locals(vertices) {
            self.line(format!("call oad_ptr_push({n})"));
        }
    }

    /// Sections apart, start of the adjoint section: the pop of those.
    pub(crate) fn restore_live_pointers(&mut self, vertices: &[ControlFlowVertex]) {
        if !self.sections_apart {
            return;
        }
        for n in self.recorded_locals(vertices).iter().rev() {
            self.line(format!("call oad_ptr_pop({n})"));
        }
    }

    /// Start of the adjoint section: the local pointer associations marked
    /// `pointer:replay:NAME` (one association in the program, to a target
    /// that exists whenever the unit runs), made again so that the reverse
    /// sweep refers through them to what the forward sweep did, also when
    /// the sweeps are separate calls (split mode).
    pub(crate) fn replay_pointer_associations(
        &mut self,
        vertices: &[ControlFlowVertex],
    ) -> Result<()> {
        let mut ids: Vec<String> = pointer_fields(vertices)
            .into_iter()
            .filter(|(_, f)| f.starts_with(POINTER_REPLAY))
            .map(|(id, _)| id)
            .collect();
        ids.sort();
        ids.dedup();
        for id in ids {
            if let Some(stmt) = self.canon.stmts.get(id.as_str()) {
                let text = stmt.text.trim_start();
                let text = text.trim_start_matches(|c: char| c.is_ascii_digit()).trim();
                let text = add_value_suffix_with(text, &|n| self.is_active(n), &|chain| {
                    self.env.index.is_active_chain(self.scope, chain)
                });
                self.line(text.trim());
            }
        }
        Ok(())
    }
}

/// (canonical statement id, pointer field) of every marker (or mirror) of
/// the vertices that has a pointer field.
pub(crate) fn pointer_fields(vertices: &[ControlFlowVertex]) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for v in vertices {
        let ControlFlowVertex::BasicBlock(b) = v else {
            continue;
        };
        for e in &b.elements {
            let BasicBlockElement::Marker(m) = e else {
                continue;
            };
            let annotation = m
                .annotation
                .strip_prefix(MIRROR_PREFIX)
                .unwrap_or(&m.annotation);
            let (canon, field) = crate::markers::split_annotation(annotation);
            if let (Some(id), Some(f)) = (
                canon.strip_prefix(CANON_PREFIX),
                field.filter(|f| f.starts_with(POINTER_PREFIX)),
            ) {
                out.push((id.trim().to_string(), f.to_string()));
            }
        }
    }
    out
}
