//! Expression graph helpers: an indexed view of an XAIF `Expression` (the
//! arguments of each vertex in position order, the root) and a builder for
//! new expressions (partials, temporaries) with fresh vertex and edge ids.

use std::collections::{HashMap, HashSet};

use crate::error::StatementError;
use xaif_schema::model::{
    Constant, ConstantType, Expression, ExpressionEdge, ExpressionVertex, Intrinsic, SymbolShape,
    SymbolType, VariableReference, VariableReferenceVertex,
};

/// An expression with the argument lists of its vertices resolved.
pub struct ExprView<'a> {
    pub expr: &'a Expression,
    /// Argument vertex indices of each vertex, sorted by edge position.
    pub args: Vec<Vec<usize>>,
    /// Number of out-edges of each vertex (more than one: shared subexpression).
    pub uses: Vec<usize>,
}

impl<'a> ExprView<'a> {
    /// Indexes `expr`; errors on dangling edge ends, duplicate positions or
    /// a cycle.
    pub fn new(expr: &'a Expression) -> Result<ExprView<'a>, StatementError> {
        let mut index = HashMap::with_capacity(expr.vertices.len());
        for (i, v) in expr.vertices.iter().enumerate() {
            if index.insert(v.vertex_id(), i).is_some() {
                return Err(StatementError::semantic(format!(
                    "duplicate expression vertex id '{}'",
                    v.vertex_id()
                )));
            }
        }
        let mut positioned: Vec<Vec<(i64, usize)>> = vec![Vec::new(); expr.vertices.len()];
        let mut uses = vec![0; expr.vertices.len()];
        for e in &expr.edges {
            let s = *index.get(e.source.as_str()).ok_or_else(|| {
                StatementError::semantic(format!(
                    "expression edge '{}' has unknown source '{}'",
                    e.edge_id, e.source
                ))
            })?;
            let t = *index.get(e.target.as_str()).ok_or_else(|| {
                StatementError::semantic(format!(
                    "expression edge '{}' has unknown target '{}'",
                    e.edge_id, e.target
                ))
            })?;
            positioned[t].push((e.position, s));
            uses[s] += 1;
        }
        let mut args = Vec::with_capacity(positioned.len());
        for (t, mut list) in positioned.into_iter().enumerate() {
            list.sort_by_key(|&(p, _)| p);
            for (k, &(p, _)) in list.iter().enumerate() {
                if p != k as i64 + 1 {
                    return Err(StatementError::semantic(format!(
                        "arguments of expression vertex '{}' are not numbered 1..{}",
                        expr.vertices[t].vertex_id(),
                        list.len()
                    )));
                }
            }
            args.push(list.into_iter().map(|(_, s)| s).collect());
        }
        let view = ExprView { expr, args, uses };
        view.check_acyclic()?;
        Ok(view)
    }

    fn check_acyclic(&self) -> Result<(), StatementError> {
        // Kahn's algorithm over argument → operation edges.
        let n = self.args.len();
        let mut pending: Vec<usize> = self.args.iter().map(|a| a.len()).collect();
        let mut users: Vec<Vec<usize>> = vec![Vec::new(); n];
        for (t, a) in self.args.iter().enumerate() {
            for &s in a {
                users[s].push(t);
            }
        }
        let mut ready: Vec<usize> = (0..n).filter(|&i| pending[i] == 0).collect();
        let mut seen = 0;
        while let Some(v) = ready.pop() {
            seen += 1;
            for &u in &users[v] {
                pending[u] -= 1;
                if pending[u] == 0 {
                    ready.push(u);
                }
            }
        }
        if seen == n {
            Ok(())
        } else {
            Err(StatementError::semantic("expression graph has a cycle"))
        }
    }

    /// The single vertex without out-edges.
    pub fn root(&self) -> Result<usize, StatementError> {
        let roots: Vec<usize> = (0..self.uses.len())
            .filter(|&i| self.uses[i] == 0)
            .collect();
        match roots.as_slice() {
            [r] => Ok(*r),
            [] => Err(StatementError::semantic("empty expression")),
            _ => Err(StatementError::semantic(format!(
                "expression has {} roots (vertices without a user)",
                roots.len()
            ))),
        }
    }

    /// Vertices reachable from `root`, arguments before their users.
    pub fn postorder(&self, root: usize) -> Vec<usize> {
        let mut order = Vec::new();
        let mut visited = vec![false; self.args.len()];
        // Iterative DFS: (vertex, next argument to visit).
        let mut stack = vec![(root, 0usize)];
        visited[root] = true;
        while let Some(&mut (v, ref mut next)) = stack.last_mut() {
            if *next < self.args[v].len() {
                let a = self.args[v][*next];
                *next += 1;
                if !visited[a] {
                    visited[a] = true;
                    stack.push((a, 0));
                }
            } else {
                order.push(v);
                stack.pop();
            }
        }
        order
    }

    pub fn vertex(&self, i: usize) -> &'a ExpressionVertex {
        &self.expr.vertices[i]
    }

    /// A structural key of the subexpression at `v` (ids ignored): equal
    /// keys mean the same computation on the same variables.
    pub fn key(&self, v: usize) -> String {
        let mut s = String::new();
        self.write_key(v, &mut s);
        s
    }

    fn write_key(&self, v: usize, out: &mut String) {
        match self.vertex(v) {
            ExpressionVertex::VariableReference(r) => out.push_str(&variable_key(r)),
            ExpressionVertex::Constant(c) => {
                out.push_str("c:");
                out.push_str(&c.value);
            }
            ExpressionVertex::Intrinsic(i) => {
                out.push_str(&i.name);
            }
            ExpressionVertex::FunctionCall(f) => {
                out.push_str("call:");
                out.push_str(f.symbol_id.as_deref().unwrap_or(""));
            }
            ExpressionVertex::BooleanOperation(b) => out.push_str(&format!("{:?}", b.name)),
            ExpressionVertex::ArgumentReference(a) => out.push_str(&format!("arg{}", a.argument)),
        }
        if !self.args[v].is_empty() {
            out.push('(');
            for (k, &a) in self.args[v].iter().enumerate() {
                if k > 0 {
                    out.push(',');
                }
                self.write_key(a, out);
            }
            out.push(')');
        }
    }
}

/// A structural key of a variable reference: symbols, scopes, subscripts
/// and properties in document order, ids ignored.
pub fn variable_key(r: &VariableReference) -> String {
    let mut s = String::new();
    for v in &r.vertices {
        match v {
            VariableReferenceVertex::SymbolReference(sr) => {
                s.push_str(&format!("{}@{}", sr.symbol_id, sr.scope_id));
                for p in &sr.properties {
                    s.push_str(&format!("[{}={}]", p.name, p.value));
                }
            }
            VariableReferenceVertex::ArrayElementReference(a) => {
                s.push('(');
                for (k, t) in a.index_triplets.iter().enumerate() {
                    if k > 0 {
                        s.push(',');
                    }
                    for (j, part) in [&t.index, &t.bound, &t.stride].into_iter().enumerate() {
                        if j > 0 {
                            s.push(':');
                        }
                        if let Some(e) = part {
                            match ExprView::new(e).and_then(|view| {
                                let root = view.root()?;
                                Ok(view.key(root))
                            }) {
                                Ok(k) => s.push_str(&k),
                                Err(_) => s.push('?'),
                            }
                        }
                    }
                }
                s.push(')');
            }
        }
        s.push(';');
    }
    for e in &r.edges {
        s.push_str(&format!("{}>{};", e.source, e.target));
    }
    s
}

/// The base symbol of a variable reference: the first symbol reference.
pub fn base_symbol(r: &VariableReference) -> Option<(&str, u64)> {
    r.vertices.iter().find_map(|v| match v {
        VariableReferenceVertex::SymbolReference(s) => Some((s.symbol_id.as_str(), s.scope_id)),
        _ => None,
    })
}

/// Every symbol a variable reference mentions, subscripts included.
pub fn symbols_in_reference(r: &VariableReference, out: &mut Vec<(String, u64)>) {
    for v in &r.vertices {
        match v {
            VariableReferenceVertex::SymbolReference(s) => {
                out.push((s.symbol_id.to_string(), s.scope_id))
            }
            VariableReferenceVertex::ArrayElementReference(a) => {
                for t in &a.index_triplets {
                    for e in [&t.index, &t.bound, &t.stride].into_iter().flatten() {
                        symbols_in_expression(e, out);
                    }
                }
            }
        }
    }
}

/// Every symbol an expression mentions.
pub fn symbols_in_expression(e: &Expression, out: &mut Vec<(String, u64)>) {
    for v in &e.vertices {
        match v {
            ExpressionVertex::VariableReference(r) => symbols_in_reference(r, out),
            ExpressionVertex::FunctionCall(f) => {
                for a in &f.arguments {
                    symbols_in_reference(a, out);
                }
            }
            _ => {}
        }
    }
}

/// The value of a Fortran numeric literal if it is an integer small enough
/// that arithmetic on it is exact (`2`, `-1`, `3.0d0`, `4._8`).
pub fn exact_integer_literal(c: &Constant) -> Option<i64> {
    match c.type_ {
        ConstantType::Integer | ConstantType::Real | ConstantType::Double => {}
        _ => return None,
    }
    let text = c.value.trim();
    let text = match text.find('_') {
        Some(k) => &text[..k],
        None => text,
    };
    let normalized: String = text
        .chars()
        .map(|ch| if ch == 'd' || ch == 'D' { 'e' } else { ch })
        .collect();
    let value: f64 = normalized.parse().ok()?;
    if value.is_finite() && value.fract() == 0.0 && value.abs() < 2f64.powi(31) {
        Some(value as i64)
    } else {
        None
    }
}

/// Whether a folded integer can be printed as a default-kind Fortran
/// integer literal (32 bits).
pub fn fits_default_integer(v: i64) -> bool {
    (-(i32::MAX as i64)..=i32::MAX as i64).contains(&v)
}

/// Builds an expression vertex by vertex; ids are `1, 2, ...`.
#[derive(Default)]
pub struct ExprBuilder {
    pub expr: Expression,
}

impl ExprBuilder {
    pub fn new() -> Self {
        Self::default()
    }

    fn next_vertex_id(&self) -> String {
        (self.expr.vertices.len() + 1).to_string()
    }

    fn push(&mut self, v: ExpressionVertex) -> usize {
        self.expr.vertices.push(v);
        self.expr.vertices.len() - 1
    }

    pub fn constant_int(&mut self, value: i64) -> usize {
        let id = self.next_vertex_id();
        self.push(ExpressionVertex::Constant(Constant {
            vertex_id: id.into(),
            annotation: Default::default(),
            type_: ConstantType::Integer,
            fe_type: Default::default(),
            value: value.to_string().into(),
        }))
    }

    pub fn variable(&mut self, r: &VariableReference) -> usize {
        let mut r = r.clone();
        r.vertex_id = self.next_vertex_id().into();
        self.push(ExpressionVertex::VariableReference(r))
    }

    /// A copy of a leaf or operation vertex (arguments are added by the caller).
    pub fn copy_vertex(&mut self, v: &ExpressionVertex) -> usize {
        let id = self.next_vertex_id();
        let mut v = v.clone();
        match &mut v {
            ExpressionVertex::VariableReference(x) => x.vertex_id = id.into(),
            ExpressionVertex::Constant(x) => x.vertex_id = id.into(),
            ExpressionVertex::Intrinsic(x) => x.vertex_id = id.into(),
            ExpressionVertex::FunctionCall(x) => x.vertex_id = id.into(),
            ExpressionVertex::BooleanOperation(x) => x.vertex_id = id.into(),
            ExpressionVertex::ArgumentReference(x) => x.vertex_id = id.into(),
        }
        self.push(v)
    }

    pub fn edge(&mut self, source: usize, target: usize, position: i64) {
        let edge_id = (self.expr.edges.len() + 1).to_string();
        self.expr.edges.push(ExpressionEdge {
            edge_id: edge_id.into(),
            source: self.expr.vertices[source].vertex_id().to_string().into(),
            target: self.expr.vertices[target].vertex_id().to_string().into(),
            position,
            annotation: Default::default(),
        });
    }

    fn int_value(&self, v: usize) -> Option<i64> {
        match &self.expr.vertices[v] {
            ExpressionVertex::Constant(c) if c.type_ == ConstantType::Integer => {
                exact_integer_literal(c)
            }
            _ => None,
        }
    }

    /// An operation on already built arguments. Integer constant arithmetic
    /// (`+ - *` and negation) is folded, and multiplication by an integer
    /// one is dropped, so `b*a**(b-1)` with `b = 3` becomes `3*a**2`.
    pub fn intrinsic(&mut self, name: &str, args: &[usize]) -> usize {
        let ints: Vec<Option<i64>> = args.iter().map(|&a| self.int_value(a)).collect();
        let folded = match (name, ints.as_slice()) {
            ("add_scal_scal", [Some(a), Some(b)]) => a.checked_add(*b),
            ("sub_scal_scal", [Some(a), Some(b)]) => a.checked_sub(*b),
            ("mul_scal_scal", [Some(a), Some(b)]) => a.checked_mul(*b),
            ("minus_scal", [Some(a)]) => a.checked_neg(),
            _ => None,
        }
        .filter(|&v| fits_default_integer(v));
        if let Some(value) = folded {
            return self.constant_int(value);
        }
        if name == "mul_scal_scal" {
            if ints[0] == Some(1) {
                return args[1];
            }
            if ints[1] == Some(1) {
                return args[0];
            }
        }
        // `a**1` is `a` (the partial of `a**2` is then `2*a`).
        if name == "pow_scal_scal" && ints[1] == Some(1) {
            return args[0];
        }
        let id = self.next_vertex_id();
        let v = self.push(ExpressionVertex::Intrinsic(Intrinsic {
            vertex_id: id.into(),
            annotation: Default::default(),
            name: name.to_string().into(),
            type_: "inlinable".into(),
            r_type: SymbolType::Real,
            r_shape: SymbolShape::Scalar,
        }));
        for (k, &a) in args.iter().enumerate() {
            self.edge(a, v, k as i64 + 1);
        }
        v
    }

    /// Copies the subexpression at `v` of `view` (a tree copy: shared
    /// vertices are duplicated, which keeps every copy self-contained).
    pub fn copy_subexpression(&mut self, view: &ExprView, v: usize) -> usize {
        let args: Vec<usize> = view.args[v]
            .iter()
            .map(|&a| self.copy_subexpression(view, a))
            .collect();
        match view.vertex(v) {
            ExpressionVertex::Intrinsic(i) if i.type_ == "inlinable" || i.type_.is_empty() => {
                let name = i.name.clone();
                let w = self.intrinsic(&name, &args);
                // Keep the original result type and annotation of a copied operation.
                if let ExpressionVertex::Intrinsic(copy) = &mut self.expr.vertices[w] {
                    if copy.name == i.name {
                        copy.r_type = i.r_type;
                        copy.r_shape = i.r_shape;
                        copy.annotation = i.annotation.clone();
                    }
                }
                w
            }
            other => {
                let w = self.copy_vertex(other);
                for (k, &a) in args.iter().enumerate() {
                    self.edge(a, w, k as i64 + 1);
                }
                w
            }
        }
    }

    /// Finishes the expression. The root is the vertex built last by the
    /// construction discipline of this builder; vertices left unreferenced by
    /// folding are removed.
    pub fn finish(mut self, root: usize) -> Expression {
        let keep = {
            let view = match ExprView::new(&self.expr) {
                Ok(v) => v,
                Err(_) => return self.expr,
            };
            let mut keep = vec![false; self.expr.vertices.len()];
            for v in view.postorder(root) {
                keep[v] = true;
            }
            keep
        };
        if keep.iter().all(|&k| k) {
            return self.expr;
        }
        let kept_ids: std::collections::HashSet<String> = self
            .expr
            .vertices
            .iter()
            .zip(&keep)
            .filter(|(_, &k)| k)
            .map(|(v, _)| v.vertex_id().to_string())
            .collect();
        let mut k = keep.iter();
        self.expr.vertices.retain(|_| *k.next().unwrap_or(&true));
        self.expr.edges.retain(|e| {
            kept_ids.contains(e.source.as_str()) && kept_ids.contains(e.target.as_str())
        });
        for (i, e) in self.expr.edges.iter_mut().enumerate() {
            e.edge_id = (i + 1).to_string().into();
        }
        self.expr
    }
}

/// An expression made of one variable reference.
pub fn variable_expression(r: &VariableReference) -> Expression {
    let mut b = ExprBuilder::new();
    let v = b.variable(r);
    b.finish(v)
}

/// An expression made of one integer constant.
pub fn integer_expression(value: i64) -> Expression {
    let mut b = ExprBuilder::new();
    let v = b.constant_int(value);
    b.finish(v)
}

/// Arguments of bound inquiries are whole arrays by design, not values.
pub(crate) fn inquiry_arguments(e: &Expression) -> HashSet<String> {
    let inquiries: HashSet<&str> = e
        .vertices
        .iter()
        .filter_map(|v| match v {
            ExpressionVertex::Intrinsic(i)
                if matches!(i.name.as_str(), "size" | "lbound" | "ubound" | "shape") =>
            {
                Some(i.vertex_id.as_str())
            }
            _ => None,
        })
        .collect();
    e.edges
        .iter()
        .filter(|ed| inquiries.contains(ed.target.as_str()))
        .map(|ed| ed.source.to_string())
        .collect()
}
