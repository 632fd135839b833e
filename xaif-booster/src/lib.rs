//! xaif-booster: language-independent AD transformations on XAIF.
//!
//! Tangent mode pipeline, one module per step: `catalogue` (intrinsic
//! partials) → `linearize` (local partials of each active assignment) →
//! `preaccumulate` (local Jacobian by the chain rule) → `propagate`
//! (derivative propagator entries), driven over the call graph by `tangent`.

pub mod adjoint;
pub mod block_accumulate;
pub mod catalogue;
pub mod cfg_shape;
pub mod dot;
pub mod du_chains;
pub mod elimination;
pub mod error;
pub mod expr;
pub mod flatten;
pub mod linearize;
pub mod preaccumulate;
pub mod prepare;
pub mod propagate;
pub mod replay;
pub mod scalarize;
pub mod scalarize_loops;
pub mod scalarize_splice;
pub mod symbols;
pub mod tangent;
pub mod temporaries;
