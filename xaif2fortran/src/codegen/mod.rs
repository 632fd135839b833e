//! The code generator of one unit's executable part. `UnitGen`, defined
//! here, holds what every concern needs: the lines of the regenerated
//! executable part, the declarations they need (conversion temporaries),
//! fresh names and statement labels, the template section being written.
//! Each child module adds an `impl UnitGen` block for one concern and
//! imports from here, from the leaves below the generator (`markers.rs`,
//! `template.rs`, `fortran_text.rs`, `canon.rs`, `expr.rs`, ...) and from
//! siblings only along the order below, so no two modules import each
//! other:
//!
//! - `cfg_view.rs`: the control flow graph as vertices and out-edges;
//! - `control_flow.rs` chooses between `structured.rs` (nested `if`/`do`)
//!   and `unstructured.rs` (labels and `goto`); loops reserve tape room
//!   for their bodies' pushes through `push_runs.rs`;
//! - `block.rs`: basic block elements, with subroutine calls in
//!   `calls.rs`, black-box calls in `black_box.rs`, MPI calls in `mpi.rs`,
//!   derived-type copies in `derived_copy.rs`, pointer associations in
//!   `pointers.rs` and `pointer_frames.rs`, allocation replay in
//!   `allocation.rs`;
//! - checkpoints of the joint template and of checkpointed loops
//!   (`checkpoint.rs`), split mode's restored integer locals
//!   (`split_locals.rs`), passive components hoisted before the adjoint
//!   loops (`loop_invariants.rs`).

pub mod allocation;
pub mod black_box;
pub mod block;
pub mod calls;
pub mod cfg_view;
pub mod checkpoint;
pub mod control_flow;
pub mod derived_copy;
pub mod loop_invariants;
pub mod mpi;
pub mod pointer_frames;
pub mod pointers;
pub mod push_runs;
pub mod split_locals;
pub mod structured;
pub mod unstructured;

use std::collections::HashSet;

use crate::canon::CanonSource;
use crate::expr::Env;
use crate::inline::InlineDefs;
use crate::template::Section;

/// Generates the executable part of one unit (or one template
/// placeholder of it).
pub struct UnitGen<'g, 'a> {
    pub env: &'g Env<'a>,
    pub canon: &'g CanonSource,
    pub inline: &'g InlineDefs,
    /// Canonical unit tag.
    pub unit: String,
    /// XAIF scope of the unit.
    pub scope: u64,
    /// Generated statements, already indented.
    pub lines: Vec<String>,
    pub indent: usize,
    /// Declarations the generated statements need.
    pub extra_decls: Vec<String>,
    /// Loops being emitted in structured form (innermost last).
    pub(crate) loops: Vec<LoopCtx>,
    /// Depth of each of those loops' body region.
    pub(crate) loop_depths: Vec<usize>,
    /// Basic blocks the structured emitter has written (each once).
    pub(crate) emitted_blocks: HashSet<String>,
    /// Regions the structured emitter may still open (guards against
    /// duplicating code along paths that never join).
    pub(crate) region_budget: usize,
    /// Basic blocks (vertex ids) of loop bodies whose tape pushes the
    /// loop has reserved room for before it started (`push_runs.rs`).
    pub(crate) reserved_blocks: HashSet<String>,
    /// Whether an early exit may be a `return` (not in template sections).
    pub allow_return: bool,
    /// Labels of format statements already copied.
    pub emitted_formats: HashSet<String>,
    /// The adjoint template section being generated (allocation replay).
    pub section: Section,
    /// The tape and adjoint sections run in separate invocations (split
    /// mode, or a leaf's template in joint mode): locals are released in
    /// between, and the unit is never re-run from a checkpoint.
    pub sections_apart: bool,
    /// Joint mode: no unit of the program calls this one (the top-level
    /// routine), so its tape section runs once, from the driver, and is
    /// never a re-run from a checkpoint.
    pub call_tree_root: bool,
    /// The frame pointers of the section being generated and their
    /// pointer assignments (`pointer_frames.rs`).
    pub(crate) frame_sites: Vec<(String, Vec<Site>)>,
    /// The section being generated sets the mode itself (checkpointed
    /// loops): its calls go to the callees, not to their section copies.
    pub switches_mode: bool,
    /// Adjoint modes and `-m f`: a released active local's storage is kept
    /// for the adjoint section or the next call (`allocation.rs`, "Kept
    /// storage"); not in the section copies, which have no slot shared
    /// with the unit.
    pub keeps_storage: bool,
    temp_counter: usize,
    used_labels: HashSet<u32>,
    next_label: u32,
}

impl<'g, 'a> UnitGen<'g, 'a> {
    pub fn new(
        env: &'g Env<'a>,
        canon: &'g CanonSource,
        inline: &'g InlineDefs,
        unit: &str,
        scope: u64,
    ) -> Self {
        UnitGen {
            env,
            canon,
            inline,
            unit: unit.to_string(),
            scope,
            lines: Vec::new(),
            indent: 1,
            extra_decls: Vec::new(),
            loops: Vec::new(),
            loop_depths: Vec::new(),
            emitted_blocks: HashSet::new(),
            region_budget: 0,
            reserved_blocks: HashSet::new(),
            allow_return: true,
            emitted_formats: HashSet::new(),
            section: Section::Other,
            sections_apart: env.mode == crate::Mode::AdjointSplit,
            call_tree_root: false,
            frame_sites: Vec::new(),
            switches_mode: false,
            keeps_storage: matches!(
                env.mode,
                crate::Mode::AdjointSplit | crate::Mode::AdjointJoint | crate::Mode::Tangent
            ),
            temp_counter: 0,
            used_labels: canon.labels_in_body(unit),
            next_label: 1000,
        }
    }

    /// Appends a statement at the current indentation, marked with the
    /// basic block element it is generated for (`line_origins.rs`).
    pub fn line(&mut self, text: impl AsRef<str>) {
        let line = format!("{}{}", "  ".repeat(self.indent), text.as_ref());
        self.lines.push(match self.env.xaif.current_statement() {
            Some(id) => crate::line_origins::from_statement(line, &id),
            None => line,
        });
    }

    /// A fresh name for a conversion temporary.
    pub fn fresh_temp(&mut self) -> String {
        self.temp_counter += 1;
        format!("oad_ctmp{}", self.temp_counter)
    }

    /// A statement label not used in the canonical body of the unit.
    pub fn fresh_label(&mut self) -> u32 {
        while self.used_labels.contains(&self.next_label) {
            self.next_label += 1;
        }
        let l = self.next_label;
        self.used_labels.insert(l);
        self.next_label += 1;
        l
    }

    /// The symbol `name` stands for in this unit: its scope, the symbol
    /// and its name there (local, host or enclosing module; else
    /// use-associated, possibly renamed).
    pub fn visible_symbol(&self, name: &str) -> Option<(u64, &'a xaif_schema::Symbol, String)> {
        let index = self.env.index;
        let lower = name.to_ascii_lowercase();
        let (scope, remote) = index
            .resolve_scope(self.scope, &lower)
            .map(|scope| (scope, lower.clone()))
            .or_else(|| {
                let names = self.env.local_names.borrow();
                names.by_local.get(&lower).cloned().or_else(|| {
                    names
                        .whole
                        .iter()
                        .find(|&&s| index.symbol(s, &lower).is_some())
                        .map(|&s| (s, lower.clone()))
                })
            })?;
        Some((scope, index.symbol(scope, &remote)?, remote))
    }

    /// Whether `name`, seen from this unit, is an active variable.
    pub fn is_active(&self, name: &str) -> bool {
        let index = self.env.index;
        if index.resolve(self.scope, name).is_some() {
            return index.is_active(self.scope, name);
        }
        // Use-associated: renamed, or visible from a module used whole.
        let names = self.env.local_names.borrow();
        let active = |scope: u64, n: &str| {
            index
                .symbol(scope, n)
                .is_some_and(|s| s.active && s.kind == xaif_schema::SymbolKind::Variable)
        };
        match names.by_local.get(name) {
            Some((scope, remote)) => active(*scope, remote),
            None => names.whole.iter().any(|&s| active(s, name)),
        }
    }
}

/// A loop being emitted: where `exit` and `cycle` go.
#[derive(Debug, Clone)]
pub(crate) struct LoopCtx {
    end_loop: String,
    exit_target: String,
    /// `cycle` is only right where Fortran's next iteration is the
    /// graph's (not for the post-test loop nor the do-while form of a
    /// counted loop, whose test / update follow the body).
    cycle_ok: bool,
    /// Construct name, set when an inner loop jumps to this one.
    name: Option<String>,
    header_line: usize,
}

/// The target of one pointer assignment of a frame pointer.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Site {
    /// Canonical statement id (numeric: it is the site's number).
    id: String,
    /// `None`: `=> null()`.
    base: Option<String>,
    /// Subscript items: each a list of parts (`lo`, `hi`, `stride` of a
    /// triplet, or one scalar subscript), `None` for an omitted part.
    items: Vec<Vec<Option<String>>>,
}
