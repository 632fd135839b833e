//! The Fortran runtime support library, embedded in the binary and written
//! next to the differentiated program.

use crate::Mode;

pub const OAD_ACTIVE_SCALAR: &str = include_str!("../runtime/OAD_active.f90");
pub const OAD_ACTIVE_VECTOR: &str = include_str!("../runtime/OAD_active_vector.f90");
pub const OAD_REV: &str = include_str!("../runtime/OAD_rev.f90");
pub const OAD_TAPE: &str = include_str!("../runtime/OAD_tape.f90");
/// Binomial checkpointing schedules for reversing loops (revolve); not
/// yet among the files `runtime_files` writes.
pub const OAD_REVOLVE: &str = include_str!("../runtime/OAD_revolve.f90");

/// The runtime files for a mode, as (file name, text), in compile order.
pub fn runtime_files(mode: Mode) -> Vec<(&'static str, &'static str)> {
    let active = match mode {
        Mode::VectorTangent => OAD_ACTIVE_VECTOR,
        _ => OAD_ACTIVE_SCALAR,
    };
    vec![
        ("OAD_active.f90", active),
        ("OAD_rev.f90", OAD_REV),
        ("OAD_tape.f90", OAD_TAPE),
    ]
}
