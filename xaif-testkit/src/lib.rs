//! Test support for the XAIF stages (a dev-dependency only).
//!
//! - [`notation`]: XAIF expressions and variable references from a small
//!   prefix notation (`(mul (sin x) v[i])`).
//! - [`builder`]: call graphs around such statements: one basic block,
//!   structured programs (branches, loops, calls).
//! - [`intrinsics`]: values of the catalogue's intrinsics, written from
//!   their mathematical definitions (never from the catalogue).
//! - [`machine`]: the one XAIF interpreter: assignments (scalar and
//!   array-valued), control flow, calls, the tangent output's derivative
//!   propagators and the adjoint output's tape and checkpoint operations.
//! - [`blocks`]: the interpreter over a plain map of values (one
//!   expression, one basic block).
//! - [`check`]: a whole document's input, tangent output and adjoint output
//!   interpreted on random inputs and compared (finite differences,
//!   dot-product test).
//! - [`random`]: a fixed-seed generator and random smooth expressions.

/// What the interpreter cannot run, as a panic payload of its own type:
/// [`check::check_routine`] reports it as `Unsupported` (not interpretable),
/// every other panic as a failure; no message text is parsed for that.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotInterpretable(pub String);

/// Stops the interpreter on something it cannot run (`format!` arguments
/// say what), unwinding with a [`NotInterpretable`] payload.
#[macro_export]
macro_rules! not_interpretable {
    ($($arg:tt)*) => {
        ::std::panic::panic_any($crate::NotInterpretable(format!($($arg)*)))
    };
}

pub mod blocks;
pub mod builder;
pub mod check;
pub mod intrinsics;
pub mod machine;
pub mod notation;
pub mod random;

pub use blocks::{eval, execute, execute_original, location, State};
pub use builder::*;
pub use intrinsics::apply as apply_intrinsic;
pub use machine::constant_value as literal_value;
pub use machine::{Callee, Frame, Machine};
pub use notation::{expr, expr as parse_expression, in_scope, var, var as var_ref};
