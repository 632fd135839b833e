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
//! ```
//! use xaif_booster::elimination::*;
//!
//! // v = x0 * x1 (partials x1, x0 as symbols 0 and 1); y = v + x0
//! let mut g = LinearizedGraph::new();
//! let (x0, x1) = (g.add_independent(), g.add_independent());
//! let v = g.add_vertex();
//! let y = g.add_dependent();
//! g.add_edge(x0, v, Label::Symbol(0)).unwrap();
//! g.add_edge(x1, v, Label::Symbol(1)).unwrap();
//! g.add_edge(v, y, Label::One).unwrap();
//! g.add_edge(x0, y, Label::One).unwrap();
//!
//! let e = eliminate(&g, Method::Vertex, &"markowitz,reverse".parse().unwrap()).unwrap();
//! // products with the unit edge are free; one addition absorbs into (x0, y)
//! assert_eq!((e.counts.multiplications, e.counts.additions), (0, 1));
//! for op in e.ops() {
//!     println!("{op}"); // e.g. `L7 = L3 + L2`: one assignment each
//! }
//! let entry = e.jacobian.get(x0, y).unwrap();
//! assert!(matches!(e.labels.def(entry.label), LabelDef::Add(..)));
//! ```
//!
//! Algorithms follow paper 000 (vertex, edge, face elimination), paper 001
//! §3 (sibling and Markowitz heuristics) and paper 002 (non-maximal and
//! collapsed dependents); see `docs/elimination.md`.

mod best_of;
mod edge;
mod edge_optimum;
mod eliminator;
pub mod examples;
mod face;
mod graph;
mod heuristics;
mod label;
mod method;
mod optimum;
pub mod random;
mod selector;
mod vertex;
mod work;

pub use best_of::{
    best_of, default_candidates, recommended_candidates, Candidate, CostModel, LARGE_GRAPH_EDGES,
};
pub use edge_optimum::{optimal_edge_elimination, EdgeOptimum};
pub use eliminator::{
    eliminate, eliminate_mixed, Elimination, Eliminator, FaceId, Jacobian, JacobianEntry, Step,
};
pub use graph::{GraphError, LinearizedGraph, VertexId};
pub use heuristics::{Chain, Filter};
pub use label::{Label, LabelDef, LabelId, Labels, Op, OpCounts};
pub use method::Method;
pub use optimum::{optimal_vertex_elimination, Optimum, SearchLimit};
pub use work::EliminationError;
