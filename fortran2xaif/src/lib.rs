//! fortran2xaif: the front end. Fortran source in, XAIF and the canonical
//! source out (see docs/frontend.md).

pub mod ast;
pub mod intrinsics;
pub mod parse;
pub mod sema;
pub mod diagnostics;
pub mod source;
pub mod analysis;
