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
use xaif_schema::model::{
    BasicBlockElement, CallGraph, CallGraphVertex, ControlFlowVertex, SymbolType,
};
use xaif_schema::read::read_call_graph_file;
use xaif_testkit::check::{check_document_with, quiet_unsupported_panics, Verdict};
use xaif_testkit::machine::MarkerPolicy;

/// The markers (`canon:N`, the statement after `!$oad stmt N` in the
/// canonical source) that change no real value: allocation, output, file
/// handling, and assignments to a variable that every symbol of its name
/// in `cg` declares integer, logical or character (`n = count(mask)`,
/// `oad_t1 = present(beta)`, `method = 'square'`), or to a derived-type
/// component every type declares so (`st%steps = 12`): that variable keeps
/// its earlier or drawn value, like every integer the check draws, and
/// the three programs see the same one. Any other (input, pointer
/// association, derived-type copies, black boxes, ...) makes a
/// subroutine not interpretable.
fn harmless_markers(canon: &str, cg: &CallGraph) -> HashSet<String> {
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
    let components = component_types(&lines);
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
        let marker = format!("canon:{}", n.trim());
        if HARMLESS.contains(&word.as_str())
            || assigns_non_real(statement, &marker, cg)
            || assigns_non_real_component(statement, &components)
        {
            out.insert(marker);
        }
    }
    out
}

/// Whether `statement` (the marker `marker`) is `name = ...` or
/// `name(...) = ...` with `name` integer, logical or character where the
/// marker is.
fn assigns_non_real(statement: &str, marker: &str, cg: &CallGraph) -> bool {
    let s = statement.trim();
    let name: String = s
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect::<String>()
        .to_ascii_lowercase();
    let rest = s[name.len()..].trim_start();
    let assignment = if rest.starts_with('(') {
        // `name(...) = ...`: the text after the matching parenthesis.
        let mut depth = 0;
        let end = rest.char_indices().find_map(|(k, c)| {
            match c {
                '(' => depth += 1,
                ')' => depth -= 1,
                _ => {}
            }
            (depth == 0).then_some(k)
        });
        end.is_some_and(|k| is_assignment_operator(&rest[k + 1..]))
    } else {
        is_assignment_operator(rest)
    };
    if name.is_empty() || !assignment {
        return false;
    }
    // The symbol in effect where the marker is: its graph's scope, then
    // the enclosing ones; anywhere when the marker is not found.
    let in_scope = |scope: &str| {
        cg.scope_hierarchy
            .scopes
            .iter()
            .filter(|sc| sc.vertex_id == scope)
            .flat_map(|sc| &sc.symbol_tables)
            .flat_map(|t| &t.symbols)
            .find(|sym| sym.symbol_id.eq_ignore_ascii_case(&name))
            .map(|sym| sym.type_)
    };
    let non_real = |t: SymbolType| {
        matches!(
            t,
            SymbolType::Integer | SymbolType::Bool | SymbolType::Char | SymbolType::String
        )
    };
    if let Some(mut scope) = marker_scope(cg, marker) {
        // Child -> parent edges; at most as many steps as scopes.
        for _ in 0..=cg.scope_hierarchy.scopes.len() {
            if let Some(t) = in_scope(&scope) {
                return non_real(t);
            }
            match cg.scope_hierarchy.edges.iter().find(|e| e.source == scope) {
                Some(e) => scope = e.target.to_string(),
                None => return false,
            }
        }
        return false;
    }
    let mut types = cg
        .scope_hierarchy
        .scopes
        .iter()
        .flat_map(|sc| &sc.symbol_tables)
        .flat_map(|t| &t.symbols)
        .filter(|sym| sym.symbol_id.eq_ignore_ascii_case(&name))
        .map(|sym| sym.type_)
        .peekable();
    types.peek().is_some() && types.all(non_real)
}

/// The scope of the graph holding the marker `canon:N` (tags may follow).
fn marker_scope(cg: &CallGraph, marker: &str) -> Option<String> {
    cg.vertices.iter().find_map(|v| {
        let CallGraphVertex::ControlFlowGraph(g) = v else {
            return None;
        };
        let holds = g.vertices.iter().any(|cv| match cv {
            ControlFlowVertex::BasicBlock(b) => b.elements.iter().any(|e| {
                matches!(e, BasicBlockElement::Marker(m)
                    if m.annotation.split(';').next() == Some(marker))
            }),
            _ => false,
        });
        holds.then(|| g.controlflowgraph_scope_id.to_string())
    })
}

/// For each derived-type component name of the canonical source, whether
/// every type declaring a component of that name declares it integer,
/// logical or character.
fn component_types(lines: &[&str]) -> BTreeMap<String, bool> {
    let mut out: BTreeMap<String, bool> = BTreeMap::new();
    let mut in_type = false;
    for line in lines {
        let l = line.trim().to_ascii_lowercase();
        if l.starts_with("end type") || l.starts_with("endtype") {
            in_type = false;
            continue;
        }
        // `type name`, `type, extends(b) :: name` (not `type(t) :: x`).
        if l.starts_with("type ") || l.starts_with("type,") || l.starts_with("type::") {
            in_type = true;
            continue;
        }
        if !in_type {
            continue;
        }
        let Some((spec, names)) = l.split_once("::") else {
            continue;
        };
        let non_real = ["integer", "logical", "character"]
            .iter()
            .any(|t| spec.trim_start().starts_with(t));
        let mut depth = 0;
        let mut name = String::new();
        let mut names_found = Vec::new();
        let mut taking = true;
        for c in names.chars().chain(std::iter::once(',')) {
            match c {
                '(' => depth += 1,
                ')' => depth -= 1,
                ',' if depth == 0 => {
                    names_found.push(std::mem::take(&mut name));
                    taking = true;
                    continue;
                }
                _ => {}
            }
            if depth == 0 && taking && (c.is_ascii_alphanumeric() || c == '_') {
                name.push(c);
            } else if !name.is_empty() {
                taking = false;
            }
        }
        for n in names_found.into_iter().filter(|n| !n.is_empty()) {
            let entry = out.entry(n).or_insert(non_real);
            *entry &= non_real;
        }
    }
    out
}

/// Whether `statement` assigns a derived-type component (`s%steps = 8`,
/// `cells(i)%id = i`) that is integer, logical or character in every
/// type declaring it.
fn assigns_non_real_component(statement: &str, components: &BTreeMap<String, bool>) -> bool {
    let s = statement.trim().to_ascii_lowercase();
    // The left-hand side: up to the first `=` at parenthesis depth 0.
    let mut depth = 0;
    let Some(eq) = s.char_indices().find_map(|(k, c)| {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            '=' if depth == 0 => return Some(k),
            _ => {}
        }
        None
    }) else {
        return false;
    };
    if !is_assignment_operator(&s[eq..]) || s[..eq].ends_with(['<', '>', '/']) {
        return false;
    }
    let lhs = s[..eq].trim();
    let Some((_, last)) = lhs.rsplit_once('%') else {
        return false;
    };
    let component: String = last
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect();
    components.get(&component).copied().unwrap_or(false)
}

/// `= ...` but not `==` or `=>`.
fn is_assignment_operator(text: &str) -> bool {
    let t = text.trim_start();
    t.starts_with('=') && !t.starts_with("==") && !t.starts_with("=>")
}

/// The canonical source's statement a `Marker 'canon:N...'` message
/// names (for the verbose listing).
fn canonical_statement(canon: &str, why: &str) -> Option<String> {
    let n: String = why
        .split("'canon:")
        .nth(1)?
        .chars()
        .take_while(|c| c.is_ascii_digit())
        .collect();
    let lines: Vec<&str> = canon.lines().collect();
    let k = lines
        .iter()
        .position(|l| l.trim() == format!("!$oad stmt {n}"))?;
    Some(format!("[{}]", lines.get(k + 1)?.trim()))
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
        let input = read(&xaif);
        let markers = MarkerPolicy::Known(Rc::new(harmless_markers(&canon, &input)));
        let verdicts = check_document_with(&input, &read(tangent), &read(adjoint), 11, markers);
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
                        let statement = canonical_statement(&canon, &why).unwrap_or_default();
                        eprintln!(
                            "  not interpretable: {} {routine}: {why} {statement}",
                            ex.name
                        );
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
