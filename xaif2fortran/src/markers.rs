//! The booster's vocabulary the back end reads: annotation prefixes of
//! markers and arguments, and the names of the inlinable calls it inserts
//! (docs/xaif.md). Only names here, no code generation: every module of
//! the code generator and the plans before it may use them.

/// Prefix of the annotation the booster gives the reverse sweep's mirror
/// of an opaque statement.
pub const MIRROR_PREFIX: &str = "mirror:";

/// Prefix of `Marker/@annotation` pointing at an opaque statement.
pub const CANON_PREFIX: &str = "canon:";

/// Store and restore of one variable of a checkpointed loop's state
/// (`xaif-booster`, `adjoint/checkpointed_loops.rs`), expanded by the
/// variable's declaration (`codegen/checkpoint.rs`).
pub const STATE_STORE: &str = "oad_state_store";
pub const STATE_RESTORE: &str = "oad_state_restore";

/// The booster's push of an array snapshot (`xaif-booster`,
/// `adjoint/array_snapshots.rs`): its argument is the whole array.
pub const SNAPSHOT_PUSH: &str = "oad_snap_push";

/// Annotation prefix of the booster's call-site checkpoint operations,
/// followed by the callee (`xaif-booster`, `adjoint/taping.rs`).
pub const CALLSITE_CHECKPOINT: &str = "callsite:";

/// Annotation the booster puts on an argument whose checkpoint it writes
/// itself, element by element (`xaif-booster`, `adjoint/argument_elements.rs`).
pub const ELEMENT_CHECKPOINT: &str = "checkpoint:elements";
/// `ArgumentSymbolReference/@annotation` of an array dummy the routine
/// writes before it reads (booster `adjoint/write_first.rs`): no argument
/// checkpoint.
pub const WRITE_FIRST: &str = "checkpoint:write-first";

/// Annotation key of a black-box call, after `canon:ID`.
pub const BLACK_BOX_KEY: &str = "blackbox:";

/// Annotation key of a derived-type copy.
pub const COPY_PREFIX: &str = "copy:";

/// Annotation key of an MPI call, after `canon:ID`.
pub const MPI_KEY: &str = "mpi:";

/// Marker field of an association of an active pointer.
pub const POINTER_PREFIX: &str = "pointer:";

/// The pointer field of a local pointer's association within its routine's
/// frame (`codegen/pointer_frames.rs`).
pub const POINTER_FRAME: &str = "pointer:frame:";

/// Splits a marker annotation (without `mirror:`) into the `canon:ID` part
/// and the black-box description, if any.
pub fn split_annotation(annotation: &str) -> (&str, Option<&str>) {
    match annotation.split_once(';') {
        Some((canon, rest)) => (canon, Some(rest)),
        None => (annotation, None),
    }
}

/// `Some(true)` for the booster's whole-value store of a derived-type
/// actual at a call site (a scalar, or an array or section of one),
/// `Some(false)` for its restore.
pub fn opaque_checkpoint_direction(name: &str) -> Option<bool> {
    match name {
        "cp_store_opaque_scalar" | "cp_store_opaque_array" => Some(true),
        "cp_restore_opaque_scalar" | "cp_restore_opaque_array" => Some(false),
        _ => None,
    }
}

/// `Some(true)` for the booster's call-site store of a passive pointer's
/// association, `Some(false)` for its restore.
pub fn pointer_checkpoint_direction(name: &str) -> Option<bool> {
    match name {
        "cp_store_pointer" => Some(true),
        "cp_restore_pointer" => Some(false),
        _ => None,
    }
}

/// What is wrong with the description of a black-box or MPI call in a
/// marker's annotation (`blackbox:...`, `mpi:...`). The caller reports it
/// at the marker's statement.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AnnotationError {
    #[error("unknown intent '{0}'")]
    UnknownIntent(String),
    #[error("unknown argument role '{0}'")]
    UnknownRole(char),
    #[error("unknown part '{0}'")]
    UnknownPart(String),
    /// A required part is absent (`blackbox:NAME`, `args:`, ...).
    #[error("{0}")]
    Missing(&'static str),
    #[error("give either passive or tangent: and adjoint:")]
    PassiveOrDerivatives,
}
