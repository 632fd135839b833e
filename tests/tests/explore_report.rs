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
