//! XAIF data model, reader, writer, validation and graph views.

pub mod error;
pub mod model;
mod names;
pub mod read;
pub mod write;

pub use error::XaifError;
pub use model::*;
