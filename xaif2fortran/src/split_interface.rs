//! The split layout across calls: which dummy arguments of the program's
//! subroutines take an active array as two `real(8)` arrays (`oad_v_u`,
//! `oad_d_u`) instead of one array of `type(active)`, so that the loops of
//! a called routine run on unit-stride data like those over the caller's
//! split locals (`active_layout.rs`; docs/backend.md, "Layout of active
//! local arrays"); and an active scalar dummy as two `real(8)` scalars, so
//! that the caller's array whose elements it takes can split too.
//!
//! A dummy's layout is part of its routine's interface: every call site
//! must agree with it, so the decision is taken once over the whole
//! generated program (the back end sees all of it), after code
//! generation, on the text of the units `active_layout.rs` rewrites.
//! A subroutine's dummies may be split only when every reference to its
//! name is a `call name(...)` inside those units whose argument list
//! closes on its line, has one actual per dummy and no keyword (or its own
//! header and `end` line, a `public`/`private` statement, a `use ...,
//! only:` without renaming): so never the top-level routine (the user's
//! driver calls it: no call in the program), a routine called through a
//! generic name, an interface body, `external`, a procedure argument or
//! pointer, nor from a unit whose text is not rewritten (a user's
//! `--template` unit, a unit without XAIF). Among those, a dummy position
//! is split while a fixed point keeps it: the dummy itself is splittable
//! in its routine as a local would be (every reference has a split
//! spelling), and every call passes, at that position, an active array of
//! the caller that is split (a split local or split dummy; whole, a
//! section or an element). Anything else (an expression, a module or
//! common variable, a derived-type component, an array the caller keeps
//! in `type(active)`) removes the position, which may keep the caller's
//! array in `type(active)`, and so on until nothing changes. Positions
//! only disappear, so the iteration ends. A scalar dummy's position
//! takes any variable besides: one the caller keeps `type(active)` is
//! passed as `X%v, X%d` (a scalar is passed by reference: no copy, the
//! same storage and aliasing as `X`); only a non-variable removes it.
//!
//! A routine whose dummies split keeps its user's interface: the split
//! routine is renamed `NAME_oad_s` and a wrapper under the original name
//! passes `u%v, u%d` to it (`wrappers.rs`), so a driver may still call any
//! subroutine with `type(active)` arguments (CONTRACT.md).

use std::collections::{BTreeSet, HashMap, HashSet};

use crate::active_layout::{apply_with, decide_with, Interfaces};
use crate::fortran_text::{tokenize, TokKind};

/// A unit's generated text in the program's lines: `start..end`, its
/// executable part from `body_at`, its header `header_len` lines long;
/// `has_internal`: it contains internal procedures.
#[derive(Debug, Clone)]
pub struct UnitText {
    pub start: usize,
    pub body_at: usize,
    pub end: usize,
    pub header_len: usize,
    pub has_internal: bool,
}

/// Per subroutine (lower case), the positions (from 0) of its dummies
/// that take the split layout.
pub type Plan = HashMap<String, BTreeSet<usize>>;

/// One unit's text and what its header says.
struct Unit {
    lines: Vec<String>,
    body_at: usize,
    header_len: usize,
    has_internal: bool,
    /// Names in the header (dummies, the unit's name).
    interface: HashSet<String>,
    /// A subroutine: its name and dummies, in order.
    routine: Option<(String, Vec<String>)>,
}

/// The name and dummies of a `subroutine` header (not `elemental`: its
/// dummies are scalars in the callee).
fn subroutine_header(header: &[String]) -> Option<(String, Vec<String>)> {
    let text: String = header
        .iter()
        .map(|l| {
            crate::fortran_text::code_part(l)
                .trim()
                .trim_end_matches('&')
        })
        .collect::<Vec<_>>()
        .join(" ");
    let toks = tokenize(&text);
    let code: Vec<&str> = toks
        .iter()
        .filter(|t| !matches!(t.kind, TokKind::Space | TokKind::Comment))
        .map(|t| &text[t.start..t.end])
        .collect();
    let at = code
        .iter()
        .position(|w| w.eq_ignore_ascii_case("subroutine"))?;
    if code[..at]
        .iter()
        .any(|w| w.eq_ignore_ascii_case("elemental"))
    {
        return None;
    }
    let name = code.get(at + 1)?.to_ascii_lowercase();
    let mut dummies = Vec::new();
    if code.get(at + 2) == Some(&"(") {
        for w in &code[at + 3..] {
            match *w {
                ")" => break,
                "," => {}
                w => dummies.push(w.to_ascii_lowercase()),
            }
        }
    }
    Some((name, dummies))
}

/// Whether token `k` of `line` (a routine's name) is a reference the plan
/// can follow: a call with one actual per dummy, no keyword, closing on
/// the line.
fn is_plain_call(line: &str, k: usize, n_dummies: usize) -> bool {
    let toks = tokenize(line);
    let code = |j: usize| !matches!(toks[j].kind, TokKind::Space | TokKind::Comment);
    let s = |j: usize| &line[toks[j].start..toks[j].end];
    let prev = (0..k).rev().find(|&j| code(j));
    let next = (k + 1..toks.len()).find(|&j| code(j));
    if !prev.is_some_and(|p| s(p).eq_ignore_ascii_case("call")) {
        return false;
    }
    let Some(open) = next.filter(|&j| s(j) == "(") else {
        return n_dummies == 0;
    };
    let mut depth = 0usize;
    let mut args = 1;
    let mut empty = true;
    for j in open..toks.len() {
        if !code(j) {
            continue;
        }
        match s(j) {
            "(" => depth += 1,
            ")" => {
                depth -= 1;
                if depth == 0 {
                    return if empty {
                        n_dummies == 0
                    } else {
                        args == n_dummies
                    };
                }
            }
            "," if depth == 1 => args += 1,
            "=" if depth == 1 => return false,
            _ => empty = false,
        }
    }
    false
}

/// Whether a line is a statement that names a routine without using it:
/// its `end`, `public`/`private`, or a `use ..., only:` without renaming.
fn is_harmless_mention(line: &str) -> bool {
    let code = crate::fortran_text::code_part(line)
        .trim()
        .to_ascii_lowercase();
    let first = code
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .next()
        .unwrap_or("");
    match first {
        "end" | "endsubroutine" | "public" | "private" => true,
        "use" => !code.contains("=>"),
        _ => false,
    }
}

/// The routines whose interfaces may change, with all their dummy
/// positions: those named only where [`is_plain_call`] or
/// [`is_harmless_mention`] allow, called at least once, declared once.
fn eligible(program: &[String], units: &[UnitText], texts: &[Unit]) -> Plan {
    let mut declared: HashMap<&str, Vec<usize>> = HashMap::new();
    for (u, t) in texts.iter().enumerate() {
        if let Some((name, _)) = &t.routine {
            declared.entry(name.as_str()).or_default().push(u);
        }
    }
    let unit_of_line = |i: usize| units.iter().position(|u| (u.start..u.end).contains(&i));
    let mut calls: HashMap<&str, usize> = HashMap::new();
    let mut refused: HashSet<&str> = declared
        .iter()
        .filter(|(_, us)| us.len() > 1)
        .map(|(n, _)| *n)
        .collect();
    for (i, raw) in program.iter().enumerate() {
        let line = crate::line_origins::origin_as_comment(raw.clone());
        let toks = tokenize(&line);
        for (k, t) in toks.iter().enumerate() {
            if t.kind != TokKind::Ident {
                continue;
            }
            let word = line[t.start..t.end].to_ascii_lowercase();
            let Some((&name, us)) = declared.get_key_value(word.as_str()) else {
                continue;
            };
            let own = &units[us[0]];
            let n_dummies = texts[us[0]].routine.as_ref().map_or(0, |r| r.1.len());
            if (own.start..own.start + own.header_len).contains(&i) || is_harmless_mention(&line) {
                continue;
            }
            if unit_of_line(i).is_some() && is_plain_call(&line, k, n_dummies) {
                *calls.entry(name).or_default() += 1;
            } else {
                refused.insert(name);
            }
        }
    }
    texts
        .iter()
        .filter_map(|t| t.routine.as_ref())
        .filter(|(name, dummies)| {
            !refused.contains(name.as_str())
                && calls.get(name.as_str()).is_some_and(|&c| c > 0)
                && !dummies.is_empty()
        })
        .map(|(name, dummies)| (name.clone(), (0..dummies.len()).collect()))
        .collect()
}

/// Keeps in the plan what a wrapper under the user's name can reach
/// (`wrappers.rs`): a user's routine that can be renamed and whose `end`
/// line follows its unit, at the positions whose `type(active)` dummy can
/// pass `u%v` (not allocatable, not assumed-size).
fn keep_wrappable(plan: &mut Plan, program: &[String], units: &[UnitText], texts: &[Unit]) {
    let identifiers = wrappers::identifiers_of(program);
    for (u, t) in texts.iter().enumerate() {
        let Some((name, dummies)) = &t.routine else {
            continue;
        };
        let Some(ps) = plan.get_mut(name) else {
            continue;
        };
        if !wrappers::is_users(name) {
            continue;
        }
        let ends = program.get(units[u].end).is_some_and(|l| {
            let code = crate::fortran_text::code_part(l)
                .trim()
                .to_ascii_lowercase();
            code == "end" || code.starts_with("end subroutine") || code.starts_with("endsubroutine")
        });
        if !ends || !wrappers::renamable(name, &identifiers) {
            ps.clear();
        }
        let spec = &t.lines[t.header_len.min(t.body_at)..t.body_at];
        ps.retain(|&p| dummies.get(p).is_some_and(|d| wrappers::passable(spec, d)));
    }
    plan.retain(|_, ps| !ps.is_empty());
}

/// The dummies of `routine` at the positions the plan splits.
fn planned_dummies(plan: &Plan, routine: &Option<(String, Vec<String>)>) -> BTreeSet<String> {
    let Some((name, dummies)) = routine else {
        return BTreeSet::new();
    };
    plan.get(name)
        .map(|ps| ps.iter().filter_map(|&p| dummies.get(p).cloned()).collect())
        .unwrap_or_default()
}

/// Per subroutine, the positions of its dummies declared as scalars
/// `type(active) :: x` (`active_layout::active_scalar`).
fn scalar_positions(texts: &[Unit]) -> Plan {
    texts
        .iter()
        .filter_map(|t| {
            let (name, dummies) = t.routine.as_ref()?;
            let spec = &t.lines[t.header_len.min(t.body_at)..t.body_at];
            let scalars: HashSet<String> = spec
                .iter()
                .filter_map(|l| crate::active_layout::active_scalar(l))
                .map(|d| d.name.to_ascii_lowercase())
                .collect();
            let ps: BTreeSet<usize> = (0..dummies.len())
                .filter(|&p| scalars.contains(&dummies[p]))
                .collect();
            (!ps.is_empty()).then(|| (name.clone(), ps))
        })
        .collect()
}

/// Decides which dummy positions of the program's subroutines take the
/// split layout (the fixed point described in the module's comment).
fn decide_plan(program: &[String], units: &[UnitText], texts: &[Unit], scalars: &Plan) -> Plan {
    let mut plan = eligible(program, units, texts);
    keep_wrappable(&mut plan, program, units, texts);
    loop {
        let mut removed: Vec<(String, usize)> = Vec::new();
        for t in texts {
            let dummies = planned_dummies(&plan, &t.routine);
            let iface = Interfaces {
                dummies: &dummies,
                header_len: t.header_len,
                callees: &plan,
                scalars,
            };
            let d = decide_with(&t.lines, t.body_at, &t.interface, t.has_internal, iface);
            if let Some((name, all)) = &t.routine {
                for (p, dummy) in all.iter().enumerate() {
                    if dummies.contains(dummy) && !d.split.contains(dummy) {
                        removed.push((name.clone(), p));
                    }
                }
            }
            for a in d.actuals {
                // A scalar dummy takes any variable (`X%v, X%d` are passed
                // by reference); an array dummy only a split array.
                let scalar = scalars
                    .get(&a.callee)
                    .is_some_and(|ps| ps.contains(&a.position));
                let passes = if scalar {
                    a.designator
                } else {
                    a.array.is_some_and(|n| d.split.contains(&n))
                };
                if !passes {
                    removed.push((a.callee, a.position));
                }
            }
        }
        let mut changed = false;
        for (name, p) in removed {
            if let Some(ps) = plan.get_mut(&name) {
                changed |= ps.remove(&p);
            }
        }
        plan.retain(|_, ps| !ps.is_empty());
        if !changed {
            return plan;
        }
    }
}

/// Rewrites the units `units` of the program's lines (`program`, lines
/// carrying their origins) to the split layout of their active local
/// arrays and of the dummies the plan splits, with the calls passing both
/// parts (`dummies`: else only the locals). Returns the plan.
pub fn apply(program: &mut Vec<String>, units: &[UnitText], dummies: bool) -> Plan {
    let texts: Vec<Unit> = units
        .iter()
        .map(|u| {
            let lines: Vec<String> = program[u.start..u.end]
                .iter()
                .cloned()
                .map(crate::line_origins::origin_as_comment)
                .collect();
            let header = &lines[..u.header_len.min(lines.len())];
            let interface = header
                .iter()
                .flat_map(|l| {
                    tokenize(l)
                        .into_iter()
                        .filter(|t| t.kind == TokKind::Ident)
                        .map(|t| l[t.start..t.end].to_ascii_lowercase())
                        .collect::<Vec<_>>()
                })
                .collect();
            Unit {
                routine: subroutine_header(header),
                lines,
                body_at: u.body_at - u.start,
                header_len: u.header_len,
                has_internal: u.has_internal,
                interface,
            }
        })
        .collect();
    let scalars = scalar_positions(&texts);
    let plan = if dummies {
        decide_plan(program, units, &texts, &scalars)
    } else {
        Plan::new()
    };
    // The user's interface of each renamed routine, from its AoS text.
    let wrapped: Vec<(String, Vec<String>)> = texts
        .iter()
        .filter_map(|t| {
            let (name, dummies) = t.routine.as_ref()?;
            let split = plan.get(name).filter(|_| wrappers::is_users(name))?;
            let spec = &t.lines[t.header_len.min(t.body_at)..t.body_at];
            let header = &t.lines[..t.header_len.min(t.body_at)];
            Some((
                name.clone(),
                wrappers::wrapper(header, spec, name, dummies, split),
            ))
        })
        .collect();
    // From the last unit back, so that the earlier ones keep their place.
    let mut order: Vec<usize> = (0..units.len()).collect();
    order.sort_by_key(|&u| std::cmp::Reverse(units[u].start));
    let mut texts: Vec<Option<Unit>> = texts.into_iter().map(Some).collect();
    for u in order {
        let Some(mut t) = texts[u].take() else {
            continue;
        };
        let dummies = planned_dummies(&plan, &t.routine);
        let iface = Interfaces {
            dummies: &dummies,
            header_len: t.header_len,
            callees: &plan,
            scalars: &scalars,
        };
        apply_with(&mut t.lines, t.body_at, &t.interface, t.has_internal, iface);
        let rewritten = t
            .lines
            .into_iter()
            .map(crate::line_origins::origin_from_comment);
        program.splice(units[u].start..units[u].end, rewritten);
    }
    if !wrapped.is_empty() {
        add_wrappers(program, wrapped);
    }
    plan
}

/// Renames the split routines `NAME_oad_s` throughout the program and puts
/// each one's wrapper (`wrappers.rs`) right after it.
fn add_wrappers(program: &mut Vec<String>, wrapped: Vec<(String, Vec<String>)>) {
    let mut lines: Vec<String> = std::mem::take(program)
        .into_iter()
        .map(crate::line_origins::origin_as_comment)
        .collect();
    let renamed: HashSet<String> = wrapped.iter().map(|(n, _)| n.clone()).collect();
    wrappers::rename(&mut lines, &renamed);
    let headers = wrappers::subroutine_headers(&lines);
    let mut at: Vec<(usize, Vec<String>)> = wrapped
        .into_iter()
        .map(|(name, w)| {
            // The plan checked the `end` line; the rename keeps it.
            let end = wrappers::end_of(&lines, &headers, &name).unwrap_or(lines.len() - 1);
            (end + 1, w)
        })
        .collect();
    at.sort_by_key(|(i, _)| std::cmp::Reverse(*i));
    for (i, w) in at {
        lines.splice(i..i, w);
    }
    *program = lines
        .into_iter()
        .map(crate::line_origins::origin_from_comment)
        .collect();
}

#[cfg(test)]
mod tests;
mod wrappers;
