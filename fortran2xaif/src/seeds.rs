//! The differentiation request from the INDEPENDENT/DEPENDENT pragmas: the
//! top-level routine and its independent and dependent locations.
//!
//! Pragmas may sit in several routines (independents set up in one,
//! dependents computed in another). The top-level routine is then the
//! lowest routine that calls, directly or not, every routine holding a
//! pragma: the one a driver calls. A name in a pragma of another routine
//! is taken back to the top-level routine along the argument bindings of
//! the calls (a dummy bound at every call to the same dummy or module
//! variable of the caller, up to the top; an element or section stands for
//! its whole array); module and common variables
//! stand for themselves. The driver seeds the top's arguments on entry and
//! reads them on exit, so that is where the seeds go.

use std::collections::{HashMap, HashSet};

use crate::analysis::ir::{self, Callee, LocationId, LocationKind, UnitId};
use crate::ast::UnitKind;
use crate::diagnostics::{Diagnostic, Location};
use crate::lower::Lowered;
use crate::sema::{Binding, Cat, Program};
use crate::source::{NormalizedSource, PragmaKind};

/// `$openad` pragmas other than INDEPENDENT/DEPENDENT that are understood
/// (and passed over here).
const KNOWN_PRAGMAS: &[&str] = &["xxx", "black-box"];

/// One INDEPENDENT or DEPENDENT pragma: its routine (front-end unit
/// index), whether it names independents, the names and where it is.
pub struct SeedPragma {
    unit: usize,
    independent: bool,
    names: Vec<String>,
    location: Location,
}

/// The INDEPENDENT/DEPENDENT pragmas of all sources with their routines;
/// warns about unknown pragmas.
pub fn collect(
    prog: &Program,
    sources: &[NormalizedSource],
    first_input: Location,
    warnings: &mut Vec<Diagnostic>,
) -> Result<Vec<SeedPragma>, Diagnostic> {
    let mut out = Vec::new();
    for (f, s) in sources.iter().enumerate() {
        for p in &s.pragmas {
            let independent = match &p.kind {
                PragmaKind::Independent => true,
                PragmaKind::Dependent => false,
                // Matched with its loop by `checkpoint_pragmas`.
                PragmaKind::CheckpointBinomial { .. } => continue,
                PragmaKind::Other(text) => {
                    let word = text
                        .split_whitespace()
                        .next()
                        .unwrap_or("")
                        .to_ascii_lowercase();
                    if !KNOWN_PRAGMAS.contains(&word.as_str()) {
                        warnings.push(Diagnostic::warning(
                            p.location.clone(),
                            format!("unknown $openad pragma '{text}' ignored"),
                        ));
                    }
                    continue;
                }
            };
            // The innermost subprogram whose lines hold the pragma.
            let unit = (0..prog.units.len())
                .filter(|&i| {
                    let u = &prog.units[i];
                    u.ast.span.file == f
                        && u.interface_of.is_none()
                        && matches!(u.ast.kind, UnitKind::Subroutine | UnitKind::Function)
                        && u.ast.span.line <= p.line
                        && p.line <= u.end_line_or_span()
                })
                .max_by_key(|&i| prog.units[i].ast.span.line)
                .ok_or_else(|| {
                    Diagnostic::error(
                        p.location.clone(),
                        "INDEPENDENT/DEPENDENT pragma outside a subroutine",
                    )
                })?;
            // The driver API's `type(active)` is real: complex data lives
            // inside the model only (docs/user-guide.md).
            for n in &p.names {
                let base = n.split(['(', '%']).next().unwrap_or(n).trim();
                if let Some((o, k)) = prog.var(unit, base) {
                    if matches!(prog.cat_of(o, &prog.symbol(o, k).ty), Cat::Complex(_)) {
                        return Err(Diagnostic::unsupported(
                            p.location.clone(),
                            format!(
                                "unsupported construct: complex variable '{base}' as {}: independents and dependents are real (declare real(8) parts and build the complex value inside, e.g. with cmplx)",
                                if independent { "an INDEPENDENT" } else { "a DEPENDENT" }
                            ),
                        ));
                    }
                }
            }
            out.push(SeedPragma {
                unit,
                independent,
                names: p.names.clone(),
                location: p.location.clone(),
            });
        }
    }
    if out.is_empty() {
        return Err(Diagnostic::error(
            first_input,
            "no INDEPENDENT or DEPENDENT pragma",
        ));
    }
    Ok(out)
}

/// The top-level routine (front-end unit index) and the seeds.
pub fn resolve(
    prog: &Program,
    lowered: &mut Lowered,
    pragmas: &[SeedPragma],
    locate_unit: &dyn Fn(usize) -> Location,
) -> Result<(usize, ir::Seeds), Diagnostic> {
    let ir_unit = |lowered: &Lowered, u: usize| -> Result<UnitId, Diagnostic> {
        lowered.unit_ids.get(&u).copied().ok_or_else(|| {
            Diagnostic::error(
                locate_unit(u),
                "the INDEPENDENT/DEPENDENT pragmas must be inside a subroutine",
            )
        })
    };
    let mut holders: Vec<usize> = pragmas.iter().map(|p| p.unit).collect();
    holders.sort_unstable();
    holders.dedup();
    let top = if holders.len() == 1 {
        holders[0]
    } else {
        common_caller(prog, lowered, &holders, pragmas)?
    };
    let top_id = ir_unit(lowered, top)?;
    let mut seeds = ir::Seeds {
        top: top_id,
        ..ir::Seeds::default()
    };
    for p in pragmas {
        for n in &p.names {
            let not_found = || {
                Diagnostic::error(
                    p.location.clone(),
                    format!(
                        "pragma names '{n}', which is not a variable of '{}'",
                        prog.units[p.unit].ast.name
                    ),
                )
            };
            // A variable of the top routine seen by host association is
            // the top's own (not the stand-in its internal procedures use).
            let owner = match prog.resolve(p.unit, n) {
                Some(Binding::Var { owner, .. }) => owner,
                _ => p.unit,
            };
            let seen_from = if owner == top { top } else { p.unit };
            let loc = lowered.name_loc(prog, seen_from, n).ok_or_else(not_found)?;
            let loc = if seen_from == top {
                loc
            } else {
                bound_in_top(&lowered.program, top_id, loc).map_err(|why| {
                    Diagnostic::error(
                        p.location.clone(),
                        format!(
                            "pragma in '{}' names '{n}', which cannot be taken back to the top-level routine '{}': {why}",
                            prog.units[p.unit].ast.name, prog.units[top].ast.name
                        ),
                    )
                })?
            };
            if p.independent {
                seeds.independents.push(loc);
            } else {
                seeds.dependents.push(loc);
            }
        }
    }
    Ok((top, seeds))
}

/// The calls of each IR unit: (callee, actuals).
type CallsOf<'p> = Vec<Vec<(UnitId, &'p [Option<LocationId>])>>;

fn calls_of(program: &ir::Program) -> CallsOf<'_> {
    program
        .units
        .iter()
        .map(|u| {
            u.blocks
                .iter()
                .flat_map(|b| &b.stmts)
                .filter_map(|s| match s {
                    ir::Stmt::Call {
                        callee: Callee::Unit(c),
                        actuals,
                        ..
                    } => Some((*c, actuals.as_slice())),
                    _ => None,
                })
                .collect()
        })
        .collect()
}

/// Units reachable from `from` (itself included).
fn reachable(calls: &CallsOf<'_>, from: UnitId) -> HashSet<UnitId> {
    let mut seen = HashSet::from([from]);
    let mut stack = vec![from];
    while let Some(u) = stack.pop() {
        for (c, _) in &calls[u.index()] {
            if seen.insert(*c) {
                stack.push(*c);
            }
        }
    }
    seen
}

/// The lowest routine from which every pragma holder is reachable.
fn common_caller(
    prog: &Program,
    lowered: &Lowered,
    holders: &[usize],
    pragmas: &[SeedPragma],
) -> Result<usize, Diagnostic> {
    let calls = calls_of(&lowered.program);
    let front_of: HashMap<UnitId, usize> = lowered.unit_ids.iter().map(|(f, u)| (*u, *f)).collect();
    let wanted: Vec<UnitId> = holders
        .iter()
        .filter_map(|h| lowered.unit_ids.get(h).copied())
        .collect();
    let reach: Vec<HashSet<UnitId>> = (0..lowered.program.units.len())
        .map(|u| reachable(&calls, UnitId(u as u32)))
        .collect();
    let candidates: Vec<UnitId> = (0..reach.len())
        .map(|u| UnitId(u as u32))
        .filter(|u| wanted.iter().all(|w| reach[u.index()].contains(w)))
        .collect();
    let lowest: Vec<UnitId> = candidates
        .iter()
        .copied()
        .filter(|c| {
            !candidates
                .iter()
                .any(|o| o != c && reach[c.index()].contains(o))
        })
        .collect();
    let names = |units: &[usize]| {
        units
            .iter()
            .map(|u| format!("'{}'", prog.units[*u].ast.name))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let at = pragmas[pragmas.len() - 1].location.clone();
    match lowest.as_slice() {
        [one] => front_of.get(one).copied().ok_or_else(|| {
            Diagnostic::error(at, "the top-level routine is not a subroutine")
        }),
        [] => Err(Diagnostic::error(
            at,
            format!(
                "INDEPENDENT/DEPENDENT pragmas in {} and no routine calls all of them: the top-level routine (the one a driver calls) must reach every routine holding one",
                names(holders)
            ),
        )),
        several => {
            let found: Vec<usize> = several.iter().filter_map(|u| front_of.get(u).copied()).collect();
            Err(Diagnostic::error(
                at,
                format!(
                    "INDEPENDENT/DEPENDENT pragmas in {}: {} all call them, so the top-level routine is ambiguous (put a pragma in the one a driver calls)",
                    names(holders),
                    names(&found)
                ),
            ))
        }
    }
}

/// The location of `top` (its dummy or a global) that `loc` stands for at
/// `top`'s entry and exit, following argument bindings up the calls.
fn bound_in_top(
    program: &ir::Program,
    top: UnitId,
    loc: LocationId,
) -> Result<LocationId, Unbound> {
    let calls = calls_of(program);
    let from_top = reachable(&calls, top);
    let mut current = vec![loc];
    let mut seen = HashSet::new();
    let mut found: Option<LocationId> = None;
    while let Some(l) = current.pop() {
        if !seen.insert(l) {
            continue;
        }
        let info = &program.locations[l.index()];
        let name = short_name(&info.name);
        match info.kind {
            LocationKind::Global => {}
            LocationKind::Dummy { unit, .. } if unit == top => {}
            LocationKind::Local { unit } => {
                return Err(Unbound::Local {
                    name: name.to_string(),
                    unit: program.units[unit.index()].name.clone(),
                })
            }
            LocationKind::Dummy { unit, position } => {
                let mut bound = false;
                for caller in from_top.iter() {
                    for (callee, actuals) in &calls[caller.index()] {
                        if *callee != unit {
                            continue;
                        }
                        bound = true;
                        // Part of an array stands for the whole array:
                        // the seeds are whole variables of the top.
                        match actuals.get(position).copied().flatten() {
                            Some(a) => current.push(a),
                            None => {
                                return Err(Unbound::Expression {
                                    name: name.to_string(),
                                    unit: program.units[unit.index()].name.clone(),
                                    caller: program.units[caller.index()].name.clone(),
                                })
                            }
                        }
                    }
                }
                if !bound {
                    return Err(Unbound::NotCalled {
                        name: name.to_string(),
                        unit: program.units[unit.index()].name.clone(),
                    });
                }
                continue;
            }
        }
        match found {
            None => found = Some(l),
            Some(f) if f == l => {}
            Some(f) => {
                return Err(Unbound::Ambiguous {
                    first: short_name(&program.locations[f.index()].name).to_string(),
                    second: name.to_string(),
                })
            }
        }
    }
    found.ok_or(Unbound::NoBinding)
}

/// Why a pragma's variable cannot be taken back to the top-level routine
/// (a semantic error, placed at the pragma by the caller).
#[derive(Debug, thiserror::Error)]
enum Unbound {
    #[error(
        "'{name}' is a local variable of '{unit}', which the top-level routine's caller cannot see"
    )]
    Local { name: String, unit: String },
    #[error("'{name}' of '{unit}' is passed an expression or a constant by a call in '{caller}'")]
    Expression {
        name: String,
        unit: String,
        caller: String,
    },
    #[error("'{name}' is an argument of '{unit}', which the top-level routine does not call")]
    NotCalled { name: String, unit: String },
    #[error("it stands for '{first}' at one call and for '{second}' at another")]
    Ambiguous { first: String, second: String },
    #[error("no binding found")]
    NoBinding,
}

/// A location's variable name without the unit that owns it.
fn short_name(name: &str) -> &str {
    name.rsplit(':').next().unwrap_or(name)
}

#[cfg(test)]
mod tests {
    use crate::pipeline::run;

    /// The front end's error for a program, at `line:column`.
    fn refusal(src: &str) -> (usize, String) {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("t.f90");
        std::fs::write(&p, src).unwrap();
        let d = run(&[p], None).err().expect("refused");
        (d.location.line, d.message)
    }

    const CALLEES: &str = "\
subroutine setup(c, u)
  real(8) :: c(2), u(2), w(2)
  !$openad INDEPENDENT(PRAGMA_NAME)
  w = c
  u = w * 2
end subroutine
subroutine finish(u, j)
  real(8) :: u(2), j
  j = sum(u**2)
  !$openad DEPENDENT(j)
end subroutine
";

    #[test]
    fn a_local_of_a_callee_cannot_be_an_independent() {
        let src = format!(
            "{}subroutine head(x, y)\n  real(8) :: x(2), y, u(2)\n  call setup(x, u)\n  call finish(u, y)\nend subroutine\n",
            CALLEES.replace("PRAGMA_NAME", "w")
        );
        let (line, message) = refusal(&src);
        assert_eq!(line, 3, "{message}");
        assert!(
            message.contains("'w' is a local variable of 'setup'") && message.contains("'head'"),
            "{message}"
        );
    }

    #[test]
    fn a_dummy_bound_to_different_variables_is_refused() {
        let src = format!(
            "{}subroutine head(x, v, y)\n  real(8) :: x(2), y, u(2), v(2)\n  call setup(x, u)\n  call setup(v, u)\n  call finish(u, y)\nend subroutine\n",
            CALLEES.replace("PRAGMA_NAME", "c")
        );
        let (_, message) = refusal(&src);
        assert!(
            message.contains("stands for") && message.contains("'x'") && message.contains("'v'"),
            "{message}"
        );
    }

    #[test]
    fn pragma_routines_without_a_common_caller_are_refused() {
        let src = format!(
            "{}subroutine head(x, y)\n  real(8) :: x(2), y, u(2)\n  call setup(x, u)\nend subroutine\n",
            CALLEES.replace("PRAGMA_NAME", "c")
        );
        let (_, message) = refusal(&src);
        assert!(
            message.contains("no routine calls all of them"),
            "{message}"
        );
    }

    #[test]
    fn two_lowest_common_callers_are_ambiguous() {
        let src = format!(
            "{}subroutine head(x, y)\n  real(8) :: x(2), y, u(2)\n  call setup(x, u)\n  call finish(u, y)\nend subroutine\nsubroutine other(x, y)\n  real(8) :: x(2), y, u(2)\n  call setup(x, u)\n  call finish(u, y)\nend subroutine\n",
            CALLEES.replace("PRAGMA_NAME", "c")
        );
        let (_, message) = refusal(&src);
        assert!(
            message.contains("ambiguous")
                && message.contains("'head'")
                && message.contains("'other'"),
            "{message}"
        );
    }
}
