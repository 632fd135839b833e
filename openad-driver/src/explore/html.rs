//! The page of `openad explore`: one self-contained HTML file (styles,
//! script and SVG inline, nothing fetched), so it opens from `file://`.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::Path;

use xaif_schema::line_map::LineOrigin;

use super::Material;

const STYLE: &str = "
body { font-family: sans-serif; margin: 0 1em; }
nav a { margin-right: 1em; }
.panes { display: flex; gap: 0.5em; }
.pane { flex: 1; min-width: 0; }
.pane pre { height: 32em; overflow: auto; border: 1px solid #ccc; margin: 0; font-size: 12px; }
.line { display: block; white-space: pre; }
.line .no { color: #999; display: inline-block; width: 3.5em; user-select: none; }
.linked { cursor: pointer; }
.linked:hover { background: #eef; }
.hit { background: #ffd54f !important; }
table { border-collapse: collapse; margin: 0.5em 0; }
td, th { border: 1px solid #ccc; padding: 2px 6px; font-size: 13px; text-align: left; }
.active { color: #b00; font-weight: bold; }
.worse { color: #b00; }
details { margin: 0.3em 0; }
svg { max-width: 100%; height: auto; }
";

/// Clicking a linked line highlights the lines it comes from; so does
/// opening the page at `#ID` of a linked line (`index.html#d-42`).
const SCRIPT: &str = "
function highlight(line) {
  document.querySelectorAll('.hit').forEach(function (e) { e.classList.remove('hit'); });
  var ids = [line.id];
  var next = line.dataset.target;
  while (next) {
    ids.push(next);
    var e = document.getElementById(next);
    next = e ? e.dataset.target : null;
  }
  ids.forEach(function (id) {
    var e = document.getElementById(id);
    if (e) { e.classList.add('hit'); e.scrollIntoView({block: 'center'}); }
  });
}
document.addEventListener('click', function (event) {
  var line = event.target.closest('.linked');
  if (line) { highlight(line); }
});
var start = location.hash ? document.getElementById(location.hash.slice(1)) : null;
if (start && start.classList.contains('linked')) { highlight(start); }
";

pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '"' => out.push_str("&quot;"),
            c => out.push(c),
        }
    }
    out
}

fn pane(
    title: &str,
    id_prefix: &str,
    text: &str,
    target: &dyn Fn(usize, &str) -> Option<String>,
) -> String {
    let mut out = format!(
        "<div class=\"pane\"><h3>{}</h3><pre id=\"pane-{id_prefix}\">",
        escape(title)
    );
    for (k, line) in text.lines().enumerate() {
        let n = k + 1;
        match target(n, line) {
            Some(t) => {
                let _ = write!(
                    out,
                    "<span class=\"line linked\" id=\"{id_prefix}-{n}\" data-target=\"{t}\"><span class=\"no\">{n}</span>{}</span>",
                    escape(line)
                );
            }
            None => {
                let _ = write!(
                    out,
                    "<span class=\"line\" id=\"{id_prefix}-{n}\"><span class=\"no\">{n}</span>{}</span>",
                    escape(line)
                );
            }
        }
    }
    out.push_str("</pre></div>");
    out
}

fn same_file(a: &str, b: &str) -> bool {
    match (Path::new(a).canonicalize(), Path::new(b).canonicalize()) {
        (Ok(x), Ok(y)) => x == y,
        _ => a == b,
    }
}

fn sources(m: &Material) -> String {
    let mut out = String::from(
        "<section id=\"sources\"><h2>Sources</h2><p>Click a line of the canonical source or of the derivative code to see the lines it comes from: the back end records the statement each derivative line is generated for (assignments, derivative propagation, tape pushes and pops, calls) or the canonical line it copies (P.dmap); the front end where each statement is in the canonical source and in yours (P.loc).</p><div class=\"panes\">",
    );
    for (f, (name, text)) in m.user_files.iter().enumerate() {
        out.push_str(&pane(name, &format!("u{f}"), text, &|_, _| None));
    }
    let user_index = |file: &str| {
        m.user_files
            .iter()
            .position(|(name, _)| same_file(name, file))
    };
    let user_line = |at: xaif_schema::source_map::SourceLocation| {
        Some(format!("u{}-{}", user_index(&at.file)?, at.line))
    };
    // Canonical lines of statements: their place in the user's source.
    let mut statement_of_canon: HashMap<u64, &str> = HashMap::new();
    for (id, first, last) in m.locations.statement_line_ranges() {
        for l in first..=last {
            statement_of_canon.entry(l).or_insert(id);
        }
    }
    let canon_target = |n: usize, _: &str| -> Option<String> {
        let at = match statement_of_canon.get(&(n as u64)) {
            Some(id) => m.locations.statement(id),
            None => m.locations.canon_line(n as u64),
        }?;
        user_line(at)
    };
    out.push_str(&pane("canonical source", "c", &m.canon, &canon_target));
    let derivative_target = |n: usize, _: &str| -> Option<String> {
        match m.line_map.origin(n as u64)? {
            LineOrigin::Canon(c) => Some(format!("c-{c}")),
            LineOrigin::Statement(id) => match m.locations.statement_lines(id) {
                Some((first, _)) => Some(format!("c-{first}")),
                None => user_line(m.locations.statement(id)?),
            },
        }
    };
    out.push_str(&pane(
        &format!(
            "derivative code ({}, -m {})",
            m.derivative_name,
            m.mode.back_end_name()
        ),
        "d",
        &m.derivative,
        &derivative_target,
    ));
    out.push_str("</div></section>");
    out
}

fn graphs(m: &Material) -> String {
    let mut out =
        String::from("<section id=\"graphs\"><h2>Call graph and control flow graphs</h2>");
    for (k, (name, svg)) in m.program_graphs.iter().enumerate() {
        let open = if k == 0 { " open" } else { "" };
        let what = if k == 0 {
            name.clone()
        } else {
            format!("control flow graph of {name}")
        };
        let _ = write!(
            out,
            "<details class=\"graph\"{open}><summary>{}</summary>{svg}</details>",
            escape(&what)
        );
    }
    out.push_str("</section>");
    out
}

/// The booster's `--stats` table as rows of named columns.
fn stats_rows(stats: &str) -> Vec<HashMap<String, String>> {
    let mut header: Vec<String> = Vec::new();
    let mut rows = Vec::new();
    for line in stats.lines() {
        if let Some(h) = line.strip_prefix('#') {
            header = h.split_whitespace().map(str::to_string).collect();
            continue;
        }
        let cells: Vec<&str> = line.split_whitespace().collect();
        if cells.len() == header.len() && cells.first() != Some(&"total") {
            rows.push(
                header
                    .iter()
                    .cloned()
                    .zip(cells.iter().map(|c| c.to_string()))
                    .collect(),
            );
        }
    }
    rows
}

fn blocks(m: &Material) -> String {
    let mut out = String::from(
        "<section id=\"blocks\"><h2>Basic blocks: computational graphs and eliminations</h2><p>Tangent mode, per flattened basic block: the linearized computational graph, the multiplications of the elimination sequence chosen, against the proven optimum of vertex elimination where the graph is small enough to search (otherwise the chosen cost), and the multiplications of the whole accumulation.</p><table><tr><th>routine</th><th>block</th><th>vertices</th><th>edges</th><th>elimination multiplications</th><th>forward</th><th>reverse</th><th>optimum</th><th>accumulation multiplications</th><th>additions</th><th>Jacobian nonzeros</th></tr>",
    );
    let rows = stats_rows(&m.stats);
    let cell = |r: &HashMap<String, String>, k: &str| r.get(k).cloned().unwrap_or_default();
    // Blocks without a computational graph (no active assignment) are left out.
    for r in rows.iter().filter(|r| cell(r, "vertices") != "0") {
        let chosen: usize = cell(r, "elimination_multiplications").parse().unwrap_or(0);
        let optimum: usize = cell(r, "optimum_multiplications").parse().unwrap_or(0);
        let class = if chosen > optimum {
            " class=\"worse\""
        } else {
            ""
        };
        let _ = write!(
            out,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td{class}>{chosen}</td><td>{}</td><td>{}</td><td>{optimum}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            escape(&cell(r, "subroutine")),
            escape(&cell(r, "block")),
            cell(r, "vertices"),
            cell(r, "edges"),
            cell(r, "forward_multiplications"),
            cell(r, "reverse_multiplications"),
            cell(r, "multiplications"),
            cell(r, "additions"),
            cell(r, "jacobian_nonzeros"),
        );
    }
    out.push_str("</table>");
    for (name, svg, report) in &m.block_graphs {
        let detail = match report {
            Some(r) => elimination_table(r),
            None => "<p>Accumulated statement by statement (cheaper than the whole run here).</p>"
                .to_string(),
        };
        let _ = write!(
            out,
            "<details class=\"block-graph\"><summary>computational graph {}</summary>{detail}{svg}</details>",
            escape(name)
        );
    }
    out.push_str("</section>");
    out
}

/// The booster's `.elimination` report (`key value` lines) as a table.
fn elimination_table(report: &str) -> String {
    let mut out = String::from("<table class=\"elimination\">");
    for line in report.lines() {
        let (key, value) = line.split_once(' ').unwrap_or((line, ""));
        let label = match key {
            "strategy" => "sequence chosen by",
            "sequence" => "elimination sequence",
            "multiplications" => "its multiplications",
            "forward" => "forward vertex elimination",
            "reverse" => "reverse vertex elimination",
            "optimum" => "proven optimum (vertex elimination)",
            other => other,
        };
        let _ = write!(
            out,
            "<tr><th>{}</th><td>{}</td></tr>",
            escape(label),
            escape(value)
        );
    }
    out.push_str("</table>");
    out
}

fn activity(m: &Material) -> String {
    let mut out = String::from(
        "<section id=\"activity\"><h2>Activity: which variables carry derivatives, and why</h2><p>A variable is active when it is varied (depends on an independent) and useful (a dependent depends on it) at the same point, when it is an independent or dependent, or when it must have the same type as an active variable it is passed to or aliased with.</p>",
    );
    for u in &m.activity.units {
        let _ = write!(
            out,
            "<h3>{}</h3><table><tr><th>variable</th><th>type</th><th>derivative code</th><th>why</th></tr>",
            escape(&u.unit)
        );
        for v in &u.variables {
            let (class, word) = if v.active {
                (" class=\"active\"", "type(active)")
            } else {
                ("", "passive")
            };
            let _ = write!(
                out,
                "<tr><td>{}</td><td>{}</td><td{class}>{word}</td><td>{}</td></tr>",
                escape(&v.name),
                escape(&v.type_name),
                escape(&v.reason())
            );
        }
        out.push_str("</table>");
    }
    out.push_str("</section>");
    out
}

pub fn page(m: &Material) -> String {
    let title = m
        .user_files
        .first()
        .map(|(n, _)| n.as_str())
        .unwrap_or("program");
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>openad explore: {t}</title><style>{STYLE}</style></head><body><h1>openad explore: {t}</h1><nav><a href=\"#sources\">sources</a><a href=\"#graphs\">graphs</a><a href=\"#blocks\">basic blocks</a><a href=\"#activity\">activity</a></nav>{}{}{}{}<script>{SCRIPT}</script></body></html>\n",
        sources(m),
        graphs(m),
        blocks(m),
        activity(m),
        t = escape(title),
    )
}
