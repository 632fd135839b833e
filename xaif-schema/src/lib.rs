//! XAIF data model, reader, writer, validation and graph views.

pub mod model;

pub use model::*;
