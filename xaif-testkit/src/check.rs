//! The interpreter check of a whole XAIF document: for each active
//! subroutine, its input graph, the booster's tangent output and adjoint
//! output are interpreted on random inputs (drawn on first read), and
//!
//! - the tangent `ẏ = J ẋ` must match central finite differences of the
//!   input program along the same random `ẋ` (weighted by a random `ȳ`),
//! - the adjoint `x̄ = Jᵀ ȳ` must satisfy `⟨x̄, ẋ⟩ = ⟨ȳ, ẏ⟩` (dot-product
//!   test against the tangent),
//! - both outputs must compute the input's values unchanged, and the
//!   adjoint's tapes and checkpoint stack must end empty.
//!
//! Inputs `x` are the active reals the routine reads before writing among
//! its arguments and global variables; outputs `y` those whose last write
//! is an active assignment, plus the inputs nothing writes (the identity).
//! (A last write the front end made passive means the final value is not
//! a dependent: no derivative is kept for it.)
//! Locals of the routine are neither. Adjoint mode is simulated as split
//! mode (every callee runs its tape section in the forward sweep and its
//! adjoint section in the reverse sweep).

use std::collections::{BTreeMap, HashMap};
use std::panic::{catch_unwind, AssertUnwindSafe};
use xaif_schema::model::*;

use std::rc::Rc;

use crate::machine::{
    hash_unit, is_interface, Callee, Frame, Inputs, Machine, MarkerPolicy, Symbols,
};

/// What happened to one subroutine.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// All checks held; counts of inputs and outputs.
    Passed { inputs: usize, outputs: usize },
    /// The interpreter cannot run it (the message says what).
    Unsupported(String),
    /// A check failed (the message says which and the numbers).
    Failed(String),
}

/// The three programs of a document, as the interpreter calls them.
pub struct Programs {
    pub input: HashMap<String, Callee>,
    pub tangent: HashMap<String, Callee>,
    pub tape: HashMap<String, Callee>,
    pub adjoint: HashMap<String, Callee>,
    /// The active subroutines with a body, in document order.
    pub routines: Vec<String>,
    /// Each program's symbols (the outputs add temporaries).
    pub input_symbols: Rc<Symbols>,
    pub tangent_symbols: Rc<Symbols>,
    pub adjoint_symbols: Rc<Symbols>,
    /// Markers known to change no value; running any other one makes a
    /// subroutine not interpretable.
    pub markers: MarkerPolicy,
}

fn graphs(cg: &CallGraph) -> HashMap<String, Callee> {
    cg.vertices
        .iter()
        .filter_map(|v| match v {
            CallGraphVertex::ControlFlowGraph(c) => Some((
                c.symbol_id.to_string(),
                Callee::new(
                    &c.argument_list,
                    c.controlflowgraph_scope_id,
                    &c.vertices,
                    &c.edges,
                ),
            )),
            _ => None,
        })
        .collect()
}

/// Placeholder `placeholder`'s graph of every replacement list (passive
/// graphs as they are).
fn section(cg: &CallGraph, placeholder: &str) -> HashMap<String, Callee> {
    cg.vertices
        .iter()
        .map(|v| match v {
            CallGraphVertex::ControlFlowGraph(c) => (
                c.symbol_id.to_string(),
                Callee::new(
                    &c.argument_list,
                    c.controlflowgraph_scope_id,
                    &c.vertices,
                    &c.edges,
                ),
            ),
            CallGraphVertex::ReplacementList(l) => {
                let r = l
                    .replacements
                    .iter()
                    .find(|r| r.placeholder == placeholder)
                    .unwrap_or_else(|| panic!("{}: no placeholder {placeholder}", l.symbol_id));
                (
                    l.symbol_id.to_string(),
                    Callee::new(
                        &l.argument_list,
                        l.controlflowgraph_scope_id,
                        &r.vertices,
                        &r.edges,
                    ),
                )
            }
        })
        .collect()
}

impl Programs {
    pub fn new(input: &CallGraph, tangent: &CallGraph, adjoint: &CallGraph) -> Programs {
        let routines = input
            .vertices
            .iter()
            .filter_map(|v| match v {
                CallGraphVertex::ControlFlowGraph(c)
                    if c.active
                        && c.vertices
                            .iter()
                            .any(|v| matches!(v, ControlFlowVertex::Entry(_))) =>
                {
                    Some(c.symbol_id.to_string())
                }
                _ => None,
            })
            .collect();
        Programs {
            input: graphs(input),
            tangent: graphs(tangent),
            tape: section(adjoint, "2"),
            adjoint: section(adjoint, "3"),
            routines,
            input_symbols: Rc::new(Symbols::new(input)),
            tangent_symbols: Rc::new(Symbols::new(tangent)),
            adjoint_symbols: Rc::new(Symbols::new(adjoint)),
            markers: MarkerPolicy::Known(Rc::default()),
        }
    }
}

/// Runs `routine` of `subs` from `start` (values) and `d` (derivatives).
fn run(
    markers: &MarkerPolicy,
    symbols: &Rc<Symbols>,
    seed: u64,
    subs: &HashMap<String, Callee>,
    routine: &str,
    start: &HashMap<String, f64>,
    d: HashMap<String, f64>,
) -> Machine {
    let mut m = Machine {
        symbols: Some(symbols.clone()),
        inputs: Some(Inputs {
            seed,
            drawn: BTreeMap::new(),
        }),
        markers: markers.clone(),
        ..Machine::default()
    };
    m.subroutines = subs.clone();
    m.v = start.clone();
    m.d = d;
    let top = subs
        .get(routine)
        .unwrap_or_else(|| panic!("no code for {routine}"))
        .clone();
    m.frame = Frame::top(&top);
    m.assume_bounds_of_formals(ASSUMED_EXTENT);
    m.run(&top.vertices, &top.edges);
    m
}

/// The extent given to a top-level routine's arrays that declare none.
const ASSUMED_EXTENT: i64 = 4;

fn close(a: f64, b: f64, rel: f64) -> bool {
    (a - b).abs() <= rel * a.abs().max(b.abs()).max(1.0)
}

/// Every check of the module comment on `routine`; panics on failure.
fn check_routine_or_panic(p: &Programs, routine: &str, seed: u64) -> Verdict {
    // The original: which inputs it reads, what it writes.
    let original = run(
        &p.markers,
        &p.input_symbols,
        seed,
        &p.input,
        routine,
        &HashMap::new(),
        HashMap::new(),
    );
    let value = |m: &Machine, n: &str| *m.v.get(n).unwrap_or(&0.0);
    let drawn = original.inputs.clone().unwrap().drawn;
    let start: HashMap<String, f64> = drawn.iter().map(|(n, i)| (n.clone(), i.value)).collect();
    let xs: Vec<String> = drawn
        .iter()
        .filter(|(n, i)| i.active_real && is_interface(n))
        .map(|(n, _)| n.clone())
        .collect();
    let mut ys: Vec<String> = original
        .written
        .iter()
        .filter(|(n, active)| **active && is_interface(n))
        .map(|(n, _)| n.clone())
        .collect();
    // An input nothing writes is an output too (the identity); one whose
    // last write is passive is not (the front end found its final value
    // useless, so no derivative is kept for it).
    for x in &xs {
        if !original.written.contains_key(x) {
            ys.push(x.clone());
        }
    }
    if ys.iter().any(|y| !value(&original, y).is_finite()) {
        crate::not_interpretable!("non-finite values at the drawn inputs");
    }
    let xdot: BTreeMap<String, f64> = xs
        .iter()
        .map(|n| (n.clone(), 2.0 * hash_unit(seed + 1, n) - 1.0))
        .collect();
    let ybar: BTreeMap<String, f64> = ys
        .iter()
        .map(|n| (n.clone(), 2.0 * hash_unit(seed + 2, n) - 1.0))
        .collect();

    // Central finite differences of the input program along ẋ.
    let h = 1e-6;
    let shifted = |sign: f64| {
        let mut s = start.clone();
        for (n, dx) in &xdot {
            *s.get_mut(n).unwrap() += sign * h * dx;
        }
        run(
            &p.markers,
            &p.input_symbols,
            seed,
            &p.input,
            routine,
            &s,
            HashMap::new(),
        )
    };
    let plus = shifted(1.0);
    let minus = shifted(-1.0);
    let fd: f64 = ybar
        .iter()
        .map(|(n, w)| w * (value(&plus, n) - value(&minus, n)) / (2.0 * h))
        .sum();

    // Tangent output: same values, ẏ = J ẋ.
    let t = run(
        &p.markers,
        &p.tangent_symbols,
        seed,
        &p.tangent,
        routine,
        &start,
        xdot.clone().into_iter().collect(),
    );
    for n in &ys {
        if !close(value(&t, n), value(&original, n), 1e-12) {
            return Verdict::Failed(format!(
                "tangent output changes the value of {n}: {} instead of {}",
                value(&t, n),
                value(&original, n)
            ));
        }
    }
    let tangent: f64 = ybar
        .iter()
        .map(|(n, w)| w * t.d.get(n).unwrap_or(&0.0))
        .sum();
    if !close(tangent, fd, 1e-5) {
        return Verdict::Failed(format!(
            "tangent ⟨ȳ, J ẋ⟩ = {tangent:e} but finite differences give {fd:e}"
        ));
    }

    // Adjoint output: forward sweep (tape), then reverse sweep with ȳ.
    let mut a = run(
        &p.markers,
        &p.adjoint_symbols,
        seed,
        &p.tape,
        routine,
        &start,
        HashMap::new(),
    );
    for n in &ys {
        if !close(value(&a, n), value(&original, n), 1e-12) {
            return Verdict::Failed(format!(
                "adjoint forward sweep changes the value of {n}: {} instead of {}",
                value(&a, n),
                value(&original, n)
            ));
        }
    }
    let top = p.adjoint[routine].clone();
    a.subroutines = p.adjoint.clone();
    a.d = ybar.clone().into_iter().collect();
    a.frame = Frame::top(&top);
    a.assume_bounds_of_formals(ASSUMED_EXTENT);
    a.run(&top.vertices, &top.edges);
    if !a.real_tape.is_empty() || !a.int_tape.is_empty() || !a.checkpoints.is_empty() {
        return Verdict::Failed(format!(
            "tapes not empty after the reverse sweep: {} reals, {} integers, {} checkpoints",
            a.real_tape.len(),
            a.int_tape.len(),
            a.checkpoints.len()
        ));
    }
    let adjoint: f64 = xdot
        .iter()
        .map(|(n, dx)| dx * a.d.get(n).unwrap_or(&0.0))
        .sum();
    if !close(adjoint, tangent, 1e-10) {
        return Verdict::Failed(format!(
            "dot-product test: adjoint ⟨x̄, ẋ⟩ = {adjoint:e}, tangent ⟨ȳ, J ẋ⟩ = {tangent:e}"
        ));
    }
    Verdict::Passed {
        inputs: xs.len(),
        outputs: ys.len(),
    }
}

/// Checks `routine`; interpreter limits become `Unsupported`, any other
/// panic `Failed`.
pub fn check_routine(p: &Programs, routine: &str, seed: u64) -> Verdict {
    match catch_unwind(AssertUnwindSafe(|| {
        check_routine_or_panic(p, routine, seed)
    })) {
        Ok(v) => v,
        Err(e) => verdict_of_panic(e),
    }
}

/// A panic's verdict: the interpreter's own [`crate::NotInterpretable`]
/// payload is `Unsupported`, anything else a failure (with its message).
fn verdict_of_panic(payload: Box<dyn std::any::Any + Send>) -> Verdict {
    match payload.downcast::<crate::NotInterpretable>() {
        Ok(reason) => Verdict::Unsupported(reason.0),
        Err(e) => Verdict::Failed(
            e.downcast_ref::<String>()
                .cloned()
                .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "panic".into()),
        ),
    }
}

/// Installs a panic hook that keeps quiet about what the interpreter cannot
/// run (reported as `Unsupported`) and reports every other panic as usual.
pub fn quiet_unsupported_panics() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if !info.payload().is::<crate::NotInterpretable>() {
            default(info)
        }
    }));
}

/// Checks every active subroutine of a document; every marker run makes
/// a subroutine not interpretable.
pub fn check_document(
    input: &CallGraph,
    tangent: &CallGraph,
    adjoint: &CallGraph,
    seed: u64,
) -> Vec<(String, Verdict)> {
    check_document_with(
        input,
        tangent,
        adjoint,
        seed,
        MarkerPolicy::Known(Rc::default()),
    )
}

/// Checks every active subroutine of a document, with what is known of
/// its markers.
pub fn check_document_with(
    input: &CallGraph,
    tangent: &CallGraph,
    adjoint: &CallGraph,
    seed: u64,
    markers: MarkerPolicy,
) -> Vec<(String, Verdict)> {
    let mut p = Programs::new(input, tangent, adjoint);
    p.markers = markers;
    p.routines
        .iter()
        .map(|r| (r.clone(), check_routine(&p, r, seed)))
        .collect()
}

#[cfg(test)]
mod panic_tests {
    use super::*;

    #[test]
    fn only_the_interpreters_own_payload_is_unsupported() {
        quiet_unsupported_panics();
        let limit = catch_unwind(|| crate::not_interpretable!("literal: {}", "1q")).unwrap_err();
        assert!(matches!(verdict_of_panic(limit), Verdict::Unsupported(r) if r == "literal: 1q"));
        // A bug whose message merely looks like a limit is still a failure.
        let bug = catch_unwind(|| panic!("unsupported: looks like a limit")).unwrap_err();
        assert!(matches!(verdict_of_panic(bug), Verdict::Failed(m) if m.contains("looks like")));
    }
}
