//! Operation-count benchmark of the elimination heuristics.
//!
//! `cargo run --release -p xaif-booster --bin elimination-bench [-- --quick]`
//!
//! A fixed, seeded set of random DAGs (10–200 vertices): multiplications of
//! forward, reverse and Markowitz vertex elimination, the best-of drivers
//! (vertex, edge, face, all), and the branch-and-bound vertex optimum where
//! it is proven within the node budget; then the time to eliminate a
//! 1,000-vertex graph.

use std::time::{Duration, Instant};

use xaif_booster::elimination::random::{random_graph, RandomGraphConfig};
use xaif_booster::elimination::*;

struct Row {
    vertices: usize,
    intermediates: usize,
    forward: usize,
    reverse: usize,
    markowitz: usize,
    best_vertex: usize,
    best_edge: usize,
    best_face: usize,
    best_all: usize,
    optimum: Option<usize>,
}

fn cost(g: &LinearizedGraph, method: Method, chain: &str, model: CostModel) -> usize {
    let e = eliminate(g, method, &chain.parse().expect("valid chain")).expect("elimination");
    model.multiplications(&e.counts)
}

fn best(g: &LinearizedGraph, methods: &[Method], model: CostModel) -> usize {
    let mut cands = default_candidates(methods);
    cands.retain(|c| methods.contains(&c.method));
    model.multiplications(&best_of(g, &cands, model).expect("best-of").counts)
}

fn suite(
    title: &str,
    sizes: &[usize],
    seed: u64,
    unit_probability: f64,
    model: CostModel,
    quick: bool,
) {
    let mut rows = Vec::new();
    for (k, &n) in sizes.iter().enumerate() {
        let cfg = RandomGraphConfig {
            unit_probability,
            non_maximal_dependents: 0.05,
            ..RandomGraphConfig::new(n)
        };
        let g = random_graph(seed + k as u64, &cfg);
        let intermediates = Eliminator::new(&g)
            .expect("graph")
            .intermediate_vertices()
            .len();
        let limit = SearchLimit {
            max_intermediates: 24,
            max_nodes: if quick { 100_000 } else { 1_000_000 },
            ..SearchLimit::default()
        };
        let optimum = optimal_vertex_elimination(&g, model, limit)
            .expect("graph")
            .filter(|o| o.proven)
            .map(|o| o.cost);
        rows.push(Row {
            vertices: n,
            intermediates,
            forward: cost(&g, Method::Vertex, "forward", model),
            reverse: cost(&g, Method::Vertex, "reverse", model),
            markowitz: cost(&g, Method::Vertex, "markowitz", model),
            best_vertex: best(&g, &[Method::Vertex], model),
            best_edge: best(&g, &[Method::Edge], model),
            best_face: best(&g, &[Method::Face], model),
            best_all: model.multiplications(
                &best_of(
                    &g,
                    &default_candidates(&[Method::Vertex, Method::Edge, Method::Face]),
                    model,
                )
                .expect("best-of")
                .counts,
            ),
            optimum,
        });
    }
    println!("## {title}\n");
    println!("| V | Z | forward | reverse | markowitz | best vertex | best edge | best face | best all | optimum vertex |");
    println!("|---|---|---|---|---|---|---|---|---|---|");
    for r in &rows {
        let opt = r
            .optimum
            .map(|o| o.to_string())
            .unwrap_or_else(|| "–".into());
        println!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            r.vertices,
            r.intermediates,
            r.forward,
            r.reverse,
            r.markowitz,
            r.best_vertex,
            r.best_edge,
            r.best_face,
            r.best_all,
            opt
        );
    }
    let total = |f: &dyn Fn(&Row) -> usize, only_opt: bool| -> usize {
        rows.iter()
            .filter(|r| !only_opt || r.optimum.is_some())
            .map(f)
            .sum()
    };
    type Column<'a> = (&'a str, Box<dyn Fn(&Row) -> usize>);
    let cols: Vec<Column> = vec![
        ("forward", Box::new(|r: &Row| r.forward)),
        ("reverse", Box::new(|r: &Row| r.reverse)),
        ("markowitz", Box::new(|r: &Row| r.markowitz)),
        ("best vertex", Box::new(|r: &Row| r.best_vertex)),
        ("best edge", Box::new(|r: &Row| r.best_edge)),
        ("best face", Box::new(|r: &Row| r.best_face)),
        ("best all", Box::new(|r: &Row| r.best_all)),
    ];
    let with_opt = rows.iter().filter(|r| r.optimum.is_some()).count();
    let opt_total = total(&|r: &Row| r.optimum.unwrap_or(0), true);
    println!("\nTotals over all {} graphs, and over the {with_opt} graphs with a proven optimum ({opt_total} multiplications):\n", rows.len());
    println!("| method | total | total (optimum subset) | vs optimum |");
    println!("|---|---|---|---|");
    for (name, f) in &cols {
        let sub = total(f.as_ref(), true);
        let ratio = if opt_total > 0 {
            format!("{:+.2}%", 100.0 * (sub as f64 / opt_total as f64 - 1.0))
        } else {
            "–".into()
        };
        println!(
            "| {name} | {} | {sub} | {ratio} |",
            total(f.as_ref(), false)
        );
    }
    let worse = rows
        .iter()
        .filter(|r| r.best_all > r.forward.min(r.reverse))
        .count();
    println!("\nGraphs where best-of (all) is worse than forward or reverse: {worse}\n");
}

/// CPU seconds of this process (user + system) from /proc, if available:
/// robust against other processes competing for the cores.
fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    let after_name = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = after_name.split_whitespace().collect();
    let ticks: f64 = fields.get(11)?.parse::<f64>().ok()? + fields.get(12)?.parse::<f64>().ok()?;
    Some(ticks / 100.0) // USER_HZ is 100 on Linux
}

/// Repeat for at least ~1 s of wall time (at most `max_runs`); report the
/// fastest wall time and the CPU time per run.
fn time_it(label: &str, max_runs: usize, mut f: impl FnMut() -> usize) {
    let mut fastest = Duration::MAX;
    let mut muls = 0;
    let (start, cpu_start) = (Instant::now(), cpu_seconds());
    let mut runs = 0;
    while runs < max_runs && (runs == 0 || start.elapsed() < Duration::from_secs(1)) {
        let t = Instant::now();
        muls = f();
        fastest = fastest.min(t.elapsed());
        runs += 1;
    }
    let cpu = match (cpu_start, cpu_seconds()) {
        (Some(a), Some(b)) => format!("{:.1}", (b - a) * 1e3 / runs as f64),
        _ => "–".into(),
    };
    println!(
        "| {label} | {:.1} | {cpu} | {runs} | {muls} |",
        fastest.as_secs_f64() * 1e3
    );
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    // `--only METHOD:CHAIN` (e.g. `face:relative-markowitz,forward`): time one
    // sequence on the 1,000-vertex graph, for profiling
    if let Some(k) = args.iter().position(|a| a == "--only") {
        let spec = args.get(k + 1).expect("--only METHOD:CHAIN");
        let (method, chain) = spec.split_once(':').expect("--only METHOD:CHAIN");
        let method: Method = method.parse().expect("method");
        let g = timing_graph();
        time_it(spec, 200, || {
            cost(&g, method, chain, CostModel::Multiplications)
        });
        return;
    }
    let quick = std::env::args().any(|a| a == "--quick");
    let timing_only = std::env::args().any(|a| a == "--timing" || a == "--best-of-timing");
    if !timing_only {
        suites(quick);
    }
    // `--best-of-timing`: only the best-of lines of the timing table
    timing(!std::env::args().any(|a| a == "--best-of-timing"));
}

fn suites(quick: bool) {
    let small: Vec<usize> = if quick {
        vec![10, 15, 20]
    } else {
        (0..40).map(|k| 10 + k / 2).collect()
    };
    let sizes: Vec<usize> = if quick {
        vec![10, 40, 80]
    } else {
        (1..=20).map(|k| 10 * k).collect()
    };
    suite(
        "Small random DAGs (10–29 vertices), no unit labels",
        &small,
        500,
        0.0,
        CostModel::Multiplications,
        quick,
    );
    suite(
        "Small random DAGs (10–29 vertices), 25% structural ±1 labels (unit products free)",
        &small,
        700,
        0.25,
        CostModel::Multiplications,
        quick,
    );
    suite(
        "Random DAGs (10–200 vertices), no unit labels",
        &sizes,
        1000,
        0.0,
        CostModel::Multiplications,
        quick,
    );
    suite(
        "Random DAGs (10–200 vertices), 25% structural ±1 labels (unit products free)",
        &sizes,
        2000,
        0.25,
        CostModel::Multiplications,
        quick,
    );
}

/// The 1,000-vertex timing graph.
fn timing_graph() -> LinearizedGraph {
    random_graph(
        4242,
        &RandomGraphConfig {
            unit_probability: 0.25,
            ..RandomGraphConfig::new(1000)
        },
    )
}

fn timing(per_chain: bool) {
    let g = timing_graph();
    println!(
        "## Time to eliminate a 1,000-vertex graph ({} edges), repeated for ~1 s\n",
        g.edge_count()
    );
    println!("| what | fastest wall ms | CPU ms per run | runs | multiplications |");
    println!("|---|---|---|---|---|");
    let runs = 50;
    let chains = if per_chain {
        default_candidates(&[Method::Vertex, Method::Edge, Method::Face])
    } else {
        Vec::new()
    };
    for cand in chains {
        let chain = cand.chain.to_string();
        time_it(&format!("{} {chain}", cand.method), runs, || {
            cost(&g, cand.method, &chain, CostModel::Multiplications)
        });
    }
    time_it("best-of vertex (all vertex chains)", runs, || {
        best(&g, &[Method::Vertex], CostModel::Multiplications)
    });
    let recommended = recommended_candidates(&g);
    time_it(
        &format!("best-of recommended ({} candidates)", recommended.len()),
        runs,
        || {
            best_of(&g, &recommended, CostModel::Multiplications)
                .expect("best-of")
                .counts
                .multiplications
        },
    );
    let all = default_candidates(&[Method::Vertex, Method::Edge, Method::Face]);
    time_it(
        &format!("best-of all ({} candidates)", all.len()),
        runs,
        || {
            let c = &all;
            best_of(&g, c, CostModel::Multiplications)
                .expect("best-of")
                .counts
                .multiplications
        },
    );
}
