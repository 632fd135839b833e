//! Expressions: values of scalar and element-wise array expressions,
//! catalogue partials with argument references, bound inquiries.

use std::collections::HashMap;
use xaif_schema::model::*;

use super::Machine;
use crate::intrinsics;

impl Machine {
    pub(super) fn eval_int(&mut self, e: &Expression) -> i64 {
        let x = self.eval(e);
        assert_eq!(x.fract(), 0.0, "non-integer subscript {x}");
        x as i64
    }

    /// The value of a scalar expression.
    pub fn eval(&mut self, e: &Expression) -> f64 {
        self.eval_at(e, None)
    }

    /// The value of an expression; array-valued references give their
    /// `element`-th element (element-wise evaluation of an array
    /// assignment).
    pub fn eval_at(&mut self, e: &Expression, element: Option<usize>) -> f64 {
        let index: HashMap<&str, usize> = e
            .vertices
            .iter()
            .enumerate()
            .map(|(i, v)| (v.vertex_id(), i))
            .collect();
        assert_eq!(index.len(), e.vertices.len(), "duplicate vertex ids");
        let mut args: Vec<Vec<(i64, usize)>> = vec![Vec::new(); e.vertices.len()];
        let mut used = vec![false; e.vertices.len()];
        for ed in &e.edges {
            let s = index[ed.source.as_str()];
            let t = index[ed.target.as_str()];
            args[t].push((ed.position, s));
            used[s] = true;
        }
        for a in &mut args {
            a.sort();
        }
        let roots: Vec<usize> = (0..e.vertices.len()).filter(|&i| !used[i]).collect();
        assert_eq!(roots.len(), 1, "expression with {} roots", roots.len());
        self.eval_vertex(e, &args, roots[0], element, &[])
    }

    /// Evaluates a catalogue partial: `ArgumentReference n` is `args[n-1]`.
    pub fn eval_with_arguments(&mut self, e: &Expression, arguments: &[f64]) -> f64 {
        let index: HashMap<&str, usize> = e
            .vertices
            .iter()
            .enumerate()
            .map(|(i, v)| (v.vertex_id(), i))
            .collect();
        let mut args: Vec<Vec<(i64, usize)>> = vec![Vec::new(); e.vertices.len()];
        let mut used = vec![false; e.vertices.len()];
        for ed in &e.edges {
            let s = index[ed.source.as_str()];
            let t = index[ed.target.as_str()];
            args[t].push((ed.position, s));
            used[s] = true;
        }
        for a in &mut args {
            a.sort();
        }
        let root = (0..e.vertices.len()).find(|&i| !used[i]).expect("root");
        self.eval_vertex(e, &args, root, None, arguments)
    }

    /// Bound inquiries on a whole array (`lbound`, `ubound`, `size`): the
    /// argument is the array itself, not a value.
    pub(super) fn inquiry(
        &mut self,
        e: &Expression,
        args: &[Vec<(i64, usize)>],
        v: usize,
    ) -> Option<f64> {
        let ExpressionVertex::Intrinsic(i) = &e.vertices[v] else {
            return None;
        };
        if !matches!(i.name.as_str(), "lbound" | "ubound" | "size") {
            return None;
        }
        let ExpressionVertex::VariableReference(r) = &e.vertices[args[v][0].1] else {
            panic!("bound inquiry on something else than an array");
        };
        assert!(
            r.vertices.len() == 1,
            "bound inquiry on something else than a whole array"
        );
        let bounds = self.bounds(Self::symbol_reference(r));
        let dims: Vec<(i64, i64)> = match args[v].get(1) {
            Some(&(_, d)) => {
                let k = self.eval_vertex(e, args, d, None, &[]) as usize;
                vec![bounds[k - 1]]
            }
            None => bounds,
        };
        Some(match i.name.as_str() {
            "lbound" => dims[0].0 as f64,
            "ubound" => dims[0].1 as f64,
            _ => dims
                .iter()
                .map(|(l, u)| (u - l + 1).max(0))
                .product::<i64>() as f64,
        })
    }

    pub(super) fn eval_vertex(
        &mut self,
        e: &Expression,
        args: &[Vec<(i64, usize)>],
        v: usize,
        element: Option<usize>,
        arguments: &[f64],
    ) -> f64 {
        if let Some(x) = self.inquiry(e, args, v) {
            return x;
        }
        let a: Vec<f64> = args[v]
            .iter()
            .map(|&(_, s)| self.eval_vertex(e, args, s, element, arguments))
            .collect();
        let truth = |b: bool| if b { 1.0 } else { 0.0 };
        match &e.vertices[v] {
            ExpressionVertex::VariableReference(r) => match self.elements(r) {
                None => self.read(r),
                Some(elements) => {
                    let k = element.unwrap_or_else(|| {
                        crate::not_interpretable!("array-valued reference in a scalar context")
                    });
                    let n = elements
                        .get(k)
                        .unwrap_or_else(|| panic!("non-conformable array reference"))
                        .clone();
                    self.read_location(&n, r)
                }
            },
            ExpressionVertex::Constant(c) => constant_value(c),
            ExpressionVertex::BooleanOperation(b) => match (b.name, a.as_slice()) {
                (BooleanOp::LessThan, [x, y]) => truth(x < y),
                (BooleanOp::LessOrEqual, [x, y]) => truth(x <= y),
                (BooleanOp::GreaterThan, [x, y]) => truth(x > y),
                (BooleanOp::GreaterOrEqual, [x, y]) => truth(x >= y),
                (BooleanOp::Equal, [x, y]) => truth(x == y),
                (BooleanOp::NotEqual, [x, y]) => truth(x != y),
                (BooleanOp::And, [x, y]) => truth(*x != 0.0 && *y != 0.0),
                (BooleanOp::Or, [x, y]) => truth(*x != 0.0 || *y != 0.0),
                (BooleanOp::Not, [x]) => truth(*x == 0.0),
                (op, _) => crate::not_interpretable!("boolean operation {op:?}/{}", a.len()),
            },
            // Integer results (`rType`) truncate: integer division.
            ExpressionVertex::Intrinsic(i) if i.r_type == SymbolType::Integer => {
                intrinsics::apply(&i.name, &a).trunc()
            }
            ExpressionVertex::Intrinsic(i) => intrinsics::apply(&i.name, &a),
            ExpressionVertex::ArgumentReference(r) => arguments[r.argument as usize - 1],
            ExpressionVertex::FunctionCall(_) => {
                crate::not_interpretable!("function call in an expression (canonical form C4)")
            }
        }
    }
}

/// Numeric value of a constant: Fortran literals (`2.5d0`, `1.0_8`),
/// logicals as 0/1.
pub fn constant_value(c: &Constant) -> f64 {
    match c.type_ {
        ConstantType::Bool => match c.value.trim().to_ascii_lowercase().trim_matches('.') {
            "true" | "1" => 1.0,
            "false" | "0" => 0.0,
            other => panic!("bad logical literal {other}"),
        },
        ConstantType::Char | ConstantType::String => {
            crate::not_interpretable!("character constant: {}", c.value)
        }
        _ => {
            let t = c.value.split('_').next().unwrap().replace(['d', 'D'], "e");
            t.parse()
                .unwrap_or_else(|_| crate::not_interpretable!("literal: {}", c.value))
        }
    }
}
