//! Booster temporaries (`oad_lin_N` for partials, `oad_acc_N` for
//! accumulated Jacobian entries): passive real scalars in the scope of the
//! control flow graph.
//!
//! In tangent mode a temporary lives from its assignment before a statement
//! to the derivative propagator right after it, so the names are reused
//! statement after statement: `reset` starts the numbering again and the
//! symbol table only gets as many as one statement needs.

use xaif_schema::model::{
    ActiveUse, Assignment, AssignmentLhs, Expression, Symbol, SymbolReference, VariableReference,
    VariableReferenceVertex,
};

use crate::symbols::{temporary_symbol, SymbolIndex};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TempKind {
    /// A local partial derivative.
    Partial,
    /// An accumulated Jacobian entry or intermediate product.
    Accumulated,
    /// An active temporary whose derivative holds a copy (`oad_dtmp_N`).
    Derivative,
}

/// The temporaries of one control flow graph.
pub struct TempPool {
    pub scope_id: u64,
    partial_names: Vec<String>,
    accumulated_names: Vec<String>,
    derivative_names: Vec<String>,
    next_partial: usize,
    next_accumulated: usize,
    next_derivative: usize,
    statement_counter: usize,
}

impl TempPool {
    pub fn new(scope_id: u64) -> TempPool {
        TempPool {
            scope_id,
            partial_names: Vec::new(),
            accumulated_names: Vec::new(),
            derivative_names: Vec::new(),
            next_partial: 0,
            next_accumulated: 0,
            next_derivative: 0,
            statement_counter: 0,
        }
    }

    /// Makes every temporary available again (a new statement begins).
    pub fn reset(&mut self) {
        self.next_partial = 0;
        self.next_accumulated = 0;
        self.next_derivative = 0;
    }

    /// A reference to a free temporary of the given kind.
    pub fn take(&mut self, kind: TempKind, symbols: &SymbolIndex) -> VariableReference {
        let (names, next, stem) = match kind {
            TempKind::Partial => (&mut self.partial_names, &mut self.next_partial, "oad_lin"),
            TempKind::Accumulated => (
                &mut self.accumulated_names,
                &mut self.next_accumulated,
                "oad_acc",
            ),
            TempKind::Derivative => (
                &mut self.derivative_names,
                &mut self.next_derivative,
                "oad_dtmp",
            ),
        };
        if *next == names.len() {
            // A name no scope of the program declares: a temporary must
            // not shadow a host or module variable.
            let stem = format!("{stem}_{}", names.len() + 1);
            let mut candidate = stem.clone();
            let mut k = 0;
            while symbols.is_name_used(&candidate) {
                k += 1;
                candidate = format!("{stem}_{k}");
            }
            names.push(candidate);
        }
        let name = names[*next].clone();
        *next += 1;
        let mut r = temp_reference(&name, self.scope_id);
        if kind == TempKind::Derivative {
            r.active = ActiveUse::True;
        }
        r
    }

    /// `temp = value`, a new statement placed before `original`.
    pub fn assignment(
        &mut self,
        temp: &VariableReference,
        value: Expression,
        original: &Assignment,
    ) -> Assignment {
        self.statement_counter += 1;
        Assignment {
            statement_id: format!("{}_oad_{}", original.statement_id, self.statement_counter)
                .into(),
            do_chain: 0,
            line_number: original.line_number,
            lhs: AssignmentLhs {
                reference: temp.clone(),
                live: true,
            },
            rhs: value,
        }
    }

    /// The symbols of every temporary handed out: passive reals, and
    /// active ones for derivative copies.
    pub fn symbols(&self) -> Vec<Symbol> {
        let passive = self
            .partial_names
            .iter()
            .chain(&self.accumulated_names)
            .map(|n| temporary_symbol(n));
        let active = self.derivative_names.iter().map(|n| Symbol {
            active: true,
            ..temporary_symbol(n)
        });
        passive.chain(active).collect()
    }
}

/// A passive reference to a temporary.
pub fn temp_reference(name: &str, scope_id: u64) -> VariableReference {
    VariableReference {
        vertex_id: "1".into(),
        active: ActiveUse::False,
        vertices: vec![VariableReferenceVertex::SymbolReference(SymbolReference {
            vertex_id: "1".into(),
            annotation: Default::default(),
            symbol_id: name.to_string().into(),
            scope_id,
            properties: Vec::new(),
        })],
        ..VariableReference::default()
    }
}
