//! Preaccumulation of local Jacobians: the chain rule over a linearised
//! graph, emitted as assignments to temporaries.
//!
//! Statement level: each statement's graph is accumulated in reverse (one
//! dependent, so a reverse sweep touches each edge once and shared
//! subexpressions are differentiated once). Constant partials are folded:
//! products and sums of small integers are computed here, factors one and
//! minus one never produce a multiplication.
//!
//! Every partial and accumulated entry is assigned to a temporary *before*
//! the original assignment, so all of them read the values the statement
//! reads even when it overwrites one of its arguments (`x = x*sin(x)`).

use std::collections::HashSet;
use xaif_schema::model::{
    Assignment, Constant, ConstantType, Expression, ExpressionVertex, VariableReference,
};

use crate::expr::{fits_default_integer, integer_expression, symbols_in_expression, ExprBuilder};
use crate::linearize::{LinVertexKind, LinearizedGraph, PartialValue};
use crate::symbols::SymbolIndex;
use crate::temporaries::{TempKind, TempPool};

/// A Jacobian factor: a small integer, or a single-vertex expression
/// (constant or variable) possibly negated.
#[derive(Debug, Clone, PartialEq)]
pub enum Factor {
    Int(i64),
    Atom(Expression),
    NegAtom(Expression),
}

impl Factor {
    /// The factor as an expression (for the `A` of an `AX` term).
    pub fn to_expression(&self) -> Expression {
        match self {
            Factor::Int(c) => integer_expression(*c),
            Factor::Atom(e) => e.clone(),
            Factor::NegAtom(e) => {
                let mut b = ExprBuilder::new();
                let a = copy_atom(&mut b, e);
                let n = b.intrinsic("minus_scal", &[a]);
                b.finish(n)
            }
        }
    }

    fn negated(self) -> Factor {
        match self {
            Factor::Int(c) => match c.checked_neg() {
                Some(n) => Factor::Int(n),
                None => Factor::NegAtom(integer_expression(c)),
            },
            Factor::Atom(e) => Factor::NegAtom(e),
            Factor::NegAtom(e) => Factor::Atom(e),
        }
    }

    /// The atom and its sign (integers become constant atoms).
    fn signed_atom(&self) -> (bool, Expression) {
        match self {
            Factor::Int(c) if *c < 0 => match c.checked_neg() {
                Some(n) => (true, integer_expression(n)),
                None => (false, integer_expression(*c)),
            },
            Factor::Int(c) => (false, integer_expression(*c)),
            Factor::Atom(e) => (false, e.clone()),
            Factor::NegAtom(e) => (true, e.clone()),
        }
    }
}

/// A real(8) literal for `v`, e.g. `1.0d10` or `2.5d0`.
pub(crate) fn double_constant(v: f64) -> Expression {
    let text = format!("{v:e}").replace('e', "d");
    let mantissa_has_point = text.split('d').next().is_some_and(|m| m.contains('.'));
    let value = if mantissa_has_point {
        text
    } else {
        text.replacen('d', ".0d", 1)
    };
    Expression {
        vertices: vec![ExpressionVertex::Constant(Constant {
            vertex_id: "1".into(),
            annotation: Default::default(),
            type_: ConstantType::Double,
            fe_type: Default::default(),
            value: value.into(),
        })],
        edges: Vec::new(),
    }
}

fn copy_atom(b: &mut ExprBuilder, atom: &Expression) -> usize {
    b.copy_vertex(&atom.vertices[0])
}

/// Operation counts of an accumulation (for `--stats`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct OpCounts {
    pub vertices: usize,
    pub edges: usize,
    pub multiplications: usize,
    pub additions: usize,
    /// Nonzeros of the accumulated local Jacobian (scarcity: against `edges`).
    pub jacobian_nonzeros: usize,
    /// Multiplications of the elimination sequence alone (basic-block mode).
    pub elimination_multiplications: usize,
    /// Proven optimum of vertex elimination for the same graph, where the
    /// graph was small enough to search (`--stats` in basic-block mode).
    pub optimum_multiplications: usize,
    /// Graphs whose optimum was proven (the rest count their chosen cost).
    pub optimum_graphs: usize,
    /// Vertex elimination in forward / reverse order on the same graphs
    /// (`--stats` in basic-block mode; otherwise the chosen cost).
    pub forward_multiplications: usize,
    pub reverse_multiplications: usize,
}

impl std::ops::AddAssign for OpCounts {
    fn add_assign(&mut self, o: OpCounts) {
        self.vertices += o.vertices;
        self.edges += o.edges;
        self.multiplications += o.multiplications;
        self.additions += o.additions;
        self.jacobian_nonzeros += o.jacobian_nonzeros;
        self.elimination_multiplications += o.elimination_multiplications;
        self.optimum_multiplications += o.optimum_multiplications;
        self.optimum_graphs += o.optimum_graphs;
        self.forward_multiplications += o.forward_multiplications;
        self.reverse_multiplications += o.reverse_multiplications;
    }
}

/// One row of a local Jacobian: `d(dependent) = Σ factor · d(independent)`.
#[derive(Debug, Clone, PartialEq)]
pub struct JacobianRow {
    pub dependent: VariableReference,
    pub entries: Vec<(VariableReference, Factor)>,
}

/// The accumulated local Jacobian of a graph and the code computing it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Accumulation {
    /// Temporary assignments, to be placed before the statements.
    pub preamble: Vec<Assignment>,
    pub rows: Vec<JacobianRow>,
    pub counts: OpCounts,
}

/// Emits the factor arithmetic into temporaries.
pub struct FactorCode<'a> {
    pub pool: &'a mut TempPool,
    pub symbols: &'a SymbolIndex<'a>,
    /// The statement the temporaries are computed for (ids, line numbers).
    pub anchor: &'a Assignment,
    /// Symbols the statements overwrite: a partial mentioning one of them
    /// is saved in a temporary instead of being read after the statement.
    pub overwritten: HashSet<(String, u64)>,
    pub preamble: Vec<Assignment>,
    pub counts: OpCounts,
}

impl FactorCode<'_> {
    fn store(&mut self, kind: TempKind, value: Expression) -> Expression {
        let temp = self.pool.take(kind, self.symbols);
        let asg = self.pool.assignment(&temp, value, self.anchor);
        self.preamble.push(asg);
        crate::expr::variable_expression(&temp)
    }

    /// A factor for a local partial: constants and variables that the
    /// statement does not overwrite are used as they are, anything else is
    /// computed into an `oad_lin` temporary.
    pub fn partial(&mut self, p: &PartialValue) -> Factor {
        match p {
            PartialValue::One => Factor::Int(1),
            PartialValue::MinusOne => Factor::Int(-1),
            PartialValue::Expr(e) => {
                if let [v] = e.vertices.as_slice() {
                    match v {
                        ExpressionVertex::Constant(c) => {
                            if let Some(k) = crate::expr::exact_integer_literal(c) {
                                if c.type_ == ConstantType::Integer {
                                    return Factor::Int(k);
                                }
                            }
                            return Factor::Atom(e.clone());
                        }
                        ExpressionVertex::VariableReference(_) => {
                            let mut mentioned = Vec::new();
                            symbols_in_expression(e, &mut mentioned);
                            if !mentioned.iter().any(|s| self.overwritten.contains(s)) {
                                return Factor::Atom(e.clone());
                            }
                        }
                        _ => {}
                    }
                }
                Factor::Atom(self.store(TempKind::Partial, e.clone()))
            }
        }
    }

    pub fn mul(&mut self, a: &Factor, b: &Factor) -> Factor {
        match (a, b) {
            (Factor::Int(0), _) | (_, Factor::Int(0)) => return Factor::Int(0),
            (Factor::Int(x), Factor::Int(y)) => {
                return match x.checked_mul(*y).filter(|&p| fits_default_integer(p)) {
                    Some(p) => Factor::Int(p),
                    // Beyond a default integer: a double literal (one IEEE
                    // rounding, as the product at run time).
                    None => Factor::Atom(double_constant(*x as f64 * *y as f64)),
                };
            }
            (Factor::Int(1), f) | (f, Factor::Int(1)) => return f.clone(),
            (Factor::Int(-1), f) | (f, Factor::Int(-1)) => return f.clone().negated(),
            _ => {}
        }
        let (sa, ea) = a.signed_atom();
        let (sb, eb) = b.signed_atom();
        let mut bld = ExprBuilder::new();
        let x = copy_atom(&mut bld, &ea);
        let y = copy_atom(&mut bld, &eb);
        let m = bld.intrinsic("mul_scal_scal", &[x, y]);
        self.counts.multiplications += 1;
        let t = self.store(TempKind::Accumulated, bld.finish(m));
        if sa != sb {
            Factor::NegAtom(t)
        } else {
            Factor::Atom(t)
        }
    }

    pub fn add(&mut self, a: &Factor, b: &Factor) -> Factor {
        match (a, b) {
            (Factor::Int(0), f) | (f, Factor::Int(0)) => return f.clone(),
            (Factor::Int(x), Factor::Int(y)) => {
                return match x.checked_add(*y).filter(|&s| fits_default_integer(s)) {
                    Some(s) => Factor::Int(s),
                    None => Factor::Atom(double_constant(*x as f64 + *y as f64)),
                };
            }
            _ => {}
        }
        let (sa, ea) = a.signed_atom();
        let (sb, eb) = b.signed_atom();
        let mut bld = ExprBuilder::new();
        let x = copy_atom(&mut bld, &ea);
        let y = copy_atom(&mut bld, &eb);
        // a + b, a - b, -a + b = b - a, -a - b = -(a + b).
        let (value, negate) = match (sa, sb) {
            (false, false) => (bld.intrinsic("add_scal_scal", &[x, y]), false),
            (false, true) => (bld.intrinsic("sub_scal_scal", &[x, y]), false),
            (true, false) => (bld.intrinsic("sub_scal_scal", &[y, x]), false),
            (true, true) => (bld.intrinsic("add_scal_scal", &[x, y]), true),
        };
        self.counts.additions += 1;
        let t = self.store(TempKind::Accumulated, bld.finish(value));
        if negate {
            Factor::NegAtom(t)
        } else {
            Factor::Atom(t)
        }
    }
}

/// Accumulates the Jacobian of a graph by a reverse sweep from each
/// dependent (vertex elimination in reverse topological order).
pub fn accumulate_reverse(graph: &LinearizedGraph, code: &mut FactorCode) -> Vec<JacobianRow> {
    let n = graph.vertices.len();
    let mut in_edges: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (k, e) in graph.edges.iter().enumerate() {
        in_edges[e.target].push(k);
    }
    // Each partial becomes a factor once, even if several dependents use it.
    let factors: Vec<Factor> = graph
        .edges
        .iter()
        .map(|e| code.partial(&e.partial))
        .collect();
    let mut rows = Vec::new();
    for (dep_vertex, dep_ref) in &graph.dependents {
        let mut adjoint: Vec<Option<Factor>> = vec![None; n];
        adjoint[*dep_vertex] = Some(Factor::Int(1));
        for v in (0..=*dep_vertex).rev() {
            let Some(bar) = adjoint[v].clone() else {
                continue;
            };
            for &k in &in_edges[v] {
                let e = &graph.edges[k];
                let contribution = code.mul(&bar, &factors[k]);
                let sum = match adjoint[e.source].take() {
                    Some(old) => code.add(&old, &contribution),
                    None => contribution,
                };
                adjoint[e.source] = Some(sum);
            }
        }
        let mut entries = Vec::new();
        for (v, kind) in graph.vertices.iter().enumerate() {
            if let (LinVertexKind::Independent(x), Some(f)) = (kind, &adjoint[v]) {
                if *f != Factor::Int(0) {
                    entries.push((x.clone(), f.clone()));
                }
            }
        }
        rows.push(JacobianRow {
            dependent: dep_ref.clone(),
            entries,
        });
    }
    rows
}

/// Statement-level preaccumulation of one assignment's graph.
pub fn preaccumulate_statement(
    graph: &LinearizedGraph,
    statement: &Assignment,
    pool: &mut TempPool,
    symbols: &SymbolIndex,
) -> Accumulation {
    let mut overwritten = HashSet::new();
    if let Some((id, scope)) = crate::expr::base_symbol(&statement.lhs.reference) {
        overwritten.insert((id.to_string(), scope));
    }
    let mut code = FactorCode {
        pool,
        symbols,
        anchor: statement,
        overwritten,
        preamble: Vec::new(),
        counts: OpCounts {
            vertices: graph.vertices.len(),
            edges: graph.edges.len(),
            ..OpCounts::default()
        },
    };
    let rows = accumulate_reverse(graph, &mut code);
    let counts = OpCounts {
        jacobian_nonzeros: rows.iter().map(|r| r.entries.len()).sum(),
        ..code.counts
    };
    Accumulation {
        preamble: code.preamble,
        rows,
        counts,
    }
}

/// A constant integer factor as an XAIF constant (used by tests and the
/// propagator).
pub fn integer_constant(value: i64) -> Constant {
    Constant {
        vertex_id: "1".into(),
        annotation: Default::default(),
        type_: ConstantType::Integer,
        fe_type: Default::default(),
        value: value.to_string().into(),
    }
}
