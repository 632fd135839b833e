//! Basic-block preaccumulation: the graph of a flattened sequence of
//! assignments is eliminated by `crate::elimination` (vertex, edge or face
//! elimination chosen by a heuristic chain, or the best of several), and the
//! recorded operations become assignments to temporaries.
//!
//! Placement: the partials of statement k read the values right before
//! statement k, so their temporaries are assigned right before it; the
//! elimination products only read temporaries and variables the sequence
//! does not overwrite, so they follow the last statement, and then the
//! propagator.

use std::collections::HashMap;
use xaif_schema::model::{
    Assignment, Expression, ExpressionVertex, PropagatorEntry, VariableReference,
};

use crate::elimination::{
    self, best_of, default_candidates, recommended_candidates, Chain, CostModel, Label, LabelId,
    Method,
};
use crate::error::StatementError;
use crate::expr::{base_symbol, variable_key};
use crate::flatten::FlatSequence;
use crate::linearize::{LinVertexKind, PartialValue};
use crate::preaccumulate::{double_constant, Factor, FactorCode, JacobianRow, OpCounts};
use crate::propagate::row_entries;
use crate::replay::{replay, CostCounter, Counted, FactorArith, InputValue};
use crate::symbols::SymbolIndex;
use crate::temporaries::{TempKind, TempPool};

/// How to eliminate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EliminationChoice {
    One(Method, Chain),
    /// The cheapest (multiplications, then additions) of the default
    /// candidates over these methods.
    Best(Vec<Method>),
}

/// The code of one flattened sequence.
#[derive(Debug, Clone, Default)]
pub struct SequenceCode {
    /// Temporary assignments to place right before each statement.
    pub before_statement: Vec<Vec<Assignment>>,
    /// Accumulation assignments after the last statement.
    pub accumulation: Vec<Assignment>,
    pub propagator: Vec<PropagatorEntry>,
    /// The accumulated Jacobian, one row per dependent (the adjoint tapes
    /// its entries and propagates with them transposed).
    pub rows: Vec<JacobianRow>,
    pub counts: OpCounts,
    /// With `report_optimum` (`--stats`): the sequence chosen and what the
    /// plain orders would have cost.
    pub report: Option<EliminationReport>,
}

/// How a flattened run's Jacobian was accumulated, against the textbook
/// alternatives (`--stats`, and next to each graph with `--dot`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EliminationReport {
    /// How the sequence was chosen, e.g. `vertex markowitz,reverse`.
    pub strategy: String,
    /// The steps, in terms of the graph's vertices (`3 5 4`, `(1,3)f`).
    pub sequence: String,
    pub multiplications: usize,
    /// Vertex elimination in forward and in reverse topological order.
    pub forward_multiplications: usize,
    pub reverse_multiplications: usize,
    /// The proven optimum of vertex elimination, for graphs small enough.
    pub optimum_multiplications: Option<usize>,
}

impl std::fmt::Display for EliminationReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(f, "strategy {}", self.strategy)?;
        writeln!(f, "sequence {}", self.sequence)?;
        writeln!(f, "multiplications {}", self.multiplications)?;
        writeln!(f, "forward {}", self.forward_multiplications)?;
        writeln!(f, "reverse {}", self.reverse_multiplications)?;
        match self.optimum_multiplications {
            Some(o) => writeln!(f, "optimum {o}"),
            None => writeln!(f, "optimum -"),
        }
    }
}

pub fn accumulate_sequence(
    seq: &FlatSequence,
    choice: &EliminationChoice,
    report_optimum: bool,
    pool: &mut TempPool,
    symbols: &SymbolIndex,
) -> Result<SequenceCode, StatementError> {
    let g = &seq.graph;
    // Vertices that reach a dependent; the rest (values overwritten unused)
    // need no partials.
    let mut live = vec![false; g.vertices.len()];
    for (v, _) in &g.dependents {
        live[*v] = true;
    }
    for e in g.edges.iter().rev() {
        // Edges of later statements come later, so one backward pass suffices.
        if live[e.target] {
            live[e.source] = true;
        }
    }
    let Some(anchor) = seq.statements.first().map(|s| &s.assignment) else {
        return Ok(SequenceCode::default());
    };
    let mut code = FactorCode {
        pool,
        symbols,
        anchor,
        overwritten: Default::default(),
        preamble: Vec::new(),
        counts: OpCounts::default(),
    };

    // Partials, statement by statement. A partial of statement k read
    // after the run may use a variable directly only if statements k..end
    // do not assign it.
    let mut assigned_from: Vec<std::collections::HashSet<(String, u64)>> =
        vec![Default::default(); seq.statements.len() + 1];
    for (k, st) in seq.statements.iter().enumerate().rev() {
        let mut set = assigned_from[k + 1].clone();
        if let Some((s, scope)) = base_symbol(&st.assignment.lhs.reference) {
            set.insert((s.to_string(), scope));
        }
        assigned_from[k] = set;
    }
    let mut factors: Vec<Option<Factor>> = vec![None; g.edges.len()];
    let mut before_statement = Vec::with_capacity(seq.statements.len());
    for (k, st) in seq.statements.iter().enumerate() {
        code.anchor = &st.assignment;
        code.overwritten = std::mem::take(&mut assigned_from[k]);
        for k in st.edges.clone() {
            if live[g.edges[k].target] {
                factors[k] = Some(code.partial(&g.edges[k].partial));
            }
        }
        before_statement.push(std::mem::take(&mut code.preamble));
    }
    if let Some(last) = seq.statements.last() {
        code.anchor = &last.assignment;
    }

    // The elimination graph over the live vertices.
    let mut eg = elimination::LinearizedGraph::new();
    let mut vid = vec![None; g.vertices.len()];
    for (v, kind) in g.vertices.iter().enumerate() {
        if !live[v] {
            continue;
        }
        vid[v] = Some(match kind {
            LinVertexKind::Independent(_) => eg.add_independent(),
            LinVertexKind::Intermediate(_) => eg.add_vertex(),
        });
    }
    let mut symbol_factor: Vec<Factor> = Vec::new();
    // Whether each symbol label may be deferred as a scale atom.
    let mut symbol_is_atom: Vec<bool> = Vec::new();
    let mut edge_count = 0;
    for (k, e) in g.edges.iter().enumerate() {
        let (Some(s), Some(t), Some(f)) = (vid[e.source], vid[e.target], &factors[k]) else {
            continue;
        };
        let label = match (&e.partial, f) {
            (PartialValue::One, _) | (_, Factor::Int(1)) => Label::One,
            (PartialValue::MinusOne, _) | (_, Factor::Int(-1)) => Label::MinusOne,
            _ => {
                symbol_factor.push(f.clone());
                symbol_is_atom.push(is_scale_atom(&e.partial, f));
                Label::Symbol(symbol_factor.len() as u32 - 1)
            }
        };
        eg.add_edge(s, t, label).map_err(internal)?;
        edge_count += 1;
    }
    for (v, _) in &g.dependents {
        if let Some(d) = vid[*v] {
            eg.mark_dependent(d).map_err(internal)?;
        }
    }
    let result = match choice {
        EliminationChoice::One(method, chain) => elimination::eliminate(&eg, *method, chain),
        // All three methods: the size-aware set (the same as all default
        // candidates up to `LARGE_GRAPH_EDGES` edges, without the
        // sequences that take seconds on large graphs).
        EliminationChoice::Best(methods) => {
            let candidates = if [Method::Vertex, Method::Edge, Method::Face]
                .iter()
                .all(|m| methods.contains(m))
            {
                recommended_candidates(&eg)
            } else {
                default_candidates(methods)
            };
            best_of(&eg, &candidates, CostModel::Multiplications)
        }
    }
    .map_err(|e| internal(format!("elimination failed: {e}")))?;
    // For `--stats`: the proven vertex-elimination optimum of small graphs,
    // to judge the chosen sequence against. Larger graphs count the chosen
    // cost on both sides, so totals compare like with like.
    let chosen = result.counts.multiplications;
    let optimum = if report_optimum {
        let limit = elimination::SearchLimit {
            max_intermediates: 18,
            max_nodes: 200_000,
            heuristic_start: true,
        };
        elimination::optimal_vertex_elimination(&eg, CostModel::Multiplications, limit)
            .ok()
            .flatten()
            .filter(|o| o.proven)
            .map(|o| o.cost.min(chosen))
    } else {
        None
    };

    // Replay the recorded operations as factor arithmetic, with or without
    // deferring scale atoms (crate::replay), whichever emits fewer
    // operations.
    let inputs: Vec<InputValue<Factor>> = symbol_factor
        .iter()
        .zip(&symbol_is_atom)
        .map(|(f, &atom)| InputValue {
            value: match f {
                Factor::NegAtom(e) => Factor::Atom(e.clone()),
                f => f.clone(),
            },
            scale: atom.then(|| {
                (
                    factor_key(f).trim_start_matches('-').to_string(),
                    matches!(f, Factor::NegAtom(_)),
                )
            }),
        })
        .collect();
    let wanted: Vec<LabelId> = result.jacobian.entries.iter().map(|e| e.label).collect();
    let cost = |defer: bool| -> Result<usize, StatementError> {
        let mut counter = CostCounter::default();
        let counted: Vec<InputValue<Counted>> = inputs
            .iter()
            .map(|i| InputValue {
                value: match &i.value {
                    Factor::Int(k) => Counted::Int(*k),
                    f => CostCounter::opaque(factor_key(f)),
                },
                scale: i.scale.clone(),
            })
            .collect();
        replay(
            &mut counter,
            &result.labels,
            result.ops(),
            &counted,
            &wanted,
            defer,
        )?;
        Ok(counter.multiplications + counter.additions)
    };
    let defer = cost(true)? < cost(false)?;
    let values = replay(
        &mut code,
        &result.labels,
        result.ops(),
        &inputs,
        &wanted,
        defer,
    )?;

    // Jacobian rows, in order of the dependents.
    let mut original = vec![None; eg.vertex_count()];
    for (v, id) in vid.iter().enumerate() {
        if let Some(id) = id {
            original[id.0 as usize] = Some(v);
        }
    }
    let mut entries_of: HashMap<usize, Vec<(usize, Factor)>> = HashMap::new();
    for (entry, f) in result.jacobian.entries.iter().zip(values) {
        if f == Factor::Int(0) {
            continue;
        }
        let (Some(d), Some(i)) = (
            original.get(entry.dependent.0 as usize).copied().flatten(),
            original
                .get(entry.independent.0 as usize)
                .copied()
                .flatten(),
        ) else {
            return Err(internal("elimination returned an unknown vertex"));
        };
        entries_of.entry(d).or_default().push((i, f));
    }
    let independent_ref = |i: usize| -> Result<VariableReference, StatementError> {
        match &g.vertices[i] {
            LinVertexKind::Independent(r) => Ok(r.clone()),
            LinVertexKind::Intermediate(_) => Err(internal("Jacobian entry from an intermediate")),
        }
    };
    let mut rows = Vec::new();
    for (v, dep) in &g.dependents {
        let mut entries = Vec::new();
        for (i, f) in entries_of.get(v).cloned().unwrap_or_default() {
            entries.push((independent_ref(i)?, f));
        }
        rows.push(JacobianRow {
            dependent: dep.clone(),
            entries,
        });
    }
    let report = if report_optimum {
        let plain = |order: &str| -> Result<usize, StatementError> {
            let chain = order.parse().map_err(internal)?;
            elimination::eliminate(&eg, Method::Vertex, &chain)
                .map(|e| e.counts.multiplications)
                .map_err(|e| internal(format!("elimination failed: {e}")))
        };
        Some(EliminationReport {
            strategy: result.strategy.clone(),
            sequence: sequence_in_graph_ids(&result, &original),
            multiplications: chosen,
            forward_multiplications: plain("forward")?,
            reverse_multiplications: plain("reverse")?,
            optimum_multiplications: optimum,
        })
    } else {
        None
    };
    let counts = OpCounts {
        forward_multiplications: report
            .as_ref()
            .map_or(chosen, |r| r.forward_multiplications),
        reverse_multiplications: report
            .as_ref()
            .map_or(chosen, |r| r.reverse_multiplications),
        vertices: live.iter().filter(|&&l| l).count(),
        edges: edge_count,
        jacobian_nonzeros: rows.iter().map(|r| r.entries.len()).sum(),
        elimination_multiplications: chosen,
        optimum_multiplications: optimum.unwrap_or(chosen),
        optimum_graphs: usize::from(optimum.is_some()),
        ..code.counts
    };
    let accumulation = std::mem::take(&mut code.preamble);
    let propagator = sequence_propagator(rows.clone(), code.pool, code.symbols);
    Ok(SequenceCode {
        before_statement,
        accumulation,
        propagator,
        rows,
        counts,
        report,
    })
}

/// The propagator of several rows. A row must not read a derivative that
/// an earlier row of the same propagator has already overwritten, so when
/// there are several rows, every independent whose symbol some row writes
/// is first copied into an active temporary and read from there.
fn sequence_propagator(
    mut rows: Vec<JacobianRow>,
    pool: &mut TempPool,
    symbols: &SymbolIndex,
) -> Vec<PropagatorEntry> {
    let mut out = Vec::new();
    if rows.len() > 1 {
        let written: std::collections::HashSet<_> = rows
            .iter()
            .filter_map(|r| base_symbol(&r.dependent).map(|(s, c)| (s.to_string(), c)))
            .collect();
        let mut saved: HashMap<String, VariableReference> = HashMap::new();
        for row in &mut rows {
            for (x, _) in &mut row.entries {
                let Some((s, c)) = base_symbol(x) else {
                    continue;
                };
                if !written.contains(&(s.to_string(), c)) {
                    continue;
                }
                let key = crate::expr::variable_key(x);
                let copy = match saved.get(&key) {
                    Some(t) => t.clone(),
                    None => {
                        let t = pool.take(TempKind::Derivative, symbols);
                        out.push(PropagatorEntry::SetDeriv {
                            tgt: t.clone(),
                            src: x.clone(),
                        });
                        saved.insert(key, t.clone());
                        t
                    }
                };
                *x = copy;
            }
        }
    }
    for row in &rows {
        out.extend(row_entries(row));
    }
    out
}

/// A partial used as it is (a constant, or a variable the rest of the run
/// does not assign), not through a temporary: its value is the same on
/// every edge that carries it, so products with it may be deferred.
fn is_scale_atom(partial: &PartialValue, f: &Factor) -> bool {
    let PartialValue::Expr(e) = partial else {
        return false;
    };
    match f {
        Factor::Atom(a) | Factor::NegAtom(a) => a == e,
        Factor::Int(_) => false,
    }
}

/// Identity of a factor: equal keys are equal values.
fn factor_key(f: &Factor) -> String {
    let atom = |e: &Expression| match e.vertices.as_slice() {
        [ExpressionVertex::VariableReference(r)] => format!("v:{}", variable_key(r)),
        [ExpressionVertex::Constant(c)] => format!("c:{:?}:{}", c.type_, c.value),
        vs => format!("e:{vs:?}"),
    };
    match f {
        Factor::Int(k) => format!("i{k}"),
        Factor::Atom(e) => atom(e),
        Factor::NegAtom(e) => format!("-{}", atom(e)),
    }
}

/// Code emission: the replay's products and sums become temporaries.
impl FactorArith for FactorCode<'_> {
    type V = Factor;

    fn mul(&mut self, a: &Factor, b: &Factor) -> Factor {
        FactorCode::mul(self, a, b)
    }

    fn add(&mut self, a: &Factor, b: &Factor) -> Factor {
        FactorCode::add(self, a, b)
    }

    fn int(&self, k: i64) -> Factor {
        Factor::Int(k)
    }

    fn is_zero(&self, v: &Factor) -> bool {
        *v == Factor::Int(0)
    }

    fn key(&self, v: &Factor) -> String {
        factor_key(v)
    }

    fn split_sign(&self, v: &Factor) -> (bool, Factor) {
        match v {
            Factor::NegAtom(e) => (true, Factor::Atom(e.clone())),
            Factor::Int(k) if *k < 0 && *k != i64::MIN => (true, Factor::Int(-k)),
            v => (false, v.clone()),
        }
    }

    fn negate(&self, v: &Factor) -> Factor {
        match v {
            Factor::Atom(e) => Factor::NegAtom(e.clone()),
            Factor::NegAtom(e) => Factor::Atom(e.clone()),
            Factor::Int(k) if *k != i64::MIN => Factor::Int(-k),
            // Not reached: integers are never deferred scale atoms.
            Factor::Int(k) => Factor::NegAtom(crate::expr::integer_expression(*k)),
        }
    }

    fn fold_literals(&self, a: &Factor, b: &Factor) -> Option<Factor> {
        let x = double_literal(a)?;
        let y = double_literal(b)?;
        let p = x * y;
        // One IEEE product, as at run time; only finite normal results.
        (p.is_normal() || p == 0.0).then(|| Factor::Atom(double_constant(p)))
    }
}

/// The value of a `real(8)` literal such as `2.5d0` or `1.0d-3` (the
/// kinds `Factor` atoms of that form carry); `None` for anything else.
fn double_literal(f: &Factor) -> Option<f64> {
    let Factor::Atom(e) = f else {
        return None;
    };
    let [ExpressionVertex::Constant(c)] = e.vertices.as_slice() else {
        return None;
    };
    if c.type_ != xaif_schema::model::ConstantType::Double {
        return None;
    }
    let text = c.value.trim().to_ascii_lowercase();
    // Only the d-exponent form: its kind is real(8) whatever the defaults.
    if !text.contains('d') || text.contains('_') {
        return None;
    }
    text.replace('d', "e").parse::<f64>().ok()
}

/// A failure of the booster's own elimination on a graph it built: a bug,
/// placed at the run's first statement by the caller.
fn internal(e: impl std::fmt::Display) -> StatementError {
    StatementError::internal(None, format!("internal error: {e}"))
}

/// The elimination steps named by the vertex numbers of the linearized
/// graph (as `--dot` labels them), not of the elimination's own
/// renumbered graph; auxiliary sinks print as `aux`.
fn sequence_in_graph_ids(result: &elimination::Elimination, original: &[Option<usize>]) -> String {
    use elimination::Step;
    let id = |v: elimination::VertexId| -> String {
        original
            .get(v.0 as usize)
            .copied()
            .flatten()
            .map_or_else(|| "aux".to_string(), |o| o.to_string())
    };
    result
        .steps
        .iter()
        .map(|s| match *s {
            Step::Vertex(v) => id(v),
            Step::FrontEdge(i, j) => format!("({},{})f", id(i), id(j)),
            Step::BackEdge(i, j) => format!("({},{})b", id(i), id(j)),
            Step::Face(a, b, c) => format!("[({},{}),({},{})]", id(a), id(b), id(b), id(c)),
        })
        .collect::<Vec<_>>()
        .join(" ")
}
