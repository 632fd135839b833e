//! The user's interface kept beside the split one: CONTRACT.md promises a
//! driver that every subroutine keeps its name and dummy order, its
//! active dummies `type(active)`. So a routine of the program whose
//! dummies the plan splits is renamed `NAME_oad_s` (its header, its `end`,
//! every call of the program; `use ..., only:` and `public`/`private`
//! lists name both), and a wrapper under the original name with the
//! original declarations is placed right after it: one statement,
//! `call NAME_oad_s(u%v, u%d, ...)` for each split dummy `u`, the dummy
//! itself otherwise. The wrapper needs no mode logic (the split routine
//! runs the sweep `our_rev_mode` says). `u%v` is an array of the right
//! shape in the wrapper's only access to the data, so whatever copy-in and
//! copy-out the compiler makes for it is exact. What `u%v` cannot be an
//! actual for (an allocatable dummy, an assumed-size one) is not split:
//! [`passable`] removes the position before the plan's fixed point.
//! Sweep copies (`oad_plain_NAME`...) are no part of the contract and keep
//! their names, without wrapper.

use std::collections::{BTreeSet, HashMap, HashSet};

use crate::fortran_text::{code_part, tokenize, TokKind};

/// What a split routine's name gets.
const SUFFIX: &str = "_oad_s";
/// Longest Fortran name.
const MAX_NAME: usize = 63;

/// Whether a routine keeps its user-visible name (and so needs a wrapper):
/// not a generated sweep copy.
pub fn is_users(name: &str) -> bool {
    !name.starts_with("oad_")
}

/// The split routine's name.
pub fn split_name(name: &str) -> String {
    format!("{name}{SUFFIX}")
}

/// Every identifier of the program, lower case (read once: asking the
/// program line by line for each routine made the back end quadratic in
/// its size, 139 s instead of 9 at 100,000 generated lines).
pub fn identifiers_of(program: &[String]) -> HashSet<String> {
    let mut out = HashSet::new();
    for l in program {
        for t in tokenize(l) {
            if t.kind == TokKind::Ident {
                out.insert(l[t.start..t.end].to_ascii_lowercase());
            }
        }
    }
    out
}

/// Whether `name` can be renamed: the new name fits and is not taken by
/// any identifier of the program (`identifiers`, from `identifiers_of`).
pub fn renamable(name: &str, identifiers: &HashSet<String>) -> bool {
    let new = split_name(name);
    new.len() <= MAX_NAME && !identifiers.contains(&new.to_ascii_lowercase())
}

/// Whether the wrapper can pass `dummy%v` where the split routine takes
/// `oad_v_dummy`: not for an allocatable or assumed-size declaration in
/// the specification part `spec` (a declaration that is not a
/// `type(active)` array leaves the decision to the plan's fixed point).
pub fn passable(spec: &[String], dummy: &str) -> bool {
    for l in spec {
        if let Some(Ok(d)) = crate::active_layout::active_decl(l) {
            if d.name.eq_ignore_ascii_case(dummy) {
                let assumed_size = d.shape.contains('*')
                    || d.attrs.iter().any(|a| {
                        a.to_ascii_lowercase().starts_with("dimension") && a.contains('*')
                    });
                return !d.allocatable && !assumed_size;
            }
        }
    }
    true
}

/// The first word of a line's code, lower case.
fn first_word(line: &str) -> String {
    code_part(line)
        .trim()
        .to_ascii_lowercase()
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .next()
        .unwrap_or("")
        .to_string()
}

/// Renames the routines `renamed` in the program's lines (their origins
/// as comments): headers, `end` lines and calls name the split routine,
/// `use ..., only:` and `public`/`private` lists both names (the wrapper
/// stays reachable for a driver, the split routine for the program).
/// The plan allowed no other mention.
pub fn rename(program: &mut [String], renamed: &HashSet<String>) {
    for line in program.iter_mut() {
        let toks = tokenize(line);
        if !toks.iter().any(|t| {
            t.kind == TokKind::Ident && renamed.contains(&line[t.start..t.end].to_ascii_lowercase())
        }) {
            continue;
        }
        let listing = matches!(first_word(line).as_str(), "use" | "public" | "private");
        let mut out = String::with_capacity(line.len() + 16);
        let mut prev_code = "";
        for t in &toks {
            let s = &line[t.start..t.end];
            let lower = s.to_ascii_lowercase();
            if t.kind == TokKind::Ident && prev_code != "%" && renamed.contains(&lower) {
                if listing {
                    out.push_str(&format!("{s}, {}", split_name(&lower)));
                } else {
                    out.push_str(&split_name(&lower));
                }
            } else {
                out.push_str(s);
            }
            if !matches!(t.kind, TokKind::Space | TokKind::Comment) {
                prev_code = s;
            }
        }
        *line = out;
    }
}

/// A statement of the specification part: its lines (continuations
/// joined by `&`), its code on one line.
struct Statement {
    lines: std::ops::Range<usize>,
    code: String,
}

fn statements(spec: &[String]) -> Vec<Statement> {
    let mut out: Vec<Statement> = Vec::new();
    let mut continued = false;
    for (i, l) in spec.iter().enumerate() {
        let code = code_part(l).trim();
        let text = code.trim_end_matches('&').trim_start_matches('&').trim();
        match out.last_mut() {
            Some(s) if continued => {
                s.lines.end = i + 1;
                s.code.push(' ');
                s.code.push_str(text);
            }
            _ => out.push(Statement {
                lines: i..i + 1,
                code: text.to_string(),
            }),
        }
        continued = code.ends_with('&');
    }
    out
}

/// The identifiers of a statement, lower case, with the depth of
/// parentheses they stand at and whether they follow `::`.
fn identifiers(code: &str) -> Vec<(String, i32, bool)> {
    let mut out = Vec::new();
    let mut depth = 0;
    let mut after_colons = false;
    for t in tokenize(code) {
        let s = &code[t.start..t.end];
        match (t.kind, s) {
            (TokKind::Punct, "(") => depth += 1,
            (TokKind::Punct, ")") => depth -= 1,
            (TokKind::Punct, "::") => after_colons = true,
            (TokKind::Ident, _) => out.push((s.to_ascii_lowercase(), depth, after_colons)),
            _ => {}
        }
    }
    out
}

/// The names a specification statement declares: the entities after
/// `::`, else every name after its first word (`common /b/ n`,
/// `dimension u(n)`, `parameter (n = 4)`: declaring too much only keeps
/// a harmless line).
fn declared(code: &str) -> HashSet<String> {
    let ids = identifiers(code);
    if ids.iter().any(|(_, _, after)| *after) {
        ids.into_iter()
            .filter(|(_, depth, after)| *after && *depth == 0)
            .map(|(n, _, _)| n)
            .collect()
    } else {
        ids.into_iter().skip(1).map(|(n, _, _)| n).collect()
    }
}

/// The wrapper of a routine under its original name: the original
/// `header` (the AoS unit's, origins as comments), from the
/// specification part `spec` the `use` and `implicit` statements and the
/// declarations of the dummies and of what those name (bounds, kinds),
/// and one call of the split routine (with the header's origin).
pub fn wrapper(
    header: &[String],
    spec: &[String],
    name: &str,
    dummies: &[String],
    split: &BTreeSet<usize>,
) -> Vec<String> {
    let indent: String = header
        .first()
        .map(|h| h.chars().take_while(|c| *c == ' ').collect())
        .unwrap_or_default();
    let stmts = statements(spec);
    let mut keep = vec![false; stmts.len()];
    let mut needed: HashSet<String> = dummies.iter().cloned().collect();
    loop {
        let mut changed = false;
        for (k, s) in stmts.iter().enumerate() {
            if keep[k] {
                continue;
            }
            let always = matches!(first_word(&s.code).as_str(), "use" | "implicit" | "import");
            if always || declared(&s.code).iter().any(|n| needed.contains(n)) {
                keep[k] = true;
                changed = true;
                needed.extend(identifiers(&s.code).into_iter().map(|(n, _, _)| n));
            }
        }
        if !changed {
            break;
        }
    }
    let mut out: Vec<String> = header.to_vec();
    for (k, s) in stmts.iter().enumerate() {
        if keep[k] {
            out.extend(spec[s.lines.clone()].iter().cloned());
        }
    }
    let actuals: Vec<String> = dummies
        .iter()
        .enumerate()
        .map(|(p, d)| {
            if split.contains(&p) {
                format!("{d}%v, {d}%d")
            } else {
                d.clone()
            }
        })
        .collect();
    // The call stands for the routine's header line (`--line-map`,
    // `openad explore`).
    let origin = header
        .first()
        .map_or("", |h| crate::line_origins::origin_comment(h));
    out.push(format!(
        "{indent}  call {}({}){origin}",
        split_name(name),
        actuals.join(", ")
    ));
    out.push(format!("{indent}end subroutine {name}{origin}"));
    out
}

/// The first header line of each subroutine in the program (origins as
/// comments), by lower-case name: one pass, for `end_of`.
pub fn subroutine_headers(program: &[String]) -> HashMap<String, usize> {
    let mut out = HashMap::new();
    for (i, l) in program.iter().enumerate() {
        let code = code_part(l).trim().to_ascii_lowercase();
        if !code.contains("subroutine") {
            continue;
        }
        let words: Vec<&str> = code
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .filter(|w| !w.is_empty())
            .collect();
        if words.first().is_some_and(|w| *w == "end" || *w == "call") {
            continue;
        }
        if let Some(k) = words.iter().position(|w| *w == "subroutine") {
            if let Some(name) = words.get(k + 1) {
                out.entry(name.to_string()).or_insert(i);
            }
        }
    }
    out
}

/// Where the split routine `NAME_oad_s` ends in the program (origins as
/// comments; `headers` from `subroutine_headers`): the first `end`, `end
/// subroutine` or `end subroutine NAME_oad_s` line after its header (it
/// has no internal procedures).
pub fn end_of(program: &[String], headers: &HashMap<String, usize>, name: &str) -> Option<usize> {
    let new = split_name(name);
    let header = *headers.get(&new)?;
    (header + 1..program.len()).find(|&i| {
        let code = code_part(&program[i]).trim().to_ascii_lowercase();
        let words: Vec<&str> = code.split_whitespace().collect();
        matches!(
            words.as_slice(),
            ["end"] | ["endsubroutine"] | ["end", "subroutine"]
        ) || words == ["end", "subroutine", new.as_str()]
            || words == ["endsubroutine", new.as_str()]
    })
}
