//! Adjoint mode checked numerically. Each test program is transformed by
//! `transform_adjoint`; the interpreter runs the tape section (which must
//! compute what the plain section computes), then the adjoint section
//! seeded with a random adjoint ȳ of every active location. The resulting
//! x̄ must satisfy the dot-product identity ⟨x̄, ẋ⟩ = ⟨ȳ, J ẋ⟩ against the
//! booster's tangent mode (1e-12 relative) and against central finite
//! differences of the plain section (1e-6 relative); the tapes must end
//! empty.

use std::collections::HashMap;

use xaif_booster::adjoint::recompute::Partials;
use xaif_booster::adjoint::{transform_adjoint, transform_adjoint_with, AdjointOptions};
use xaif_booster::block_accumulate::EliminationChoice;
use xaif_booster::catalogue::Catalogue;
use xaif_booster::elimination::Method;
use xaif_booster::tangent::{transform_tangent, Preaccumulation, TangentOptions};
use xaif_schema::model::*;
use xaif_testkit::*;

struct Sections {
    plain: Replacement,
    tape: Replacement,
    adjoint: Replacement,
    /// Every subroutine's code in each simulated mode.
    plain_subs: HashMap<String, Callee>,
    tape_subs: HashMap<String, Callee>,
    adjoint_subs: HashMap<String, Callee>,
}

impl Sections {
    /// Every subroutine's three sections, for the joint mode simulation.
    fn joint(&self) -> HashMap<String, [Callee; 3]> {
        self.plain_subs
            .keys()
            .map(|n| {
                (
                    n.clone(),
                    [
                        self.plain_subs[n].clone(),
                        self.tape_subs[n].clone(),
                        self.adjoint_subs[n].clone(),
                    ],
                )
            })
            .collect()
    }
}

fn formals(list: &Option<Vec<ArgumentSymbolReference>>) -> Vec<String> {
    let mut args = list.clone().unwrap_or_default();
    args.sort_by_key(|a| a.position);
    args.into_iter().map(|a| a.symbol_id.into()).collect()
}

fn adjoint_of(cg: &CallGraph, preaccumulation: Preaccumulation) -> (CallGraph, Sections) {
    adjoint_with(cg, preaccumulation, Partials::Auto)
}

fn adjoint_with(
    cg: &CallGraph,
    preaccumulation: Preaccumulation,
    partials: Partials,
) -> (CallGraph, Sections) {
    let mut out = cg.clone();
    let catalogue = Catalogue::builtin().unwrap();
    let options = AdjointOptions {
        preaccumulation,
        partials,
        ..AdjointOptions::default()
    };
    transform_adjoint_with(&mut out, &catalogue, &options).expect("adjoint transformation");
    let lists: Vec<ReplacementList> = out
        .vertices
        .iter()
        .filter_map(|v| match v {
            CallGraphVertex::ReplacementList(l) => Some(l.clone()),
            _ => None,
        })
        .collect();
    let get = |list: &ReplacementList, p: &str| {
        list.replacements
            .iter()
            .find(|r| r.placeholder == p)
            .cloned()
            .unwrap_or_else(|| panic!("no placeholder {p}"))
    };
    let subs = |p: &str| -> HashMap<String, Callee> {
        lists
            .iter()
            .map(|l| {
                let r = get(l, p);
                (
                    l.symbol_id.to_string(),
                    Callee {
                        formals: formals(&l.argument_list),
                        vertices: r.vertices,
                        edges: r.edges,
                        scope: None,
                    },
                )
            })
            .collect()
    };
    let head = lists
        .iter()
        .find(|l| l.symbol_id == "head")
        .expect("a replacement list for head");
    let sections = Sections {
        plain: get(head, "1"),
        tape: get(head, "2"),
        adjoint: get(head, "3"),
        plain_subs: subs("1"),
        tape_subs: subs("2"),
        adjoint_subs: subs("3"),
    };
    (out, sections)
}

/// The tangent code of every subroutine.
fn tangent_of(cg: &CallGraph) -> HashMap<String, Callee> {
    let mut out = cg.clone();
    let catalogue = Catalogue::builtin().unwrap();
    let options = TangentOptions {
        preaccumulation: Preaccumulation::Statement,
        elimination: EliminationChoice::Best(vec![Method::Vertex]),
        dot_dir: None,
        report_optimum: false,
    };
    transform_tangent(&mut out, &catalogue, &options).expect("tangent transformation");
    out.vertices
        .iter()
        .filter_map(|v| match v {
            CallGraphVertex::ControlFlowGraph(c) => Some((
                c.symbol_id.to_string(),
                Callee {
                    formals: formals(&c.argument_list),
                    vertices: c.vertices.clone(),
                    edges: c.edges.clone(),
                    scope: None,
                },
            )),
            _ => None,
        })
        .collect()
}

fn original_cfg(cg: &CallGraph) -> &ControlFlowGraph {
    match &cg.vertices[0] {
        CallGraphVertex::ControlFlowGraph(c) => c,
        _ => panic!("input is a control flow graph"),
    }
}

/// A deterministic pseudo-random sequence in [-1, 1].
struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
    }
}

/// Default values of every program variable, overridden by `point`.
fn state(point: &[(&str, f64)]) -> HashMap<String, f64> {
    let mut v = HashMap::new();
    for (k, n) in ACTIVE.iter().enumerate() {
        v.insert(n.to_string(), 0.4 + 0.1 * k as f64);
    }
    for n in GLOBALS {
        v.insert(n.to_string(), 0.7);
    }
    for n in PASSIVE {
        v.insert(n.to_string(), 1.5);
    }
    for n in INTEGER {
        v.insert(n.to_string(), 1.0);
    }
    for k in 1..=VECTOR_LEN {
        v.insert(format!("v({k})"), 0.3 + 0.2 * k as f64);
    }
    for (n, x) in point {
        v.insert(n.to_string(), *x);
    }
    v
}

fn run_plain(
    cfg: &Replacement,
    subs: &HashMap<String, Callee>,
    start: &HashMap<String, f64>,
) -> HashMap<String, f64> {
    let mut m = Machine {
        v: start.clone(),
        subroutines: subs.clone(),
        ..Machine::default()
    };
    m.run(&cfg.vertices, &cfg.edges);
    m.v
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// Runs every check of the module comment on `cg` at `point` with each
/// preaccumulation (statement-level partials, the Jacobian of every
/// flattened run, the automatic choice); returns ⟨ȳ, J ẋ⟩ so callers can
/// also check it is not trivially zero.
fn check(cg: &CallGraph, point: &[(&str, f64)], seed: u64) -> f64 {
    let mut value = 0.0;
    for (pre, partials) in [
        (Preaccumulation::Statement, Partials::Auto),
        (Preaccumulation::BasicBlock, Partials::Taped),
        (Preaccumulation::Auto, Partials::Auto),
        (Preaccumulation::Auto, Partials::Recomputed),
    ] {
        eprintln!("preaccumulation {pre:?}, partials {partials:?} at {point:?}");
        value = check_with(cg, point, seed, pre, partials);
    }
    value
}

fn check_with(
    cg: &CallGraph,
    point: &[(&str, f64)],
    seed: u64,
    pre: Preaccumulation,
    partials: Partials,
) -> f64 {
    let (_, sections) = adjoint_with(cg, pre, partials);
    let start = state(point);
    let locations = active_locations();
    let mut rng = Lcg(seed);
    let xdot: Vec<f64> = locations.iter().map(|_| rng.next()).collect();
    let ybar: Vec<f64> = locations.iter().map(|_| rng.next()).collect();

    // The plain section is the original graph.
    let cfg = original_cfg(cg);
    assert_eq!(sections.plain.vertices, cfg.vertices);
    assert_eq!(sections.plain.edges, cfg.edges);
    let plain_values = run_plain(&sections.plain, &sections.plain_subs, &start);

    // Forward sweep: same values as the original computation.
    let mut m = Machine {
        v: start.clone(),
        subroutines: sections.tape_subs.clone(),
        ..Machine::default()
    };
    m.run(&sections.tape.vertices, &sections.tape.edges);
    for (name, value) in &plain_values {
        assert_eq!(
            m.v.get(name),
            Some(value),
            "tape sweep changes the value of {name}"
        );
    }
    // Reverse sweep with ȳ.
    m.subroutines = sections.adjoint_subs.clone();
    m.d = locations
        .iter()
        .cloned()
        .zip(ybar.iter().copied())
        .collect();
    m.run(&sections.adjoint.vertices, &sections.adjoint.edges);
    assert!(
        m.real_tape.is_empty(),
        "real tape not empty: {:?}",
        m.real_tape
    );
    assert!(
        m.int_tape.is_empty(),
        "integer tape not empty: {:?}",
        m.int_tape
    );
    assert!(
        m.checkpoints.is_empty(),
        "checkpoints left: {:?}",
        m.checkpoints
    );
    assert!(m.snapshots.is_empty(), "array snapshots left");
    let xbar: Vec<f64> = locations
        .iter()
        .map(|n| *m.d.get(n).unwrap_or(&0.0))
        .collect();
    let adjoint_side = dot(&xbar, &xdot);

    // Joint mode: callees run plain in the forward sweep and re-run from
    // their argument checkpoints in the reverse sweep; same adjoint.
    let mut j = Machine {
        v: start.clone(),
        joint: Some(sections.joint()),
        ..Machine::default()
    };
    j.run(&sections.tape.vertices, &sections.tape.edges);
    j.in_reverse = true;
    j.d = locations
        .iter()
        .cloned()
        .zip(ybar.iter().copied())
        .collect();
    j.run(&sections.adjoint.vertices, &sections.adjoint.edges);
    assert!(
        j.real_tape.is_empty()
            && j.int_tape.is_empty()
            && j.checkpoints.is_empty()
            && j.snapshots.is_empty()
    );
    for (n, split) in locations.iter().zip(&xbar) {
        let joint = *j.d.get(n).unwrap_or(&0.0);
        assert!(
            (joint - split).abs() <= 1e-12 * split.abs().max(1.0),
            "joint adjoint of {n}: {joint} vs split {split}"
        );
    }

    // Tangent: J ẋ by the booster's tangent mode.
    let tangent = tangent_of(cg);
    let head = tangent["head"].clone();
    let mut t = Machine {
        v: start.clone(),
        subroutines: tangent,
        d: locations
            .iter()
            .cloned()
            .zip(xdot.iter().copied())
            .collect(),
        ..Machine::default()
    };
    t.run(&head.vertices, &head.edges);
    let jxdot: Vec<f64> = locations
        .iter()
        .map(|n| *t.d.get(n).unwrap_or(&0.0))
        .collect();
    let tangent_side = dot(&ybar, &jxdot);
    let scale = adjoint_side.abs().max(tangent_side.abs()).max(1e-300);
    assert!(
        (adjoint_side - tangent_side).abs() <= 1e-12 * scale.max(1.0),
        "dot-product test: adjoint {adjoint_side} vs tangent {tangent_side}"
    );

    // Central finite differences of the plain section along ẋ.
    let h = 1e-6;
    let shifted = |sign: f64| {
        let mut s = start.clone();
        for (n, dx) in locations.iter().zip(&xdot) {
            *s.get_mut(n).unwrap() += sign * h * dx;
        }
        let out = run_plain(&sections.plain, &sections.plain_subs, &s);
        locations.iter().map(|n| out[n]).collect::<Vec<f64>>()
    };
    let plus = shifted(1.0);
    let minus = shifted(-1.0);
    let fd: Vec<f64> = plus
        .iter()
        .zip(&minus)
        .map(|(p, q)| (p - q) / (2.0 * h))
        .collect();
    let fd_side = dot(&ybar, &fd);
    assert!(
        (adjoint_side - fd_side).abs() <= 1e-6 * scale.max(1.0),
        "finite differences: adjoint {adjoint_side} vs FD {fd_side}"
    );
    adjoint_side
}

/// Several random directions at a point.
fn check_all(cg: &CallGraph, point: &[(&str, f64)]) {
    for seed in 1..=3 {
        check(cg, point, seed);
    }
}

#[test]
fn straight_line_with_self_overwrite_and_subscripts() {
    let cg = structured_program(&[
        S::Set("x", "(mul x x)"),
        S::Set("y", "(mul (sin x) z)"),
        S::Set("z", "(add (mul y x) z)"),
        S::Set("v[n]", "(mul v[m] x)"),
        S::Set("v[(iadd n 1)]", "(mul v[n] v[(iadd n 1)])"),
        S::Set("n", "(iadd n 1)"),
        S::Set("v[n]", "(add v[n] (div p x))"),
        S::Set("p", "(mul p 2.0d0)"),
        S::Set("a", "p"),
        S::Set("b", "(sub (exp b) (mul b a))"),
        S::Set("y", "(mul y y)"),
    ]);
    check_all(&cg, &[("n", 1.0), ("m", 3.0)]);
    // n = m: v(n) = v(m)*x overwrites its own argument.
    check_all(&cg, &[("n", 2.0), ("m", 2.0)]);
}

/// One flattened run (basic-block preaccumulation) whose dependents may be
/// its independents: `v(n)` and `v(m)` are one element when n = m (copy
/// form), `y` is read only by its own row (in-place form), `x` is both
/// read and overwritten by several statements.
#[test]
fn run_with_possibly_aliased_dependents() {
    let cg = structured_program(&[
        S::Set("a", "(mul v[m] x)"),
        S::Set("v[n]", "(add (mul a y) v[n])"),
        S::Set("y", "(add y (mul a a))"),
        S::Set("x", "(mul (sin x) y)"),
        S::Set("z", "(sub (mul z x) v[m])"),
    ]);
    check_all(&cg, &[("n", 1.0), ("m", 3.0)]);
    check_all(&cg, &[("n", 2.0), ("m", 2.0)]);
}

#[test]
fn self_overwrite_alone() {
    let cg = structured_program(&[S::Set("x", "(mul x x)")]);
    check_all(&cg, &[("x", 1.3)]);
    let cg = structured_program(&[S::Set("x", "(add (mul x x) (sin x))")]);
    check_all(&cg, &[("x", 0.7)]);
}

#[test]
fn branch() {
    let cg = structured_program(&[
        S::If(
            "(gt x 0.5d0)",
            vec![S::Set("y", "(mul x x)")],
            vec![S::Set("y", "(sin x)"), S::Set("z", "(mul z y)")],
        ),
        S::Set("z", "(add z y)"),
    ]);
    check_all(&cg, &[("x", 0.7)]);
    check_all(&cg, &[("x", 0.3)]);
    // An If without else.
    let cg = structured_program(&[
        S::If("(gt x 0.5d0)", vec![S::Set("y", "(mul x y)")], vec![]),
        S::Set("z", "(mul z y)"),
    ]);
    check_all(&cg, &[("x", 0.7)]);
    check_all(&cg, &[("x", 0.3)]);
}

#[test]
fn select_case() {
    let cg = structured_program(&[S::Select(
        "k",
        vec![
            (vec![1], vec![S::Set("y", "(mul x y)")]),
            (vec![2, 3], vec![S::Set("y", "(cos x)")]),
            (vec![], vec![S::Set("z", "(mul z z)")]),
        ],
    )]);
    for k in [1.0, 2.0, 3.0, 7.0] {
        check_all(&cg, &[("k", k)]);
    }
}

#[test]
fn counted_loop() {
    let cg = structured_program(&[
        S::Do(
            "i",
            "1",
            "n",
            vec![S::Set("y", "(add (mul y x) (sin v[i]))")],
        ),
        S::Set("z", "(mul y y)"),
    ]);
    check_all(&cg, &[("n", 3.0)]);
    // Zero trips.
    check_all(&cg, &[("n", 0.0)]);
}

#[test]
fn branch_inside_loop_inside_branch() {
    let cg = structured_program(&[
        S::If(
            "(gt x 0.0d0)",
            vec![S::Do(
                "i",
                "1",
                "n",
                vec![
                    S::If(
                        "(gt v[i] 0.8d0)",
                        vec![S::Set("y", "(mul y v[i])")],
                        vec![S::Set("v[i]", "(mul v[i] x)")],
                    ),
                    S::Set("z", "(add z (mul y 0.1d0))"),
                    S::Do("j", "1", "i", vec![S::Set("a", "(mul a (cos v[j]))")]),
                ],
            )],
            vec![S::Set("y", "(neg y)")],
        ),
        S::While(
            "(lt k n)",
            vec![
                S::Set("k", "(iadd k 1)"),
                S::Set("b", "(mul b (add a 1.0d0))"),
            ],
        ),
    ]);
    check_all(&cg, &[("x", 0.5), ("n", 4.0)]);
    check_all(&cg, &[("x", -0.5), ("n", 4.0)]);
}

/// `k = 0; 10 y = y*x; k = k+1; if (y > 2 .or. k >= n) goto 20; goto 10;
/// 20 z = z*y` as a graph with a label and gotos.
fn goto_loop(structured: bool) -> CallGraph {
    let mut b = CfgBuilder::new();
    let entry = b.plain(ControlFlowVertex::Entry);
    let init = b.block(&[("k", "0"), ("a", "(mul a b)")]);
    let label = b.plain(ControlFlowVertex::Label);
    let body = b.block(&[
        ("y", "(mul y x)"),
        ("k", "(iadd k 1)"),
        ("v[k]", "(mul v[k] y)"),
    ]);
    let id = b.id();
    let test = b.vertex(ControlFlowVertex::If(ConditionVertex {
        vertex_id: id.into(),
        annotation: Default::default(),
        line_number: 0,
        condition: Some(expr("(or (gt y 2.0d0) (ge k n))")),
    }));
    let back = b.plain(ControlFlowVertex::Goto);
    let after = b.block(&[("z", "(mul z y)")]);
    let exit = b.plain(ControlFlowVertex::Exit);
    b.edge(&entry, &init, None);
    b.edge(&init, &label, None);
    b.edge(&label, &body, None);
    b.edge(&body, &test, None);
    b.edge(&test, &after, Some(1));
    b.edge(&test, &back, Some(0));
    b.edge(&back, &label, None);
    b.edge(&after, &exit, None);
    program_with(b.vertices, b.edges, structured)
}

#[test]
fn loop_with_goto_exit_in_unstructured_graph() {
    for structured in [false, true] {
        let cg = goto_loop(structured);
        let (_, sections) = adjoint_of(&cg, Preaccumulation::Auto);
        assert!(!sections.tape.structured);
        // Leaves after y exceeds 2 or after n trips.
        check_all(&cg, &[("x", 1.5), ("y", 0.5), ("n", 4.0)]);
        check_all(&cg, &[("x", 1.1), ("y", 0.5), ("n", 3.0)]);
    }
}

/// `do i = 1, n; if (y > 2) exit; y = y*x; v(i) = v(i)*y; end do; z = z*y`
/// in the front end's shape (the exit a goto to a label after the loop);
/// with `arm_statement`, the exit's arm first sets `y = y*a`.
fn leading_exit_loop(arm_statement: bool) -> CallGraph {
    let mut b = CfgBuilder::new();
    let entry = b.plain(ControlFlowVertex::Entry);
    let init = b.block(&[("a", "(mul a b)")]);
    let id = b.id();
    let lo = b.assignment("i", "1");
    let step = b.assignment("i", "(iadd i 1)");
    let lp = b.vertex(ControlFlowVertex::ForLoop(Box::new(ForLoop {
        vertex_id: id.into(),
        annotation: Default::default(),
        line_number: 0,
        reversal: ForLoopReversal::Anonymous,
        initialization: Some(lo),
        condition: Some(expr("(le i n)")),
        update: Some(step),
    })));
    let top = b.block(&[]);
    let id = b.id();
    let test = b.vertex(ControlFlowVertex::If(ConditionVertex {
        vertex_id: id.into(),
        annotation: Default::default(),
        line_number: 0,
        condition: Some(expr("(gt y 2.0d0)")),
    }));
    let leave = if arm_statement {
        b.block(&[("y", "(mul y a)")])
    } else {
        b.block(&[])
    };
    let goto = b.plain(ControlFlowVertex::Goto);
    let stay = b.block(&[]);
    let join = b.plain(ControlFlowVertex::EndBranch);
    let body = b.block(&[("y", "(mul y x)"), ("v[i]", "(mul v[i] y)")]);
    let end = b.plain(ControlFlowVertex::EndLoop);
    let label = b.plain(ControlFlowVertex::Label);
    let after = b.block(&[("z", "(mul z y)")]);
    let exit = b.plain(ControlFlowVertex::Exit);
    b.edge(&entry, &init, None);
    b.edge(&init, &lp, None);
    b.edge(&lp, &top, Some(1));
    b.edge(&top, &test, None);
    b.edge(&test, &leave, Some(1));
    b.edge(&leave, &goto, None);
    b.edge(&goto, &label, None);
    b.edge(&test, &stay, Some(0));
    b.edge(&stay, &join, None);
    b.edge(&join, &body, None);
    b.edge(&body, &end, None);
    b.edge(&end, &lp, None);
    b.edge(&lp, &label, Some(0));
    b.edge(&label, &after, None);
    b.edge(&after, &exit, None);
    program_with(b.vertices, b.edges, false)
}

#[test]
fn leading_loop_exit_reverses_as_a_counted_loop() {
    let cg = leading_exit_loop(false);
    let (_, sections) = adjoint_of(&cg, Preaccumulation::Auto);
    assert!(sections.tape.structured, "a leading exit nests");
    // Left at the top of trip 3 (y passes 2 in trip 2), after all n
    // trips, and at the top of trip 1.
    check_all(&cg, &[("x", 1.5), ("y", 1.0), ("n", 5.0)]);
    check_all(&cg, &[("x", 1.1), ("y", 0.5), ("n", 3.0)]);
    check_all(&cg, &[("x", 1.1), ("y", 2.5), ("n", 3.0)]);
}

#[test]
fn loop_exit_from_an_arm_with_a_statement_is_recorded_by_blocks() {
    let cg = leading_exit_loop(true);
    let (_, sections) = adjoint_of(&cg, Preaccumulation::Auto);
    assert!(
        !sections.tape.structured,
        "the arm's statement runs on the way out"
    );
    check_all(
        &cg,
        &[("x", 1.5), ("y", 1.0), ("n", 5.0), ("a", 0.7), ("b", 1.2)],
    );
    check_all(
        &cg,
        &[("x", 1.1), ("y", 2.5), ("n", 3.0), ("a", 0.7), ("b", 1.2)],
    );
}

#[test]
fn passive_graphs_stay_control_flow_graphs() {
    let mut cg = structured_program(&[S::Set("y", "(mul x x)")]);
    if let CallGraphVertex::ControlFlowGraph(c) = &mut cg.vertices[0] {
        c.active = false;
    }
    let (out, _) = {
        let mut out = cg.clone();
        transform_adjoint(&mut out, &Catalogue::builtin().unwrap()).unwrap();
        (out, ())
    };
    assert_eq!(out.vertices, cg.vertices);
}

#[test]
fn temporaries_are_declared_in_the_graph_scope() {
    let cg = structured_program(&[
        S::Do("i", "1", "n", vec![S::Set("v[i]", "(mul v[i] x)")]),
        S::If("(gt x 0.5d0)", vec![S::Set("v[n]", "(mul v[m] x)")], vec![]),
    ]);
    let (out, _) = adjoint_of(&cg, Preaccumulation::Auto);
    let scope = &out.scope_hierarchy.scopes[1].symbol_tables[0].symbols;
    let temp = |n: &str| scope.iter().find(|s| s.symbol_id == n).cloned();
    for n in ["oad_ctr_1", "oad_rctr_1", "oad_branch", "oad_idx_1"] {
        let s = temp(n).unwrap_or_else(|| panic!("no symbol {n}"));
        assert!(s.temp && !s.active);
        assert_eq!(s.type_, SymbolType::Integer, "{n}");
    }
    let jac = temp("oad_jac_1").expect("oad_jac_1");
    assert_eq!(jac.type_, SymbolType::Real);
    let copy = temp("oad_adj_1").expect("oad_adj_1 (v(n) = v(m)*x)");
    assert!(copy.active && copy.temp);
}

#[test]
fn array_valued_active_reference_is_a_named_error() {
    let mut cg = structured_program(&[S::Set("y", "(mul x x)")]);
    if let CallGraphVertex::ControlFlowGraph(c) = &mut cg.vertices[0] {
        if let ControlFlowVertex::BasicBlock(b) = &mut c.vertices[1] {
            if let BasicBlockElement::Assignment(a) = &mut b.elements[0] {
                a.rhs = expr("(mul v x)");
            }
        }
    }
    let err = transform_adjoint(&mut cg, &Catalogue::builtin().unwrap()).unwrap_err();
    assert_eq!(err.statement_id.as_deref(), Some("s1"));
    assert!(err.message.contains("array"), "{}", err.message);
}

/// `foo(fa, fs)` called in a loop with array elements as arguments: the
/// callee tapes its own branch and Jacobian entries between the caller's
/// pushes, and the caller's subscripts must come back after the callee's
/// reverse sweep has popped its own.
#[test]
fn calls_with_subscripted_arguments() {
    let callee = [
        S::If(
            "(gt fs 0.5d0)",
            vec![S::Set("fa", "(add (mul fa (sin fs)) (mul fa fa))")],
            vec![S::Set("fa", "(mul fa fs)")],
        ),
        S::Set("ft", "(mul (mul fa fs) gw)"),
        S::Set("fa", "(add fa ft)"),
        S::Set("fs", "(mul fs 0.9d0)"),
    ];
    let cg = program_with_callee(
        &[
            S::Do(
                "i",
                "1",
                "n",
                vec![
                    S::Call("foo", vec!["v[i]", "x"]),
                    S::Set("y", "(add y (mul v[i] x))"),
                    S::Set("gw", "(add (mul gw x) 0.1d0)"),
                ],
            ),
            S::Call("foo", vec!["v[(iadd n 1)]", "z"]),
            S::Set("y", "(mul y v[(iadd n 1)])"),
        ],
        "foo",
        &["fa", "fs"],
        &["ft"],
        &callee,
    );
    check_all(&cg, &[("n", 3.0), ("x", 0.8)]);
    check_all(&cg, &[("n", 2.0), ("x", 0.3), ("z", 0.9)]);
}

// ---------------------------------------------------------------------------
// Loop-invariant Jacobian entries (hoist.rs) and untaped bound inquiries
// ---------------------------------------------------------------------------

/// `do i = 1, n` around `body`.
fn in_loop(body: Vec<S>) -> CallGraph {
    structured_program(&[S::Do("i", "1", "n", body)])
}

/// Reals and integers on the tapes after the forward sweep (split mode).
fn forward_tape(cg: &CallGraph, point: &[(&str, f64)]) -> (usize, usize) {
    let (_, sections) = adjoint_of(cg, Preaccumulation::Statement);
    let mut m = Machine {
        v: state(point),
        subroutines: sections.tape_subs.clone(),
        ..Machine::default()
    };
    m.run(&sections.tape.vertices, &sections.tape.edges);
    (m.real_tape.len(), m.int_tape.len())
}

/// Reals pushed by the forward sweep at each of `points`.
fn reals_pushed(cg: &CallGraph, points: &[&[(&str, f64)]]) -> Vec<usize> {
    points.iter().map(|p| forward_tape(cg, p).0).collect()
}

/// `p` set before the loop: the entries `p/q` (of `v(i)`), `p` (of `x`)
/// and `cos(z)` are the same in every iteration; `y` (of `v(i)`'s
/// statement) is not. Pushed: the loop's own per-iteration entries only,
/// plus the three invariant ones once.
#[test]
fn invariant_factor_taped_once_per_loop_execution() {
    let cg = structured_program(&[
        S::Set("p", "(mul q 1.3d0)"),
        S::Do(
            "i",
            "1",
            "n",
            vec![
                S::Set("v[i]", "(mul v[i] (div p q))"),
                S::Set("y", "(add y (mul p x))"),
                S::Set("z", "(mul x (sin z))"),
                S::Set("b", "(add b (mul (sin a) y))"),
            ],
        ),
        S::Set("a", "(mul a y)"),
    ]);
    for n in [0.0, 1.0, 3.0] {
        check_all(&cg, &[("n", n)]);
    }
    // Invariant: p/q, p, cos(a) (a is set after the loop only). Variant
    // (z, y change in the loop): sin(z) and x*cos(z) of z's statement, y
    // of b's statement.
    let pushed = reals_pushed(&cg, &[&[("n", 1.0)], &[("n", 3.0)], &[("n", 4.0)]]);
    assert_eq!(pushed[2] - pushed[1], 3, "per iteration: {pushed:?}");
    assert_eq!(pushed[1] - pushed[0], 6, "per iteration: {pushed:?}");
    // n = 1: 3 variant + 3 invariant + 2 entries of `a = a*y`.
    assert_eq!(pushed[0], 8, "{pushed:?}");
    // No trips: the hoisted values are neither pushed nor popped.
    assert_eq!(reals_pushed(&cg, &[&[("n", 0.0)]]), vec![2]);
    // `--stats`: the body block pushes 3 per execution, the loop 3 per
    // execution of the loop (a line named by the loop vertex).
    let mut out = cg.clone();
    let stats = transform_adjoint(&mut out, &Catalogue::builtin().unwrap()).unwrap();
    let cfg = original_cfg(&cg);
    let id_of = |pred: fn(&ControlFlowVertex) -> bool| {
        cfg.vertices
            .iter()
            .find(|v| pred(v))
            .map(|v| v.vertex_id().to_string())
            .unwrap()
    };
    let loop_id = id_of(|v| matches!(v, ControlFlowVertex::ForLoop(_)));
    let line = |id: &str| stats.iter().find(|b| b.block == id).map(|b| b.tape.reals);
    assert_eq!(line(&loop_id), Some(3), "{stats:?}");
    let body = cfg
        .edges
        .iter()
        .find(|e| e.source == loop_id && e.has_condition_value && e.condition_value == 1)
        .map(|e| e.target.clone())
        .unwrap();
    assert_eq!(line(&body), Some(3), "{stats:?}");
}

/// Nested loops: `p` changes in the outer loop only, `q` in neither: the
/// entry `p` is pushed once per inner loop execution, `q` once per run.
#[test]
fn nested_loops_hoist_to_the_outermost_invariant_loop() {
    let cg = structured_program(&[S::Do(
        "j",
        "1",
        "m",
        vec![
            S::Set("p", "(add p 0.5d0)"),
            S::Do(
                "i",
                "1",
                "n",
                vec![
                    S::Set("y", "(add (mul y p) v[i])"),
                    S::Set("z", "(mul z q)"),
                ],
            ),
        ],
    )]);
    for (m, n) in [(2.0, 3.0), (1.0, 1.0), (0.0, 2.0), (2.0, 0.0), (3.0, 2.0)] {
        check_all(&cg, &[("m", m), ("n", n)]);
    }
    let pushed = reals_pushed(
        &cg,
        &[
            &[("m", 2.0), ("n", 2.0)],
            &[("m", 2.0), ("n", 4.0)],
            &[("m", 5.0), ("n", 3.0)],
        ],
    );
    // Independent of n; one per outer iteration (p) and one per run (q).
    assert_eq!(pushed[0], 2 + 1, "{pushed:?}");
    assert_eq!(pushed[1], pushed[0], "{pushed:?}");
    assert_eq!(pushed[2], 5 + 1, "{pushed:?}");
}

/// A statement under a branch inside a loop may run in no iteration: its
/// entries are not hoisted out of that loop (one push per loop execution
/// could tape more than the pushes it replaces), only out of a loop inside
/// the branch.
#[test]
fn entries_under_a_branch_stay_inside_the_loop() {
    let cg = structured_program(&[S::Do(
        "j",
        "1",
        "m",
        vec![S::If(
            "(gt x 0.0d0)",
            vec![
                S::Set("y", "(mul y q)"),
                S::Do("i", "1", "n", vec![S::Set("z", "(mul z p)")]),
            ],
            vec![S::Set("b", "(mul b 2.0d0)")],
        )],
    )]);
    for x in [0.5, -0.5] {
        for (m, n) in [(3.0, 2.0), (2.0, 0.0), (0.0, 1.0)] {
            check_all(&cg, &[("x", x), ("m", m), ("n", n)]);
        }
    }
    // Per outer iteration: q, and p once per inner loop execution.
    let pushed = reals_pushed(
        &cg,
        &[
            &[("x", 0.5), ("m", 2.0), ("n", 1.0)],
            &[("x", 0.5), ("m", 2.0), ("n", 4.0)],
            &[("x", 0.5), ("m", 3.0), ("n", 4.0)],
            &[("x", -0.5), ("m", 3.0), ("n", 4.0)],
        ],
    );
    assert_eq!(pushed, vec![4, 4, 6, 0]);
}

/// The factor's variable is assigned in the loop: taped per iteration.
#[test]
fn factor_assigned_in_the_loop_is_not_hoisted() {
    let cg = in_loop(vec![
        S::Set("y", "(mul y p)"),
        S::Set("p", "(add p 0.25d0)"),
    ]);
    for n in [0.0, 1.0, 4.0] {
        check_all(&cg, &[("n", n)]);
    }
    let pushed = reals_pushed(&cg, &[&[("n", 2.0)], &[("n", 5.0)]]);
    assert_eq!(pushed[1] - pushed[0], 3, "{pushed:?}");
    // Also when the assignment comes in an inner loop or a branch.
    let cg = in_loop(vec![
        S::Set("y", "(mul y p)"),
        S::If(
            "(gt y 0.0d0)",
            vec![S::Do("j", "1", "2", vec![S::Set("p", "(mul p 1.01d0)")])],
            vec![],
        ),
    ]);
    check_all(&cg, &[("n", 3.0)]);
    let pushed = reals_pushed(&cg, &[&[("n", 2.0)], &[("n", 5.0)]]);
    assert_eq!(pushed[1] - pushed[0], 3, "{pushed:?}");
    // The loop's own index and an inner loop's index change in the loop.
    let cg = in_loop(vec![
        S::Set("y", "(mul y i)"),
        S::Do("j", "1", "2", vec![S::Set("z", "(mul z j)")]),
    ]);
    check_all(&cg, &[("n", 3.0)]);
    let pushed = reals_pushed(&cg, &[&[("n", 2.0)], &[("n", 5.0)]]);
    assert_eq!(pushed[1] - pushed[0], 3 * 3, "{pushed:?}");
}

/// A call in the loop may change anything (here the callee changes
/// nothing the factor reads, yet the rule holds): `q` is taped per
/// iteration.
#[test]
fn loop_with_a_call_hoists_nothing() {
    let callee = [S::Set("fa", "(mul fa fs)")];
    let cg = program_with_callee(
        &[S::Do(
            "i",
            "1",
            "n",
            vec![S::Set("y", "(mul y q)"), S::Call("foo", vec!["v[i]", "x"])],
        )],
        "foo",
        &["fa", "fs"],
        &[],
        &callee,
    );
    for n in [0.0, 2.0, 3.0] {
        check_all(&cg, &[("n", n)]);
    }
    // Per iteration: q, and the callee's fs and fa.
    let pushed = reals_pushed(&cg, &[&[("n", 2.0)], &[("n", 3.0)]]);
    assert_eq!(pushed[1] - pushed[0], 3, "{pushed:?}");
}

/// An array element with a constant subscript is invariant when the loop
/// assigns no element of the array; with a variable subscript it is taped
/// per iteration (the rule admits literal subscripts only).
#[test]
fn constant_subscript_element_is_hoisted() {
    let cg = in_loop(vec![S::Set("y", "(add (mul y v[2]) (sin z))")]);
    for n in [0.0, 1.0, 3.0] {
        check_all(&cg, &[("n", n)]);
    }
    // Per iteration only `y` (the entry of v(2)); v(2) and cos(z) once.
    let pushed = reals_pushed(&cg, &[&[("n", 2.0)], &[("n", 5.0)]]);
    assert_eq!(pushed[1] - pushed[0], 3, "{pushed:?}");
    assert_eq!(pushed[0], 2 + 2, "{pushed:?}");
    let cg = in_loop(vec![S::Set("y", "(add (mul y v[k]) (sin z))")]);
    check_all(&cg, &[("n", 3.0), ("k", 3.0)]);
    let pushed = reals_pushed(&cg, &[&[("n", 2.0)], &[("n", 5.0)]]);
    assert_eq!(pushed[1] - pushed[0], 3 * 2, "{pushed:?}");
    // The array assigned in the loop: v(2) is not invariant.
    let cg = in_loop(vec![
        S::Set("y", "(mul y v[2])"),
        S::Set("v[i]", "(mul v[i] 0.5d0)"),
    ]);
    check_all(&cg, &[("n", 3.0)]);
    let pushed = reals_pushed(&cg, &[&[("n", 2.0)], &[("n", 4.0)]]);
    assert_eq!(pushed[1] - pushed[0], 2 * 2, "{pushed:?}");
}

/// Two statements with the same invariant entry share one push.
#[test]
fn equal_invariant_values_are_pushed_once() {
    let cg = in_loop(vec![
        S::Set("y", "(add y (mul (div p q) x))"),
        S::Set("z", "(sub z (mul (div p q) x))"),
    ]);
    check_all(&cg, &[("n", 3.0)]);
    check_all(&cg, &[("n", 0.0)]);
    // The entries of x, p/q and -(p/q): one push for both statements.
    let pushed = reals_pushed(&cg, &[&[("n", 2.0)], &[("n", 5.0)]]);
    assert_eq!(pushed, vec![1, 1]);
}

/// `u(i) = w(lbound(w,1) + (i - 1))`, the front end's scalarised copy:
/// the subscript reads only the restored index and a bound inquiry, so it
/// is not taped; on a pointer array it is.
#[test]
fn bound_inquiry_subscripts_are_not_taped() {
    let cg = structured_program(&[
        S::Do(
            "i",
            "1",
            "n",
            vec![S::Set(
                "v[(iadd (lbound v 1) (isub i 1))]",
                "(mul v[(isub (iadd (ubound v 1) 1) i)] x)",
            )],
        ),
        S::Set("y", "(mul y v[(size v)])"),
    ]);
    for n in [0.0, 2.0, 4.0] {
        check_all(&cg, &[("n", n)]);
    }
    let ints = |cg: &CallGraph, n: f64| forward_tape(cg, &[("n", n)]).1;
    // The loop's start and trip count only.
    assert_eq!(ints(&cg, 1.0), ints(&cg, 4.0));
    let mut pointer = cg.clone();
    for t in &mut pointer.scope_hierarchy.scopes[1].symbol_tables {
        for sym in &mut t.symbols {
            if sym.symbol_id == "v" {
                sym.pointer = true;
            }
        }
    }
    check_all(&pointer, &[("n", 3.0)]);
    // Two subscripts per iteration.
    assert_eq!(ints(&pointer, 4.0) - ints(&pointer, 1.0), 2 * 3);
}

/// `v(i) = v(i) * v(m + 1)` in a loop: with `m` a named constant
/// (`Symbol/@annotation="constant"`) the subscript `m + 1` is not taped;
/// as a plain variable it is pushed every iteration.
#[test]
fn named_constant_subscripts_are_not_taped() {
    let plain = structured_program(&[S::Do(
        "i",
        "1",
        "n",
        vec![S::Set("v[i]", "(mul v[i] (mul v[(iadd m 1)] x))")],
    )]);
    let mut constant = plain.clone();
    for t in &mut constant.scope_hierarchy.scopes[1].symbol_tables {
        for sym in &mut t.symbols {
            if sym.symbol_id == "m" {
                sym.annotation = xaif_schema::model::CONSTANT_ANNOTATION.into();
            }
        }
    }
    for cg in [&plain, &constant] {
        for n in [0.0, 3.0] {
            check_all(cg, &[("n", n), ("m", 1.0)]);
        }
    }
    let ints = |cg: &CallGraph, n: f64| forward_tape(cg, &[("n", n), ("m", 1.0)]).1;
    assert_eq!(ints(&constant, 1.0), ints(&constant, 4.0));
    assert_eq!(ints(&plain, 4.0) - ints(&plain, 1.0), 3);
}

// ---------------------------------------------------------------------------
// Random blocks (fixed seeds): flattened runs with overwrites, reuse of
// assigned values and possibly aliased elements, alone, in a loop (where
// entries built from `p` are hoisted) and under a branch.
// ---------------------------------------------------------------------------

/// Variables the random right-hand sides read (`p` and `q` passive).
const RANDOM_USES: &[&str] = &["x", "y", "z", "a", "b", "p", "q", "v[n]", "v[m]", "v[1]"];

fn leak(s: String) -> &'static str {
    Box::leak(s.into_boxed_str())
}

fn random_block(rng: &mut xaif_testkit::random::Lcg) -> Vec<S> {
    const TARGETS: &[&str] = &["x", "y", "z", "a", "b", "v[n]", "v[m]", "v[2]"];
    let len = 2 + rng.next() % 6;
    (0..len)
        .map(|_| {
            // Mostly bounded right-hand sides, so that loops stay tame.
            let rhs = xaif_testkit::random::expression(rng, 3, RANDOM_USES, false);
            let rhs = if rng.next().is_multiple_of(3) {
                rhs
            } else {
                format!("(tanh {rhs})")
            };
            S::Set(rng.pick(TARGETS), leak(rhs))
        })
        .collect()
}

#[test]
fn random_blocks_in_every_preaccumulation() {
    let mut rng = xaif_testkit::random::Lcg(2026);
    for case in 0..40 {
        let block = random_block(&mut rng);
        let program = match case % 3 {
            0 => block,
            1 => vec![S::Do("i", "1", "2", block)],
            _ => vec![S::If("(gt x 0.5d0)", block, vec![S::Set("y", "(mul y p)")])],
        };
        let cg = structured_program(&program);
        eprintln!("random case {case}: {program:?}");
        check(&cg, &[("n", 1.0), ("m", 3.0)], case);
        check(&cg, &[("n", 2.0), ("m", 2.0)], case + 100);
    }
}

/// Array snapshots (`array_snapshots.rs`): a loop that only reads `v` replays
/// its recomputed runs from a copy of `v` pushed once after the loop and
/// popped before the reversed loop (the numbers are checked in every
/// partials mode by `check_all`, recomputation forced included); a loop
/// that writes `v` takes no snapshot of it.
#[test]
fn loop_reading_an_array_replays_from_its_snapshot() {
    let reads = structured_program(&[S::Do(
        "i",
        "2",
        "n",
        vec![
            S::Set("x", "(div v[(isub i 1)] v[i])"),
            S::Set("y", "(add y (mul x (mul v[(iadd i 1)] x)))"),
        ],
    )]);
    for n in [3.0, 2.0, 1.0] {
        check_all(&reads, &[("n", n)]);
    }
    let (out, _) = adjoint_with(&reads, Preaccumulation::Auto, Partials::Recomputed);
    let text = format!("{out:?}");
    assert!(text.contains("oad_snap_push") && text.contains("oad_snap_pop"));

    let writes = structured_program(&[S::Do(
        "i",
        "2",
        "n",
        vec![
            S::Set("x", "(div v[(isub i 1)] v[i])"),
            S::Set("v[i]", "(mul x x)"),
        ],
    )]);
    for n in [3.0, 1.0] {
        check_all(&writes, &[("n", n)]);
    }
    let (out, _) = adjoint_with(&writes, Preaccumulation::Auto, Partials::Recomputed);
    assert!(!format!("{out:?}").contains("oad_snap_push"));
}

/// To-be-recorded analysis on array elements (`later_writes.rs`): a loop
/// over `t` that writes `v(t+1)` after reading `v(t-1)` and `v(t)` never
/// overwrites, in the same or a later iteration, an element it read, so the
/// reads come from a copy of `v` taped after the loop. One that writes
/// `v(t-1)` (read earlier in the same iteration) or `v(t)` (read by this
/// iteration and, as `v(t-1)`, by the next) may not take one. The
/// numbers are checked in every partials mode (recomputation forced
/// included, where a too-eager rule would replay overwritten values).
#[test]
fn loop_writing_other_elements_replays_from_a_snapshot_only_when_no_read_is_overwritten() {
    let program = |lhs: &'static str| {
        structured_program(&[S::Do(
            "t",
            "2",
            "n",
            vec![
                S::Set("x", "(div v[(isub t 1)] (add v[t] 2.0d0))"),
                S::Set(lhs, "(add (mul x (mul v[t] y)) v[(isub t 1)])"),
            ],
        )])
    };
    let snapshot = |cg: &CallGraph| {
        let (out, _) = adjoint_with(cg, Preaccumulation::Auto, Partials::Recomputed);
        format!("{out:?}").contains("oad_snap_push")
    };
    // Later elements only: snapshot.
    let later = program("v[(iadd t 1)]");
    for n in [3.0, 2.0, 1.0] {
        check_all(&later, &[("n", n)]);
    }
    assert!(snapshot(&later));
    // The element this iteration read, and the one the previous read.
    for lhs in ["v[(isub t 1)]", "v[t]"] {
        let overwrites = program(lhs);
        for n in [4.0, 3.0, 1.0] {
            check_all(&overwrites, &[("n", n)]);
        }
        assert!(!snapshot(&overwrites), "{lhs}");
    }
}
