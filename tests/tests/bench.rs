//! The benchmark programs of `tests/bench/` (time-stepping PDE kernels with
//! a size parameter, the line tagged `! bench-size`).
//!
//! - `bench_programs_at_small_size`: every leg at `size_small`, checked like
//!   the examples (FD, dot-product test, EXPECTED_FAILURES).
//! - `bench_ratios` (ignored; `cargo test --release -p openad-tests --test bench
//!   -- --ignored --nocapture`): times one evaluation at `size_large`, all
//!   code built with -O2, and prints R_t = tangent / original and
//!   R_a = adjoint (tape + reverse sweep) / original.

use std::io::Write;

use openad_tests::manifest::MODES;
use openad_tests::{
    bench_dir, check_leg, load_examples, parallel_map, report, time_leg, CorpusEntry, LegResult,
};

fn bench_entries(large: bool) -> Vec<CorpusEntry> {
    let examples = load_examples(&bench_dir()).expect("tests/bench");
    assert!(examples.len() >= 3 || std::env::var_os("OPENAD_EXAMPLES").is_some());
    examples
        .into_iter()
        .map(|e| {
            let size = if large {
                e.manifest.size_large
            } else {
                e.manifest.size_small
            };
            CorpusEntry::new(e, size)
        })
        .collect()
}

#[test]
fn bench_programs_at_small_size() {
    let entries = bench_entries(false);
    let original: Vec<LegResult> = parallel_map(&entries, |entry| LegResult {
        name: entry.example.name.clone(),
        mode: "orig".into(),
        outcome: entry
            .finite_differences()
            .as_ref()
            .map(|_| 0.0)
            .map_err(Clone::clone),
        note: format!("size {}", entry.size.unwrap_or(0)),
    });
    let mut complaints = report("benchmarks, original at small size", &original);
    for mode in MODES {
        let results = parallel_map(&entries, |entry| check_leg(entry, mode));
        complaints.extend(report(&format!("benchmarks, mode {mode}"), &results));
    }
    assert!(complaints.is_empty(), "{}", complaints.join("\n\n"));
}

#[test]
#[ignore = "slow: run explicitly to measure R_t and R_a"]
fn bench_ratios() {
    let entries = bench_entries(true);
    let mut table = format!(
        "\n{:<16} {:>9} {:>10} {:>10} {:>10} {:>10} {:>7} {:>7}\n",
        "benchmark", "size", "orig [s]", "f [s]", "rs [s]", "rj [s]", "R_t", "R_a"
    );
    for entry in &entries {
        let time = |mode: &str| time_leg(&entry.example, mode, entry.size);
        let original = time("orig").unwrap_or_else(|e| panic!("{}: {e}", entry.example.name));
        let show = |t: &Result<f64, String>| match t {
            Ok(t) => format!("{t:.4}"),
            Err(_) => "fails".to_string(),
        };
        let ratio = |t: &Result<f64, String>| match t {
            Ok(t) => format!("{:.2}", t / original),
            Err(_) => "-".to_string(),
        };
        let (f, rs, rj) = (time("f"), time("rs"), time("rj"));
        table.push_str(&format!(
            "{:<16} {:>9} {:>10.4} {:>10} {:>10} {:>10} {:>7} {:>7}\n",
            entry.example.name,
            entry.size.unwrap_or(0),
            original,
            show(&f),
            show(&rs),
            show(&rj),
            ratio(&f),
            ratio(&rs)
        ));
        for (mode, result) in [("f", &f), ("rs", &rs), ("rj", &rj)] {
            if let Err(e) = result {
                table.push_str(&format!("  {mode}: {}\n", e.lines().next().unwrap_or("")));
            }
        }
    }
    let _ = std::io::stderr().write_all(table.as_bytes());
}
