//! The interpreter seen through a plain map of values: evaluating one
//! expression, running the elements of one basic block (the tangent tests'
//! view of a program). Everything runs on [`Machine`].

use std::collections::HashMap;
use xaif_schema::model::*;

use crate::machine::Machine;
use crate::notation::{expr, var};

/// Evaluates an expression over `vars` (by location name); `args` are the
/// catalogue's argument references (index 0 is argument 1).
pub fn eval(e: &Expression, vars: &HashMap<String, f64>, args: &[f64]) -> f64 {
    let mut m = Machine {
        v: vars.clone(),
        ..Machine::default()
    };
    m.eval_with_arguments(e, args)
}

/// The storage a reference denotes, subscripts evaluated over `vars`.
pub fn location(r: &VariableReference, vars: &HashMap<String, f64>) -> String {
    let mut m = Machine {
        v: vars.clone(),
        ..Machine::default()
    };
    m.location(r)
}

/// Values and derivatives of the program variables.
#[derive(Clone, Debug, Default)]
pub struct State {
    pub v: HashMap<String, f64>,
    pub d: HashMap<String, f64>,
}

/// Runs basic block elements (assignments, derivative propagators, ...).
pub fn execute(elements: &[BasicBlockElement], state: &mut State) {
    let mut m = Machine {
        v: std::mem::take(&mut state.v),
        d: std::mem::take(&mut state.d),
        ..Machine::default()
    };
    for el in elements {
        m.element(el);
    }
    state.v = m.v;
    state.d = m.d;
}

/// Runs assignments `(lhs, rhs)` in the prefix notation on values only.
pub fn execute_original(assignments: &[(&str, &str)], vars: &mut HashMap<String, f64>) {
    let elements: Vec<BasicBlockElement> = assignments
        .iter()
        .enumerate()
        .map(|(k, (l, r))| {
            BasicBlockElement::Assignment(Assignment {
                statement_id: format!("s{}", k + 1).into(),
                do_chain: 0,
                line_number: 0,
                lhs: AssignmentLhs {
                    reference: var(l),
                    live: true,
                },
                rhs: expr(r),
            })
        })
        .collect();
    let mut state = State {
        v: std::mem::take(vars),
        d: HashMap::new(),
    };
    execute(&elements, &mut state);
    *vars = state.v;
}
