//! Linearisation: for an assignment with an active left-hand side, the local
//! partial derivative of every active operation with respect to each active
//! argument, built from the catalogue by substituting the argument
//! subexpressions for the `ArgumentReference`s.
//!
//! The result is a `LinearizedGraph`: the computational graph of the
//! statement with partials on its edges. Passive subexpressions (no active
//! variable below) are not part of it; integer and logical values never
//! carry a derivative. The graph type is not tied to one statement so that a
//! basic-block flattening can build one graph for several assignments.

use std::collections::HashMap;
use xaif_schema::model::{Assignment, Expression, ExpressionVertex, SymbolType, VariableReference};

use crate::catalogue::{partial_kind, Catalogue, PartialKind};
use crate::error::StatementError;
use crate::expr::{variable_key, ExprBuilder, ExprView};
use crate::symbols::SymbolIndex;

/// A local partial derivative.
#[derive(Debug, Clone, PartialEq)]
pub enum PartialValue {
    One,
    MinusOne,
    /// A self-contained expression over program variables and constants,
    /// to be evaluated before the statement overwrites anything.
    Expr(Expression),
}

/// What a vertex of the linearised graph stands for.
#[derive(Debug, Clone, PartialEq)]
pub enum LinVertexKind {
    /// The value of a variable on entry (a leaf).
    Independent(VariableReference),
    /// The result of an operation (the intrinsic's name, for display).
    Intermediate(String),
}

#[derive(Debug, Clone, PartialEq)]
pub struct LinEdge {
    pub source: usize,
    pub target: usize,
    pub partial: PartialValue,
}

/// A computational graph with local partials on the edges. Vertices are in
/// topological order: every edge goes from a lower to a higher index.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct LinearizedGraph {
    pub vertices: Vec<LinVertexKind>,
    pub edges: Vec<LinEdge>,
    /// Vertices whose values are assigned to variables, with those variables.
    pub dependents: Vec<(usize, VariableReference)>,
}

/// The derivative content of one assignment.
#[derive(Debug, Clone, PartialEq)]
pub enum Linearization {
    /// The left-hand side is passive: nothing to differentiate.
    Passive,
    /// An active variable receives a passive value: its derivative is zero.
    ZeroDerivative(VariableReference),
    /// An active variable receives an active value.
    Graph(LinearizedGraph),
}

/// Linearises assignments against a catalogue and the program's symbols.
pub struct Linearizer<'a> {
    pub catalogue: &'a Catalogue,
    pub symbols: &'a SymbolIndex<'a>,
}

impl Linearizer<'_> {
    pub fn linearize_assignment(&self, a: &Assignment) -> Result<Linearization, StatementError> {
        let lhs = &a.lhs.reference;
        if !self.symbols.is_active_use(lhs)? {
            return Ok(Linearization::Passive);
        }
        if !self.symbols.is_scalar_reference(lhs) {
            return Err(array_error(lhs));
        }
        let view = ExprView::new(&a.rhs)?;
        let root = view.root()?;
        let order = view.postorder(root);
        let mut active = self.activity(&view, &order)?;
        if !active[root] {
            return Ok(Linearization::ZeroDerivative(lhs.clone()));
        }
        let mut graph = LinearizedGraph::default();
        let mut vertex_of: HashMap<usize, usize> = HashMap::new();
        let mut independent_of: HashMap<String, usize> = HashMap::new();
        // Variables become independents only when a derivative flows out
        // of them, so `size(x)` of an active array is no independent.
        let mut independent =
            |v: usize, graph: &mut LinearizedGraph| -> Result<usize, StatementError> {
                let ExpressionVertex::VariableReference(r) = view.vertex(v) else {
                    return Err(StatementError::internal(
                        None,
                        "internal error: independent is not a variable",
                    ));
                };
                if !self.symbols.is_scalar_reference(r) {
                    return Err(array_error(r));
                }
                // Several uses of one variable are one independent.
                let key = variable_key(r);
                Ok(*independent_of.entry(key).or_insert_with(|| {
                    let mut r = r.clone();
                    r.vertex_id = "1".into();
                    graph.vertices.push(LinVertexKind::Independent(r));
                    graph.vertices.len() - 1
                }))
            };
        for &v in &order {
            if !active[v] {
                continue;
            }
            let ExpressionVertex::Intrinsic(i) = view.vertex(v) else {
                continue;
            };
            let mut in_edges = Vec::new();
            for (k, &arg) in view.args[v].iter().enumerate() {
                if !active[arg] {
                    continue;
                }
                let Some(partial) = self.local_partial(&view, v, &i.name, k as u64 + 1)? else {
                    continue;
                };
                let source = match vertex_of.get(&arg) {
                    Some(&g) => g,
                    None => independent(arg, &mut graph)?,
                };
                in_edges.push((source, partial));
            }
            if in_edges.is_empty() {
                // Every partial folded to zero (`(2-2)*x`): the value is a
                // constant of the derivative, not a vertex.
                active[v] = false;
                continue;
            }
            // Sources were created first: vertices stay in topological order.
            graph
                .vertices
                .push(LinVertexKind::Intermediate(i.name.to_string()));
            let g = graph.vertices.len() - 1;
            vertex_of.insert(v, g);
            for (source, partial) in in_edges {
                graph.edges.push(LinEdge {
                    source,
                    target: g,
                    partial,
                });
            }
        }
        if active[root] && !vertex_of.contains_key(&root) {
            // `y = x`: the root is a variable.
            let g = independent(root, &mut graph)?;
            vertex_of.insert(root, g);
        }
        if !active[root] {
            return Ok(Linearization::ZeroDerivative(lhs.clone()));
        }
        let mut dependent = lhs.clone();
        dependent.vertex_id = "1".into();
        graph.dependents.push((vertex_of[&root], dependent));
        Ok(Linearization::Graph(graph))
    }

    /// Which vertices carry a derivative (in `order`, arguments first).
    fn activity(&self, view: &ExprView, order: &[usize]) -> Result<Vec<bool>, StatementError> {
        let mut active = vec![false; view.args.len()];
        for &v in order {
            let any_active_argument = view.args[v].iter().any(|&a| active[a]);
            active[v] = match view.vertex(v) {
                ExpressionVertex::VariableReference(r) => self.symbols.is_active_use(r)?,
                ExpressionVertex::Constant(_) | ExpressionVertex::BooleanOperation(_) => false,
                ExpressionVertex::FunctionCall(f) => {
                    for arg in &f.arguments {
                        if self.symbols.is_active_use(arg)? {
                            return Err(StatementError::unsupported(
                                None,
                                format!(
                                    "function call '{}' with an active argument in an expression \
                                 is not supported (canonical form C4: the front end turns it \
                                 into a subroutine call)",
                                    f.symbol_id.as_deref().unwrap_or("?")
                                ),
                            ));
                        }
                    }
                    false
                }
                ExpressionVertex::ArgumentReference(_) => {
                    return Err(StatementError::semantic(
                        "ArgumentReference outside the intrinsics catalogue",
                    ))
                }
                ExpressionVertex::Intrinsic(i) => {
                    let non_real_result = matches!(
                        i.r_type,
                        SymbolType::Integer
                            | SymbolType::Bool
                            | SymbolType::Char
                            | SymbolType::String
                    );
                    if !any_active_argument || non_real_result {
                        false
                    } else {
                        let entry = self.catalogue.get(&i.name).ok_or_else(|| {
                            StatementError::unsupported(
                                None,
                                format!(
                                    "intrinsic '{}' has an active argument but is not in the \
                                 intrinsics catalogue (canonical form C3: elemental operations \
                                 the catalogue differentiates)",
                                    i.name
                                ),
                            )
                        })?;
                        if !self.catalogue.has_real_result(&i.name) {
                            // Integer results (int, size, ...) carry nothing,
                            // whatever the number of arguments.
                            false
                        } else if entry.nr_arguments != view.args[v].len() as u64 {
                            return Err(StatementError::semantic(format!(
                                "intrinsic '{}' takes {} arguments, found {}",
                                i.name,
                                entry.nr_arguments,
                                view.args[v].len()
                            )));
                        } else {
                            view.args[v].iter().enumerate().any(|(k, &a)| {
                                active[a]
                                    && self
                                        .catalogue
                                        .partial(&i.name, k as u64 + 1)
                                        .is_some_and(|p| partial_kind(p) != PartialKind::Passive)
                            })
                        }
                    }
                }
            };
        }
        Ok(active)
    }

    /// The partial of operation `v` with respect to its argument
    /// `argument`, the catalogue formula with argument subexpressions
    /// substituted; `None` when it is zero.
    fn local_partial(
        &self,
        view: &ExprView,
        v: usize,
        name: &str,
        argument: u64,
    ) -> Result<Option<PartialValue>, StatementError> {
        let Some(p) = self.catalogue.partial(name, argument) else {
            return Ok(None);
        };
        match partial_kind(p) {
            PartialKind::Passive => return Ok(None),
            PartialKind::One => return Ok(Some(PartialValue::One)),
            PartialKind::MinusOne => return Ok(Some(PartialValue::MinusOne)),
            PartialKind::General => {}
        }
        let formula = ExprView::new(&p.expression)?;
        let formula_root = formula.root()?;
        let mut b = ExprBuilder::new();
        let root = substitute(&formula, formula_root, view, v, &mut b)?;
        let expr = b.finish(root);
        // Integer folding may have reduced the partial to a constant.
        if let [ExpressionVertex::Constant(c)] = expr.vertices.as_slice() {
            match crate::expr::exact_integer_literal(c) {
                Some(0) => return Ok(None),
                Some(1) => return Ok(Some(PartialValue::One)),
                Some(-1) => return Ok(Some(PartialValue::MinusOne)),
                _ => {}
            }
        }
        Ok(Some(PartialValue::Expr(expr)))
    }
}

fn array_error(r: &VariableReference) -> StatementError {
    let name = crate::expr::base_symbol(r).map_or("?", |(s, _)| s);
    StatementError::unsupported(
        None,
        format!(
            "active array-valued reference to '{name}' (whole array or section) is not supported \
         here: the booster scalarises assignments of basic blocks only (docs/frontend-contract.md)"
        ),
    )
}

/// Builds vertex `f` of a catalogue formula into `b`, replacing argument
/// references by copies of the arguments of operation `op` of `view`
/// (argument 0 is the operation's result).
fn substitute(
    formula: &ExprView,
    f: usize,
    view: &ExprView,
    op: usize,
    b: &mut ExprBuilder,
) -> Result<usize, StatementError> {
    let args: Vec<usize> = formula.args[f]
        .iter()
        .map(|&a| substitute(formula, a, view, op, b))
        .collect::<Result<_, _>>()?;
    Ok(match formula.vertex(f) {
        ExpressionVertex::ArgumentReference(r) => {
            let source = if r.argument == 0 {
                op
            } else {
                *view.args[op].get(r.argument as usize - 1).ok_or_else(|| {
                    StatementError::semantic(format!(
                        "catalogue refers to missing argument {}",
                        r.argument
                    ))
                })?
            };
            b.copy_subexpression(view, source)
        }
        ExpressionVertex::Intrinsic(i) => b.intrinsic(&i.name, &args),
        other => {
            let w = b.copy_vertex(other);
            for (k, &a) in args.iter().enumerate() {
                b.edge(a, w, k as i64 + 1);
            }
            w
        }
    })
}
