//! fortran2xaif: the front end. Fortran source in, XAIF and the canonical
//! source out (see docs/frontend.md).

pub mod abstract_interfaces;
pub mod activity_report;
pub mod analysis;
pub mod ast;
pub mod bit_intrinsics;
pub mod black_box;
pub mod black_box_pragmas;
pub mod canon;
pub mod cfg;
pub mod checkpoint_pragmas;
pub mod components;
pub mod construct_locals;
pub mod declarations;
pub mod default_real;
pub mod diagnostics;
pub mod emit_canon;
pub mod emit_xaif;
pub mod generics;
pub mod interface;
pub mod intrinsics;
pub mod locations;
pub mod lower;
pub mod mpi;
pub mod parse;
pub mod pipeline;
pub mod pointer_aliases;
pub mod procedure_arguments;
pub mod seeds;
pub mod sema;
pub mod source;
pub mod type_bound;
pub mod unparse;
