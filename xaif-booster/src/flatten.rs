//! Flattening consecutive assignments of a basic block into one
//! computational graph (the semantic-preserving splitting of paper 002,
//! Algorithm 2, with variables identified by their references).
//!
//! A use of a variable connects to the vertex of the latest assignment to
//! the same reference in the current graph, or becomes an independent when
//! the graph has not assigned that variable. When the identity is not
//! certain, the graph is split before the statement: a use of a symbol the
//! graph has assigned through a different reference (`a(j)` after
//! `a(i) = ...`, which may or may not be the same element), a use after two
//! different references of one symbol were assigned, or a reference whose
//! subscripts read a variable the graph has assigned. Every graph thus
//! reads each variable either before or after all of its assignments in the
//! graph, so the graph computes what the statements compute.

use std::collections::{HashMap, HashSet};
use std::ops::Range;
use xaif_schema::model::{Assignment, VariableReference, VariableReferenceVertex};

use crate::expr::{base_symbol, symbols_in_expression, variable_key};
use crate::linearize::{LinEdge, LinVertexKind, LinearizedGraph};

/// One statement of a flattened sequence and the edges it contributed.
#[derive(Debug, Clone)]
pub struct FlatStatement {
    pub assignment: Assignment,
    pub edges: Range<usize>,
    /// The statement's own linearised graph (for statement-level code when
    /// that is cheaper than the flattened graph's).
    pub graph: LinearizedGraph,
}

/// Assignments flattened into one graph; the graph's dependents are the
/// final values of the assigned variables, in order of their last
/// assignment.
#[derive(Debug, Clone, Default)]
pub struct FlatSequence {
    pub graph: LinearizedGraph,
    pub statements: Vec<FlatStatement>,
    /// For each dependent, the index of the statement that last assigns it.
    pub dependent_statements: Vec<usize>,
}

impl FlatSequence {
    /// Drops the dependents for which `keep(statement index, reference)` is
    /// false (values nobody reads after the run).
    pub fn retain_dependents(&mut self, mut keep: impl FnMut(usize, &VariableReference) -> bool) {
        let seq = self;
        let mut kept_statements = Vec::new();
        let mut kept = Vec::new();
        for (dep, &k) in seq
            .graph
            .dependents
            .drain(..)
            .zip(&seq.dependent_statements)
        {
            if keep(k, &dep.1) {
                kept.push(dep);
                kept_statements.push(k);
            }
        }
        seq.graph.dependents = kept;
        seq.dependent_statements = kept_statements;
    }
}

type SymbolKey = (String, u64);

/// Longest run of statements flattened into one graph. Elimination
/// heuristics scan all candidates at every step, so their cost grows with
/// the square of the graph; beyond a few hundred statements a split costs
/// little (one more propagator) and keeps the booster linear in the block
/// length.
pub const MAX_STATEMENTS_PER_GRAPH: usize = 200;

#[derive(Default)]
pub struct Flattener {
    graph: LinearizedGraph,
    statements: Vec<FlatStatement>,
    /// Reference key → vertex holding its latest value in this graph.
    current: HashMap<String, usize>,
    /// Reference key → (statement index of the last assignment, reference).
    last_assignment: HashMap<String, (usize, VariableReference)>,
    /// Reference key → independent vertex (value on entry to the graph).
    independent_of: HashMap<String, usize>,
    assigned: HashSet<SymbolKey>,
    /// The reference through which each symbol was first assigned.
    first_reference: HashMap<SymbolKey, String>,
    /// Symbols assigned through more than one reference.
    ambiguous: HashSet<SymbolKey>,
    /// Symbols the subscripts of the graph's references read: the code
    /// using the graph (propagators, taped subscripts) evaluates those
    /// subscripts after the last statement, so none of them may be
    /// assigned inside the graph.
    subscript_reads: HashSet<SymbolKey>,
}

fn symbol_key(r: &VariableReference) -> Option<SymbolKey> {
    base_symbol(r).map(|(s, scope)| (s.to_string(), scope))
}

/// Symbols read by the subscripts of a reference.
fn subscript_symbols(r: &VariableReference) -> Vec<SymbolKey> {
    let mut out = Vec::new();
    for v in &r.vertices {
        if let VariableReferenceVertex::ArrayElementReference(a) = v {
            for t in &a.index_triplets {
                for e in [&t.index, &t.bound, &t.stride].into_iter().flatten() {
                    symbols_in_expression(e, &mut out);
                }
            }
        }
    }
    out
}

/// Symbols read by the subscripts of a statement's left-hand side and of
/// the references it reads.
fn subscript_reads(lhs: &VariableReference, g: &LinearizedGraph) -> Vec<SymbolKey> {
    let mut out = subscript_symbols(lhs);
    for v in &g.vertices {
        if let LinVertexKind::Independent(r) = v {
            out.extend(subscript_symbols(r));
        }
    }
    out
}

/// Whether an assignment changes a variable its own subscripts read
/// (`r = a(nint(r))`): code placed after it would evaluate `a(nint(r))`
/// with the new `r`. Such a statement must not be flattened (`try_append`
/// never accepts it after other statements, and the graph it would start
/// would be wrong) and its tangent propagator must come before it.
pub fn changes_own_subscripts(a: &Assignment, g: &LinearizedGraph) -> bool {
    symbol_key(&a.lhs.reference).is_some_and(|s| subscript_reads(&a.lhs.reference, g).contains(&s))
}

impl Flattener {
    pub fn new() -> Flattener {
        Flattener::default()
    }

    pub fn is_empty(&self) -> bool {
        self.statements.is_empty()
    }

    /// Whether a use of `r` has one certain meaning in the current graph.
    fn identifiable(&self, r: &VariableReference) -> bool {
        if subscript_symbols(r)
            .iter()
            .any(|s| self.assigned.contains(s))
        {
            return false;
        }
        let Some(sym) = symbol_key(r) else {
            return false;
        };
        if !self.assigned.contains(&sym) {
            return true;
        }
        !self.ambiguous.contains(&sym) && self.current.contains_key(&variable_key(r))
    }

    /// Adds the statement `a` with its linearised graph `g`; gives both back
    /// when the statement must start a new graph. An empty flattener always
    /// accepts.
    #[allow(clippy::result_large_err)]
    pub fn try_append(
        &mut self,
        a: Assignment,
        g: LinearizedGraph,
    ) -> Result<(), (Assignment, LinearizedGraph)> {
        let lhs = &a.lhs.reference;
        let uses_ok = g.vertices.iter().all(|v| match v {
            LinVertexKind::Independent(r) => self.identifiable(r),
            LinVertexKind::Intermediate(_) => true,
        });
        let lhs_ok = !subscript_symbols(lhs)
            .iter()
            .any(|s| self.assigned.contains(s));
        let reads_here = subscript_reads(lhs, &g);
        let keeps_subscripts = symbol_key(lhs)
            .is_none_or(|s| !self.subscript_reads.contains(&s) && !reads_here.contains(&s));
        let fits = uses_ok
            && lhs_ok
            && keeps_subscripts
            && self.statements.len() < MAX_STATEMENTS_PER_GRAPH;
        if !(self.is_empty() || fits) {
            return Err((a, g));
        }
        self.subscript_reads.extend(reads_here);
        let statement_index = self.statements.len();
        // Map the statement's vertices into the sequence graph.
        let mut map = Vec::with_capacity(g.vertices.len());
        for v in &g.vertices {
            let target = match v {
                LinVertexKind::Independent(r) => {
                    let key = variable_key(r);
                    if let Some(&w) = self.current.get(&key) {
                        w
                    } else if let Some(&w) = self.independent_of.get(&key) {
                        w
                    } else {
                        self.graph.vertices.push(v.clone());
                        let w = self.graph.vertices.len() - 1;
                        self.independent_of.insert(key, w);
                        w
                    }
                }
                LinVertexKind::Intermediate(_) => {
                    self.graph.vertices.push(v.clone());
                    self.graph.vertices.len() - 1
                }
            };
            map.push(target);
        }
        let first_edge = self.graph.edges.len();
        for e in &g.edges {
            self.graph.edges.push(LinEdge {
                source: map[e.source],
                target: map[e.target],
                partial: e.partial.clone(),
            });
        }
        let edges = first_edge..self.graph.edges.len();
        for (root, dep) in &g.dependents {
            let key = variable_key(dep);
            if let Some(sym) = symbol_key(dep) {
                let first = self
                    .first_reference
                    .entry(sym.clone())
                    .or_insert_with(|| key.clone());
                if *first != key {
                    self.ambiguous.insert(sym.clone());
                }
                self.assigned.insert(sym);
            }
            self.current.insert(key.clone(), map[*root]);
            self.last_assignment
                .insert(key, (statement_index, dep.clone()));
        }
        self.statements.push(FlatStatement {
            assignment: a,
            edges,
            graph: g,
        });
        Ok(())
    }

    /// The sequence graph with its dependents (final values of the assigned
    /// variables, ordered by last assignment).
    pub fn finish(self) -> FlatSequence {
        let mut graph = self.graph;
        let mut deps: Vec<(usize, String, VariableReference)> = self
            .last_assignment
            .into_iter()
            .map(|(key, (k, r))| (k, key, r))
            .collect();
        deps.sort_by(|a, b| (a.0, &a.1).cmp(&(b.0, &b.1)));
        let dependent_statements = deps.iter().map(|d| d.0).collect();
        graph.dependents = deps
            .into_iter()
            .map(|(_, key, r)| (self.current[&key], r))
            .collect();
        FlatSequence {
            graph,
            statements: self.statements,
            dependent_statements,
        }
    }
}
