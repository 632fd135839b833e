//! Reusable stacks the expression reader builds its vectors on: a graph's
//! vertices and edges are pushed here (nested graphs push above and take
//! theirs off first), then moved into a vector allocated once at its final
//! size. Growing each model vector in place instead would reallocate it
//! while reading and leave up to half of it unused afterwards.

use crate::model::{Edge, ExpressionEdge, ExpressionVertex, VariableReferenceVertex};

#[derive(Default)]
pub(crate) struct Scratch {
    pub expression_vertices: Vec<ExpressionVertex>,
    pub expression_edges: Vec<ExpressionEdge>,
    pub reference_vertices: Vec<VariableReferenceVertex>,
    pub reference_edges: Vec<Edge>,
}

/// Moves `stack[base..]` into a vector of exactly that length.
pub(crate) fn take_from<T>(stack: &mut Vec<T>, base: usize) -> Vec<T> {
    stack.drain(base..).collect()
}
