//! `openad explore` in a real browser: headless Chromium (Debian's
//! `chromium`, installed by `.ci/run`) opens the report of a corpus example
//! from `file://`; the page logs nothing to the console, the rendered DOM
//! holds the sections, panes, graphs and tables, and a screenshot is taken.

use std::path::Path;
use std::process::{Command, Output};

use openad_tests::{openad_program, workspace_root};

fn chromium(args: &[&str], page: &Path) -> Output {
    let out = Command::new("chromium")
        .args(["--headless", "--no-sandbox", "--disable-gpu"])
        .args(args)
        .arg(format!("file://{}", page.display()))
        .output();
    match out {
        Ok(o) => o,
        Err(e) => panic!("this test needs chromium on the PATH (apt-get install chromium): {e}"),
    }
}

/// The console messages Chromium logged while loading `page`.
fn console_messages(page: &Path) -> (Vec<String>, String) {
    let o = chromium(&["--enable-logging=stderr", "--v=0", "--dump-dom"], page);
    let stderr = String::from_utf8_lossy(&o.stderr);
    let messages = stderr
        .lines()
        .filter(|l| l.contains(":CONSOLE"))
        .map(str::to_string)
        .collect();
    (messages, String::from_utf8_lossy(&o.stdout).into_owned())
}

#[test]
fn the_report_of_a_corpus_example_renders_in_chromium_without_console_errors() {
    let dir = tempfile::tempdir().unwrap();
    let example = workspace_root().join("tests/examples/flux_call_tree/head.f90");
    let report = dir.path().join("report");
    let o = Command::new(openad_program().expect("openad built"))
        .arg("explore")
        .arg("-o")
        .arg(&report)
        .arg(&example)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let page = report.join("index.html");

    // The console check can fail: a page with a script error is caught.
    let broken = dir.path().join("broken.html");
    std::fs::write(
        &broken,
        "<html><body><script>missing();</script></body></html>",
    )
    .unwrap();
    let (messages, _) = console_messages(&broken);
    assert!(
        messages
            .iter()
            .any(|m| m.contains("missing is not defined")),
        "chromium did not report the script error: {messages:?}"
    );

    let (messages, dom) = console_messages(&page);
    assert!(messages.is_empty(), "console messages: {messages:?}");
    for wanted in [
        "<section id=\"sources\"",
        "<section id=\"graphs\"",
        "<section id=\"blocks\"",
        "<section id=\"activity\"",
        "id=\"pane-u0\"",
        "id=\"pane-c\"",
        "id=\"pane-d\"",
        "class=\"line linked\"",
        "<svg",
        ">computational graph flux_2_s1<",
        ">named in an INDEPENDENT or DEPENDENT pragma<",
        ">useful, but depends on no independent (not varied)<",
    ] {
        assert!(dom.contains(wanted), "rendered page lacks {wanted}");
    }
    // Canonical lines point at the user's lines, which exist.
    let target = dom
        .split("data-target=\"")
        .nth(1)
        .and_then(|t| t.split('"').next())
        .unwrap();
    assert!(
        dom.contains(&format!("id=\"{target}\"")),
        "link to missing line {target}"
    );

    // Opening the page at a derivative line highlights it and the lines
    // it comes from (script run by the browser, DOM read back).
    let page_text = std::fs::read_to_string(&page).unwrap();
    let (n, _, target) = pane_lines(&page_text, "d")
        .into_iter()
        .find(|(_, t, _)| t.trim_start().starts_with("oad_d_u(i) = oad_d_u(i)"))
        .expect("the tangent of u(i) = u(i) - dt * (f(i) - f(i-1))");
    let canonical = target.expect("a linked line");
    let o = chromium(
        &["--dump-dom"],
        Path::new(&format!("{}#d-{n}", page.display())),
    );
    let dom = String::from_utf8_lossy(&o.stdout);
    for id in [format!("d-{n}"), canonical, "u0-22".to_string()] {
        assert!(
            dom.contains(&format!("class=\"line linked hit\" id=\"{id}\""))
                || dom.contains(&format!("class=\"line hit\" id=\"{id}\"")),
            "line {id} not highlighted after opening #d-{n}"
        );
    }

    let shot = dir.path().join("report.png");
    let o = chromium(
        &[
            "--window-size=1400,2400",
            &format!("--screenshot={}", shot.display()),
        ],
        &page,
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let size = std::fs::metadata(&shot).map(|m| m.len()).unwrap_or(0);
    assert!(
        size > 50_000,
        "screenshot of {size} bytes: nothing rendered?"
    );
    if let Some(keep) = std::env::var_os("OPENAD_KEEP_SCREENSHOT") {
        std::fs::copy(&shot, keep).unwrap();
    }
}

/// The report's lines of pane `prefix` (`d`: derivative code, `c`:
/// canonical source): (line number, text, link target if any).
fn pane_lines(page: &str, prefix: &str) -> Vec<(usize, String, Option<String>)> {
    let unescape = |t: &str| {
        t.replace("&lt;", "<")
            .replace("&gt;", ">")
            .replace("&quot;", "\"")
            .replace("&amp;", "&")
    };
    let marker = format!(" id=\"{prefix}-");
    let mut lines = Vec::new();
    for piece in page.split("<span class=\"line").skip(1) {
        let Some(rest) = piece.strip_prefix(" linked\"").or(piece.strip_prefix('"')) else {
            continue;
        };
        let Some(rest) = rest.strip_prefix(&marker[..]) else {
            continue;
        };
        let n: usize = rest.split('"').next().unwrap().parse().unwrap();
        let target = rest
            .split("data-target=\"")
            .nth(1)
            .filter(|_| rest.find("data-target").unwrap_or(usize::MAX) < rest.find('>').unwrap())
            .map(|t| t.split('"').next().unwrap().to_string());
        let text = rest.split("</span>").nth(1).unwrap_or("");
        lines.push((n, unescape(text), target));
    }
    lines
}

/// The user's line (of the only user file) a derivative line leads to,
/// following its link to the canonical source and on.
fn user_line(page: &str, target: &Option<String>) -> Option<usize> {
    let mut next = target.clone()?;
    for _ in 0..3 {
        if let Some(line) = next.strip_prefix("u0-") {
            return line.parse().ok();
        }
        let tag = format!("id=\"{next}\" data-target=\"");
        let at = page.find(&tag)? + tag.len();
        next = page[at..].split('"').next()?.to_string();
    }
    None
}

fn report_of(example: &str, mode: &str, dir: &Path) -> String {
    let report = dir.join(format!("report-{mode}"));
    let o = Command::new(openad_program().expect("openad built"))
        .args(["explore", "-m", mode, "-o"])
        .arg(&report)
        .arg(workspace_root().join(example))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    std::fs::read_to_string(report.join("index.html")).unwrap()
}

/// Checks, for every derivative line of the routine named first whose
/// text starts with the given text, that it leads to the user line given
/// (checked by hand against `flux_call_tree/head.f90`), and that at least
/// one such line exists.
fn check_links(page: &str, mode: &str, expected: &[(&str, &str, usize)]) {
    let lines = pane_lines(page, "d");
    assert!(lines.len() > 50, "-m {mode}: derivative pane not found");
    let mut unit = String::new();
    let mut seen = vec![0; expected.len()];
    for (n, text, target) in &lines {
        let t = text.trim();
        if let Some(rest) = t.strip_prefix("subroutine ") {
            // A routine with split dummies and its user's wrapper are the
            // same user routine.
            let name = rest.split('(').next().unwrap();
            unit = name.strip_suffix("_oad_s").unwrap_or(name).to_string();
        }
        for (k, (in_unit, start, user)) in expected.iter().enumerate() {
            if unit == *in_unit && t.starts_with(start) {
                seen[k] += 1;
                assert_eq!(
                    user_line(page, target),
                    Some(*user),
                    "-m {mode}: derivative line {n} `{t}` of {unit} (target {target:?})"
                );
            }
        }
        // Every line computing active values or derivatives, and every
        // call of a user routine, leads to the user's source.
        // (`oad_v_`/`oad_d_`: a local array in the split layout; its
        // whole derivative part zeroed at the routine's entry stands for
        // the declaration's default value and comes from no statement.)
        let split_entry_zeroing =
            t.starts_with("oad_d_") && t.ends_with(" = 0") && !t.contains('(');
        let computes =
            (t.contains("%v") || t.contains("%d") || t.contains("oad_v_") || t.contains("oad_d_"))
                && !split_entry_zeroing;
        let declaration = t.starts_with("type(active)") || t.contains("::");
        // Bounds and shapes are no active values: the split layout spells
        // `lbound(v, 1)` as `lbound(oad_v_v, 1)`.
        let inquiries_only = ["lbound(", "ubound(", "size(", "shape("]
            .iter()
            .fold(t.to_string(), |acc, q| {
                acc.replace(&format!("{q}oad_v_"), q)
            });
        let no_active_value = !(inquiries_only.contains("oad_v_")
            || inquiries_only.contains("oad_d_")
            || t.contains("%v")
            || t.contains("%d"));
        let calls_user = t.starts_with("call ") && !t.contains("_grow");
        if (computes || calls_user) && !declaration && !no_active_value && !t.starts_with("if (") {
            assert!(
                user_line(page, target).is_some(),
                "-m {mode}: derivative line {n} `{t}` of {unit} leads nowhere (target {target:?})"
            );
        }
    }
    for (k, e) in expected.iter().enumerate() {
        assert!(
            seen[k] > 0,
            "-m {mode}: no line of {} starts with `{}`",
            e.0,
            e.1
        );
    }
}

#[test]
fn every_derivative_line_of_a_user_statement_links_to_its_user_line() {
    let dir = tempfile::tempdir().unwrap();
    let example = "tests/examples/flux_call_tree/head.f90";
    let tangent = report_of(example, "f", dir.path());
    check_links(
        &tangent,
        "f",
        &[
            (
                "flux",
                "subroutine flux_oad_s(oad_v_u, oad_d_u, i, oad_v_f, oad_d_f)",
                5,
            ),
            ("flux", "oad_lin_1 = 2*oad_v_u(i)", 9),
            ("flux", "oad_v_f = 0.5d0*(oad_v_u(i)**2", 9),
            ("flux", "oad_d_f = ", 9),
            ("step", "oad_d_f(oad_i1) = 0", 16),
            (
                "step",
                "call flux_oad_s(oad_v_u, oad_d_u, i, fl%v, fl%d)",
                18,
            ),
            ("step", "oad_d_f(i) = fl%d", 19),
            ("step", "oad_d_u(i) = oad_d_u(i)", 22),
            ("head", "oad_d_u(oad_i1) = x(oad_i1)%d", 35),
            ("head", "call step_oad_s(oad_v_u, oad_d_u, 1d-3)", 37),
            ("head", "oad_t1%d = oad_t1%d", 39),
            ("head", "y(1)%d = oad_t1%d", 39),
        ],
    );
    let adjoint = report_of(example, "rs", dir.path());
    check_links(
        &adjoint,
        "rs",
        &[
            (
                "flux",
                "subroutine flux_oad_s(oad_v_u, oad_d_u, i, oad_v_f, oad_d_f)",
                5,
            ),
            // Tape section: partials and their pushes (no subscript
            // pushes: every call passes step's loop index, which the
            // reverse sweep restores, so `i` is a stable dummy).
            ("flux", "oad_lin_1 = 2*oad_v_u(i)", 9),
            ("flux", "oad_dt(oad_dt_ptr) = oad_acc_", 9),
            // Adjoint section: pops and the adjoint propagation.
            ("flux", "oad_jac_1 = oad_dt(oad_dt_ptr)", 9),
            ("flux", "oad_d_u(i) = oad_d_u(i) + oad_jac_1*oad_d_f", 9),
            ("flux", "oad_d_f = 0", 9),
            (
                "step",
                "call oad_tape_flux(oad_v_u, oad_d_u, i, fl%v, fl%d)",
                18,
            ),
            (
                "step",
                "call oad_adj_flux(oad_v_u, oad_d_u, i, fl%v, fl%d)",
                18,
            ),
            ("step", "fl%d = fl%d + oad_d_f(i)", 19),
            ("step", "oad_hv_1 = dt", 22),
            (
                "step",
                "oad_d_f(i - 1) = oad_d_f(i - 1) + oad_hv_1*oad_d_u(i)",
                22,
            ),
            ("step", "oad_d_f(oad_i1) = 0", 16),
            ("head", "call step_oad_s(oad_v_u, oad_d_u, 1d-3)", 37),
            ("head", "y(1)%v = oad_t1%v", 39),
        ],
    );
}

/// Subscript pushes link to the statement whose subscripts they save:
/// `gather_scatter`'s gather through `cell_of` and scatter through `perm`
/// push a subscript per element in the tape section (checked by hand
/// against `gather_scatter/head.f90`).
#[test]
fn subscript_pushes_link_to_their_user_line() {
    let dir = tempfile::tempdir().unwrap();
    let example = "tests/examples/gather_scatter/head.f90";
    let adjoint = report_of(example, "rs", dir.path());
    check_links(
        &adjoint,
        "rs",
        &[
            ("push", "oad_it(oad_it_ptr) = cell_of(oad_i1)", 24),
            ("push", "oad_it(oad_it_ptr) = perm(oad_i4)", 27),
            (
                "head",
                "call push_oad_s(oad_v_mesh, oad_d_mesh, oad_v_p, oad_d_p, 0.3d0)",
                46,
            ),
        ],
    );
}
