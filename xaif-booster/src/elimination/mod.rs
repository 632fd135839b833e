//! Jacobian accumulation by elimination in linearized computational graphs.
//!
//! Language independent: the caller builds a [`LinearizedGraph`] whose edges
//! carry local partial derivatives (numbers or symbolic ids), then runs
//! vertex, edge (front/back) and face eliminations, chosen step by step
//! ([`Eliminator`]), by a heuristic [`Chain`] ([`eliminate`]), by the
//! cheapest of several chains ([`best_of`]), or optimally for small graphs
//! ([`optimal_vertex_elimination`]).  The result is the Jacobian (one label
//! per nonzero entry) plus the operations that compute it.
//!
//! Algorithms follow paper 000 (vertex, edge, face elimination), paper 001
//! §3 (sibling and Markowitz heuristics) and paper 002 (non-maximal and
//! collapsed dependents); see `docs/elimination.md`.

mod best_of;
mod edge;
mod eliminator;
pub mod examples;
mod face;
mod graph;
mod heuristics;
mod label;
mod optimum;
pub mod random;
mod vertex;
mod work;

pub use best_of::{best_of, default_candidates, Candidate, CostModel};
pub use eliminator::{
    eliminate, eliminate_mixed, Elimination, Eliminator, FaceId, Jacobian, JacobianEntry, Method,
    Step,
};
pub use graph::{GraphError, LinearizedGraph, VertexId};
pub use heuristics::{Chain, Filter};
pub use label::{Label, LabelDef, LabelId, Labels, Op, OpCounts};
pub use optimum::{optimal_vertex_elimination, Optimum, SearchLimit};
pub use work::EliminationError;
