//! The front end reports with the diagnostic type every stage shares
//! (`xaif_schema::diagnostic`).

pub use xaif_schema::diagnostic::{render, Diagnostic, ErrorFormat, Kind, Location, Severity};
