//! The front end from input files to the two outputs: load and normalise,
//! parse, build the semantic model, canonicalise, build control flow graphs,
//! run the analyses, emit XAIF and the canonical source.

use crate::analysis::{self, ir};
use crate::ast::{FrontError, Span, UnitKind};
use crate::cfg::{self, Cfg};
use crate::diagnostics::{Diagnostic, Location};
use crate::emit_xaif::{self, Emitter};
use crate::lower;
use crate::parse;
use crate::sema::Program;
use crate::source::{self, Form, NormalizedSource, PragmaKind};
use crate::{canon, emit_canon};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use xaif_schema::model::CallGraph;

/// What the front end produces for a set of input files.
pub struct Output {
    pub xaif: CallGraph,
    pub canon: String,
    pub warnings: Vec<Diagnostic>,
}

/// `$openad` pragmas other than INDEPENDENT/DEPENDENT that are understood
/// (and passed over here).
const KNOWN_PRAGMAS: &[&str] = &["xxx"];

/// Runs the front end on `inputs` (one program, in compile order).
pub fn run(inputs: &[PathBuf], form: Option<Form>) -> Result<Output, Diagnostic> {
    let mut sources = Vec::new();
    let mut warnings = Vec::new();
    for p in inputs {
        let s = source::load(p, form)?;
        warnings.extend(s.warnings.iter().cloned());
        sources.push(s);
    }
    let locate = |span: Span| -> Location {
        match sources.get(span.file) {
            Some(s) if span.line > 0 => s.line_map.location(span.line, span.column.max(1)),
            _ => Location::start_of(inputs.get(span.file).cloned().unwrap_or_default()),
        }
    };
    let to_diag = |e: FrontError| Diagnostic::error(locate(e.span), e.message);
    let mut files = Vec::new();
    for (k, s) in sources.iter().enumerate() {
        files.push(parse::parse_file(&s.text, k).map_err(to_diag)?);
    }
    let mut prog = Program::build(files).map_err(to_diag)?;
    canon::canonicalise(&mut prog).map_err(to_diag)?;
    let mut next_id = 0;
    for u in prog.units.iter_mut() {
        cfg::number_statements(&mut u.ast.body, &mut next_id);
    }
    let mut cfgs: Vec<(usize, Cfg)> = Vec::new();
    for (i, u) in prog.units.iter().enumerate() {
        if u.interface_of.is_none()
            && matches!(u.ast.kind, UnitKind::Subroutine | UnitKind::Function)
        {
            let mut g = cfg::build(&u.ast.body, u.ast.span).map_err(to_diag)?;
            cfg::number_vertices(&mut g, &mut next_id);
            cfgs.push((i, g));
        }
    }
    // The top-level routine: the one holding the pragmas.
    let (top, independents, dependents) =
        seeds_from_pragmas(&prog, &sources, inputs, &mut warnings)?;
    let mut lowered = lower::lower(&prog, &cfgs, next_id);
    let mut resolve_all =
        |names: &[(String, Location)]| -> Result<Vec<ir::LocationId>, Diagnostic> {
            let mut v = Vec::new();
            for (n, loc) in names {
                match lowered.name_loc(&prog, top, n) {
                    Some(l) => v.push(l),
                    None => {
                        return Err(Diagnostic::error(
                            loc.clone(),
                            format!(
                                "pragma names '{n}', which is not a variable of '{}'",
                                prog.units[top].ast.name
                            ),
                        ))
                    }
                }
            }
            Ok(v)
        };
    let independents = resolve_all(&independents)?;
    let dependents = resolve_all(&dependents)?;
    let top_id = *lowered.unit_ids.get(&top).ok_or_else(|| {
        Diagnostic::error(
            locate(prog.units[top].ast.span),
            "the INDEPENDENT/DEPENDENT pragmas must be inside a subroutine",
        )
    })?;
    let seeds = ir::Seeds {
        top: top_id,
        independents,
        dependents,
    };
    let results = analysis::analyze(&lowered.program, &seeds);
    if let Some(e) = results.errors.first() {
        warnings.push(Diagnostic::warning(
            Location::start_of(inputs[0].clone()),
            format!(
                "internal: analysis input rejected ({e:?}); everything real is treated as active"
            ),
        ));
    }
    let line_of = |span: Span| -> u64 {
        if span.line == 0 {
            0
        } else {
            locate(span).line as u64
        }
    };
    let mut emitter = Emitter {
        prog: &prog,
        lowered: &mut lowered,
        results: &results,
        scope_of: HashMap::new(),
        line_of: &line_of,
    };
    let program_name = prog.units[top].ast.name.clone();
    let xaif = emit_xaif::emit(&mut emitter, &cfgs, &program_name).map_err(to_diag)?;
    let canon = emit_canon::emit(&prog);
    Ok(Output {
        xaif,
        canon,
        warnings,
    })
}

type Named = Vec<(String, Location)>;

fn seeds_from_pragmas(
    prog: &Program,
    sources: &[NormalizedSource],
    inputs: &[PathBuf],
    warnings: &mut Vec<Diagnostic>,
) -> Result<(usize, Named, Named), Diagnostic> {
    let mut top: Option<(usize, Location)> = None;
    let mut ind = Vec::new();
    let mut dep = Vec::new();
    for (f, s) in sources.iter().enumerate() {
        for p in &s.pragmas {
            let list = match &p.kind {
                PragmaKind::Independent => &mut ind,
                PragmaKind::Dependent => &mut dep,
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
            match &top {
                None => top = Some((unit, p.location.clone())),
                Some((t, _)) if *t != unit => {
                    return Err(Diagnostic::error(
                        p.location.clone(),
                        format!(
                            "INDEPENDENT/DEPENDENT pragmas in two routines ('{}' and '{}')",
                            prog.units[*t].ast.name, prog.units[unit].ast.name
                        ),
                    ))
                }
                _ => {}
            }
            for n in &p.names {
                list.push((n.clone(), p.location.clone()));
            }
        }
    }
    let Some((top, _)) = top else {
        let first = inputs.first().map(|p| p.as_path()).unwrap_or(Path::new(""));
        return Err(Diagnostic::error(
            Location::new(first, 1, 1),
            "no INDEPENDENT or DEPENDENT pragma",
        ));
    };
    Ok((top, ind, dep))
}
