//! XAIF data model, reader, writer, validation and graph views.
//!
//! - [`model`]: one Rust type per element of the format;
//! - [`read`]: streaming reader with positioned errors;
//! - [`write`](mod@write): deterministic writer;
//! - [`validate`]: XSD validation through libxml2 (the XSD files are built in);
//! - [`graph`]: petgraph views of call, control flow and expression graphs;
//! - [`dot`]: Graphviz export;
//! - [`visit`]: every symbol reference of a control flow graph;
//! - [`index`]: scopes, symbols and units of a call graph resolved once;
//! - side files of the stages: [`source_map`] (`P.loc`),
//!   [`declarations`] (`P.decl`), [`driver_interface`] (`P.iface`),
//!   [`activity_report`] (`P.act`).

pub mod activity_report;
pub mod declarations;
pub mod diagnostic;
pub mod dot;
pub mod driver_interface;
pub mod error;
pub mod graph;
pub mod index;
pub mod line_map;
pub mod model;
mod names;
pub mod read;
pub mod source_map;
pub mod validate;
pub mod visit;
pub mod write;

pub use error::XaifError;
pub use model::*;
