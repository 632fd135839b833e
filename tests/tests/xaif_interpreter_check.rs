//! The corpus checked on XAIF alone, without a Fortran compiler: each
//! example's sources go through `fortran2xaif`, its XAIF through
//! `xaif-booster -m tangent` and `-m adjoint`, and the input, tangent output
//! and adjoint output are interpreted on random inputs
//! (`xaif_testkit::check`: tangent against central finite differences of
//! the interpreted input, adjoint against tangent by the dot-product test)
//! for every active subroutine. What the interpreter cannot run (derived
//! types, character data, loop checkpointing's runtime schedule, array
//! arguments without constant bounds, ...) is counted and named, never a
//! pass; a wrong derivative fails the test.
//!
//! `OPENAD_EXAMPLES=a,b` restricts the examples, as for `examples.rs`;
//! `OPENAD_XAIF_CHECK_VERBOSE=1` names each routine not interpretable.

use std::collections::{BTreeMap, HashSet};
use std::path::Path;
use std::process::Command;
use std::rc::Rc;

use openad_tests::{bin_dir, examples_dir, load_examples};
use xaif_schema::read::read_call_graph_file;
use xaif_testkit::check::{check_document_with, quiet_unsupported_panics, Verdict};
use xaif_testkit::machine::MarkerPolicy;

/// The markers (`canon:N`, the statement after `!$oad stmt N` in the
/// canonical source) that change no value: allocation, output, file
/// handling. Any other (input, character data, black boxes, ...) makes
/// a subroutine not interpretable.
fn harmless_markers(canon: &str) -> HashSet<String> {
    const HARMLESS: &[&str] = &[
        "allocate",
        "deallocate",
        "write",
        "print",
        "open",
        "close",
        "flush",
        "continue",
        "nullify",
    ];
    let lines: Vec<&str> = canon.lines().collect();
    let mut out = HashSet::new();
    for (k, line) in lines.iter().enumerate() {
        let Some(n) = line.trim().strip_prefix("!$oad stmt ") else {
            continue;
        };
        let Some(statement) = lines.get(k + 1) else {
            continue;
        };
        let word: String = statement
            .trim()
            .chars()
            .take_while(|c| c.is_ascii_alphabetic())
            .collect::<String>()
            .to_ascii_lowercase();
        if HARMLESS.contains(&word.as_str()) {
            out.insert(format!("canon:{}", n.trim()));
        }
    }
    out
}

fn stage(name: &str) -> Command {
    Command::new(bin_dir().expect("stages").join(name))
}

/// Runs a stage; its first diagnostic line on failure.
fn run(mut c: Command) -> Result<(), String> {
    let out = c.output().expect("run stage");
    if out.status.success() {
        return Ok(());
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    Err(stderr.lines().next().unwrap_or("").to_string())
}

#[test]
fn corpus_xaif_checks_out_in_the_interpreter() {
    quiet_unsupported_panics();
    let examples = load_examples(&examples_dir()).expect("examples");
    assert!(!examples.is_empty(), "no examples selected");
    let tmp = tempfile::tempdir().unwrap();
    let mut refused = Vec::new();
    let mut failed = Vec::new();
    let mut unsupported: BTreeMap<String, usize> = BTreeMap::new();
    let (mut passed, mut inputs, mut examples_passing) = (0, 0, 0);
    // OPENAD_XAIF_CHECK_VERBOSE=1 names every routine not interpretable.
    let verbose = std::env::var_os("OPENAD_XAIF_CHECK_VERBOSE").is_some();
    for ex in &examples {
        let dir = tmp.path().join(&ex.name);
        std::fs::create_dir_all(&dir).unwrap();
        let xaif = dir.join("P.xaif");
        let mut front = stage("fortran2xaif");
        front.current_dir(&ex.dir).args(&ex.manifest.openad_options);
        for bb in &ex.manifest.black_box {
            front.arg("--black-box").arg(ex.dir.join(bb));
        }
        front
            .arg("-o")
            .arg(&xaif)
            .arg("--canon")
            .arg(dir.join("P.canon.f90"))
            .args(&ex.manifest.files);
        if let Err(e) = run(front) {
            refused.push(format!("{}: front end: {e}", ex.name));
            continue;
        }
        let mut outputs = Vec::new();
        for mode in ["tangent", "adjoint"] {
            let out = dir.join(format!("P.{mode}.xaif"));
            let mut b = stage("xaif-booster");
            b.args(["-m", mode, "-o"]).arg(&out).arg(&xaif);
            match run(b) {
                Ok(()) => outputs.push(out),
                Err(e) => refused.push(format!("{} ({mode}): {e}", ex.name)),
            }
        }
        let [tangent, adjoint] = outputs.as_slice() else {
            continue;
        };
        let read = |p: &Path| read_call_graph_file(p).unwrap_or_else(|e| panic!("{e}"));
        let canon = std::fs::read_to_string(dir.join("P.canon.f90")).unwrap();
        let markers = MarkerPolicy::Known(Rc::new(harmless_markers(&canon)));
        let verdicts =
            check_document_with(&read(&xaif), &read(tangent), &read(adjoint), 11, markers);
        let mut all_passed = !verdicts.is_empty();
        for (routine, v) in verdicts {
            match v {
                Verdict::Passed { inputs: n, .. } => {
                    passed += 1;
                    inputs += n;
                }
                Verdict::Unsupported(why) => {
                    all_passed = false;
                    if verbose {
                        eprintln!("  not interpretable: {} {routine}: {why}", ex.name);
                    }
                    // The kind of limit, without the names (after ':').
                    let kind = why.split(':').next().unwrap_or(&why).to_string();
                    *unsupported.entry(kind).or_default() += 1;
                }
                Verdict::Failed(m) => {
                    all_passed = false;
                    failed.push(format!("{} {routine}: {m}", ex.name))
                }
            }
        }
        examples_passing += all_passed as usize;
    }
    eprintln!("examples: {}", examples.len());
    eprintln!("refused by a stage ({}):", refused.len());
    for r in &refused {
        eprintln!("  {r}");
    }
    eprintln!(
        "subroutines passed: {passed} ({inputs} active inputs); examples with every \
         subroutine passed: {examples_passing}"
    );
    eprintln!("not interpretable, by kind:");
    for (k, n) in &unsupported {
        eprintln!("  {n:4} {k}");
    }
    assert!(
        failed.is_empty(),
        "wrong derivatives:\n{}",
        failed.join("\n")
    );
    // The corpus is differentiated by the booster: something must pass.
    assert!(passed > 0 && inputs > 0, "nothing checked");
}
