//! The Fortran runtime support library, embedded in the binary and written
//! next to the differentiated program.

use crate::Mode;

pub const OAD_ACTIVE_SCALAR: &str = include_str!("../runtime/OAD_active.f90");
pub const OAD_ACTIVE_VECTOR: &str = include_str!("../runtime/OAD_active_vector.f90");
pub const OAD_REV: &str = include_str!("../runtime/OAD_rev.f90");
pub const OAD_TAPE: &str = include_str!("../runtime/OAD_tape.f90");
/// Binomial checkpointing schedules for reversing loops (revolve).
pub const OAD_REVOLVE: &str = include_str!("../runtime/OAD_revolve.f90");
/// Snapshot slots of checkpointed loops, on the checkpoint stacks.
pub const OAD_SNAPSHOTS: &str = include_str!("../runtime/OAD_snapshots.f90");
/// Association stacks of active pointers (pointer assignments, nullify and
/// (de)allocation through pointers reversed in the adjoint sweep).
pub const OAD_PTR: &str = include_str!("../runtime/OAD_ptr.f90");

/// The runtime files for a mode, as (file name, text), in compile order.
/// The adjoint modes always get the binomial checkpointing modules (a
/// program without `CHECKPOINT BINOMIAL` loops does not use them): the
/// file list, and so every build script, is the same for every program.
pub fn runtime_files(mode: Mode) -> Vec<(&'static str, &'static str)> {
    let active = match mode {
        Mode::VectorTangent => OAD_ACTIVE_VECTOR,
        _ => OAD_ACTIVE_SCALAR,
    };
    let mut files = vec![
        ("OAD_active.f90", active),
        ("OAD_rev.f90", OAD_REV),
        ("OAD_tape.f90", OAD_TAPE),
    ];
    if matches!(mode, Mode::AdjointSplit | Mode::AdjointJoint) {
        files.push(("OAD_ptr.f90", OAD_PTR));
        files.push(("OAD_revolve.f90", OAD_REVOLVE));
        files.push(("OAD_snapshots.f90", OAD_SNAPSHOTS));
    }
    files
}

/// MPI on active data (`mpi.rs`), for programs that `use mpi`: the
/// shared helpers, the nonblocking calls, the module the program uses.
pub const OAD_MPI_CORE: &str = include_str!("../runtime/OAD_mpi_core.f90");
pub const OAD_MPI_REQUESTS: &str = include_str!("../runtime/OAD_mpi_requests.f90");
pub const OAD_MPI: &str = include_str!("../runtime/OAD_mpi.f90");
/// The derivative layout of `OAD_mpi_core` in the vector tangent mode.
const OAD_MPI_VECTOR_LAYOUT: &str = include_str!("../runtime/OAD_mpi_vector_layout.f90");

/// The files of `OAD_mpi` for a mode, in compile order. The vector mode
/// swaps the derivative layout (the block between the layout markers of
/// `OAD_mpi_core.f90`): a message carries the directions in use.
pub fn oad_mpi_files(mode: Mode) -> Vec<(&'static str, String)> {
    const BEGIN: &str = "  ! begin derivative layout";
    const END: &str = "  ! end derivative layout\n";
    let core = match (OAD_MPI_CORE.find(BEGIN), OAD_MPI_CORE.find(END)) {
        (Some(a), Some(b)) if mode == Mode::VectorTangent => format!(
            "{}{}{}",
            &OAD_MPI_CORE[..a],
            OAD_MPI_VECTOR_LAYOUT,
            &OAD_MPI_CORE[b + END.len()..]
        ),
        _ => OAD_MPI_CORE.to_string(),
    };
    vec![
        ("OAD_mpi_core.f90", core),
        ("OAD_mpi_requests.f90", OAD_MPI_REQUESTS.to_string()),
        ("OAD_mpi.f90", OAD_MPI.to_string()),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mpi_files_in_compile_order_with_the_mode_s_layout() {
        let names = |mode| -> Vec<&str> { oad_mpi_files(mode).iter().map(|(n, _)| *n).collect() };
        assert_eq!(
            names(Mode::Tangent),
            ["OAD_mpi_core.f90", "OAD_mpi_requests.f90", "OAD_mpi.f90"]
        );
        let core = |mode| oad_mpi_files(mode).remove(0).1;
        // Scalar modes: one derivative slot, no width header.
        for mode in [Mode::Tangent, Mode::AdjointSplit, Mode::AdjointJoint] {
            assert!(core(mode).contains("width = 1\n"));
            assert!(core(mode).contains("header = 0\n"));
        }
        // Vector mode: the layout block swapped whole, once.
        let vector = core(Mode::VectorTangent);
        assert!(vector.contains("width = max_deriv_vec_len"));
        assert!(vector.contains("header = 1\n"));
        assert!(!vector.contains("width = 1\n"));
        assert_eq!(vector.matches("! begin derivative layout").count(), 1);
        assert_eq!(vector.matches("! end derivative layout").count(), 1);
    }
}
