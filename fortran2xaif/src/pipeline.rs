//! The front end from input files to the two outputs: load and normalise,
//! parse, build the semantic model, canonicalise, build control flow graphs,
//! run the analyses, emit XAIF and the canonical source.

use crate::analysis;
use crate::ast::{FrontError, Span, UnitKind};
use crate::black_box::Library;
use crate::cfg::{self, Cfg};
use crate::diagnostics::{Diagnostic, Location};
use crate::emit_xaif::{self, Emitter};
use crate::lower;
use crate::parse;
use crate::sema::Program;
use crate::source::{self, Form, LoadOptions};
use crate::{canon, emit_canon};
use std::collections::HashMap;
use std::path::PathBuf;
use xaif_schema::activity_report::ActivityReport;
use xaif_schema::declarations::Declarations;
use xaif_schema::driver_interface::DriverInterface;
use xaif_schema::model::CallGraph;
use xaif_schema::source_map::{SourceLocation, SourceMap};

/// What the front end produces for a set of input files.
pub struct Output {
    pub xaif: CallGraph,
    pub canon: String,
    /// Source positions of the XAIF's statements, symbols and units.
    pub locations: SourceMap,
    /// The attributes of the canonical source's declarations (`--declarations`).
    pub declarations: Declarations,
    /// The top-level routine as a driver calls it (`--interface`).
    pub interface: DriverInterface,
    /// Why each variable is active or passive (`--activity`).
    pub activity: ActivityReport,
    pub warnings: Vec<Diagnostic>,
}

/// How the front end reads and types the program.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Source form and C preprocessor.
    pub load: LoadOptions,
    /// `real` without a kind is `real(8)` (gfortran's `-fdefault-real-8`
    /// with `-fdefault-double-8`): declarations, implicit types, literals
    /// and conversions; the canonical source says so explicitly.
    pub default_real_8: bool,
    /// Routines without source declared with `--black-box FILE`.
    pub black_boxes: Library,
}

/// Runs the front end on `inputs` (one program, in compile order).
pub fn run(inputs: &[PathBuf], form: Option<Form>) -> Result<Output, Diagnostic> {
    run_with(
        inputs,
        &Options {
            load: LoadOptions {
                form,
                ..LoadOptions::default()
            },
            ..Options::default()
        },
    )
}

/// Runs the front end on `inputs` with `options`.
pub fn run_with(inputs: &[PathBuf], options: &Options) -> Result<Output, Diagnostic> {
    let mut sources = Vec::new();
    let mut warnings = Vec::new();
    for p in inputs {
        let s = source::load_with(p, &options.load)?;
        warnings.extend(s.warnings.iter().cloned());
        sources.push(s);
    }
    let locate = |span: Span| -> Location {
        match sources.get(span.file) {
            Some(s) if span.line > 0 => s.line_map.location(span.line, span.column.max(1)),
            _ => Location::start_of(inputs.get(span.file).cloned().unwrap_or_default()),
        }
    };
    let to_diag = |e: FrontError| Diagnostic::error(locate(e.span), e.message).with_kind(e.kind);
    let mut files = Vec::new();
    for (k, s) in sources.iter().enumerate() {
        let mut file = parse::parse_file(&s.text, k).map_err(to_diag)?;
        if options.default_real_8 {
            crate::default_real::promote(&mut file);
        }
        files.push(file);
    }
    crate::type_bound::devirtualise(&mut files).map_err(to_diag)?;
    crate::abstract_interfaces::resolve(&mut files).map_err(to_diag)?;
    crate::procedure_arguments::specialise(&mut files).map_err(to_diag)?;
    let mut clock = StageClock::new();
    let mut prog = Program::build_with(files, options.default_real_8).map_err(to_diag)?;
    let mut black_boxes = options.black_boxes.clone();
    crate::black_box_pragmas::declare_from_pragmas(&prog, &sources, &mut black_boxes)?;
    reject_black_boxes_with_source(&prog, &black_boxes, &locate)?;
    prog.black_boxes = black_boxes;
    let checkpointed = crate::checkpoint_pragmas::match_loops(&prog, &sources, &locate)?;
    canon::canonicalise(&mut prog).map_err(to_diag)?;
    for (span, message) in std::mem::take(&mut prog.canon_warnings) {
        warnings.push(Diagnostic::warning(locate(span), message));
    }
    clock.lap("parse, semantics, canonicalisation");
    let mut next_id = 0;
    for u in prog.units.iter_mut() {
        cfg::number_statements(&mut u.ast.body, &mut next_id);
    }
    let checkpointed = crate::checkpoint_pragmas::check_bodies(&prog, &checkpointed, &locate)?;
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
    // The top-level routine and its seeds, from the pragmas.
    let first_input = Location::start_of(inputs.first().cloned().unwrap_or_default());
    let pragmas = crate::seeds::collect(&prog, &sources, first_input, &mut warnings)?;
    clock.lap("control flow graphs");
    let pointers = crate::pointer_aliases::classes(&prog).map_err(to_diag)?;
    let mut lowered = lower::lower(&prog, &cfgs, next_id, &pointers);
    let locate_unit = |u: usize| locate(prog.units[u].ast.span);
    let (top, seeds) = crate::seeds::resolve(&prog, &mut lowered, &pragmas, &locate_unit)?;
    let interface = crate::interface::describe(&prog, &lowered, top, &seeds);
    clock.lap("lowering");
    // XAIF carries no chains of arrays (emit_xaif.rs): not computing them
    // keeps the analyses linear (docs/benchmarks.md, 25 Nov 2026 (9)).
    let mut results = analysis::analyze_for(&lowered.program, &seeds, analysis::ChainsOf::Scalars);
    let activity = crate::activity_report::describe(&prog, &lowered, &seeds, &results);
    reject_pointers_to_active_complex(&prog, &mut lowered, &results).map_err(to_diag)?;
    reject_active_namelist_members(&prog, &mut lowered, &results).map_err(to_diag)?;
    prog.pointer_fields = {
        let mut active = |(owner, sym): crate::pointer_aliases::Var| {
            let l = lowered.loc(&prog, owner, sym);
            lowered.program.locations[l.index()].differentiable_type
                && (results.activity.conservative
                    || results.activity.declared_active.contains(l.index()))
        };
        crate::pointer_aliases::adjoint_fields(&prog, &pointers, &mut active)
    };
    if !results.activity.conservative {
        let unit_ids: HashMap<usize, usize> = lowered
            .unit_ids
            .iter()
            .map(|(&u, id)| (u, id.0 as usize))
            .collect();
        let callers: Vec<Vec<usize>> = analysis::call_graph::CallGraph::build(&lowered.program)
            .callers
            .iter()
            .map(|c| c.iter().map(|id| id.0 as usize).collect())
            .collect();
        for u in crate::pointer_aliases::association_units(
            &prog,
            &prog.pointer_fields,
            &unit_ids,
            &callers,
        ) {
            results.activity.active_units.insert(u);
        }
    }
    for (span, name, variable) in
        crate::bit_intrinsics::calls_on_active_data(&prog, &mut lowered, &results)
    {
        warnings.push(Diagnostic::warning(
            locate(span),
            format!("'{name}' reads the bit pattern of the active variable '{variable}': its result is passive, no derivative flows through it"),
        ));
    }
    clock.lap("analyses");
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
    let place_of = |span: Span| -> Option<SourceLocation> {
        (span.line > 0).then(|| {
            let at = locate(span);
            SourceLocation {
                file: at.file.display().to_string(),
                line: at.line as u64,
                column: at.column as u64,
            }
        })
    };
    let mut emitter = Emitter {
        prog: &prog,
        lowered: &mut lowered,
        results: &results,
        scope_of: HashMap::new(),
        line_of: &line_of,
        place_of: &place_of,
        source_map: SourceMap::new(),
        used_duud: Default::default(),
        used_do: Default::default(),
        checkpointed_loops: checkpointed,
    };
    let program_name = prog.units[top].ast.name.clone();
    let xaif = emit_xaif::emit(&mut emitter, &cfgs, &program_name).map_err(to_diag)?;
    let mut locations = std::mem::take(&mut emitter.source_map);
    let canon_text = emit_canon::emit_with_lines(&prog);
    let declarations = crate::declarations::declarations(&canon_text, &prog);
    let emit_canon::CanonText {
        text: canon,
        statement_lines,
        ..
    } = canon_text;
    crate::locations::record_canon_origins(&canon, &prog, &place_of, &mut locations);
    for (id, first, last) in statement_lines {
        locations.add_statement_lines(&crate::locations::stmt_name(id), first as u64, last as u64);
    }
    clock.lap("XAIF and canonical source");
    Ok(Output {
        xaif,
        canon,
        locations,
        declarations,
        interface,
        activity,
        warnings,
    })
}

/// A routine declared as a black box must not also be defined in the
/// inputs: which of the two the user means is not for the tool to guess.
fn reject_black_boxes_with_source(
    prog: &Program,
    black_boxes: &Library,
    locate: &dyn Fn(Span) -> Location,
) -> Result<(), Diagnostic> {
    for unit in &prog.units {
        if !matches!(unit.ast.kind, UnitKind::Subroutine | UnitKind::Function)
            || unit.interface_of.is_some()
        {
            continue;
        }
        if let Some(b) = black_boxes.get(&unit.ast.name) {
            return Err(Diagnostic::error(
                locate(unit.ast.span),
                format!(
                    "'{}' is defined here and declared as a black box at {}: a routine is either differentiated from its source or a black box, not both",
                    unit.ast.name, b.declared_at
                ),
            ));
        }
    }
    Ok(())
}

/// A namelist member that carries derivatives would be `type(active)` in
/// the generated code, and its namelist input and output would change
/// format (`parse/namelist.rs`): refused by name.
fn reject_active_namelist_members(
    prog: &Program,
    lowered: &mut lower::Lowered,
    results: &analysis::Results,
) -> Result<(), FrontError> {
    for (u, unit) in prog.units.iter().enumerate() {
        for spec in &unit.ast.spec {
            let crate::ast::SpecStmt::Namelist { groups, span, .. } = spec else {
                continue;
            };
            for (group, members) in groups {
                for m in members {
                    let Some((o, k)) = prog.var(u, m) else {
                        continue;
                    };
                    let l = lowered.loc(prog, o, k);
                    let location = &lowered.program.locations[l.index()];
                    let active = location.differentiable_type
                        && (results.activity.conservative
                            || results.activity.declared_active.contains(l.index()));
                    if active {
                        return Err(FrontError::unsupported(
                            *span,
                            format!("unsupported construct: namelist group '{group}' has member '{m}', which depends on the independent variables (its namelist input and output would have to carry derivatives; read into a passive variable and assign it)"),
                        ));
                    }
                }
            }
        }
    }
    Ok(())
}

/// A complex(8) target carries derivatives in its parts, which a pointer
/// would bypass: refused once the parts vary (pointers to real data are
/// aliases, `pointer_aliases.rs`).
fn reject_pointers_to_active_complex(
    prog: &Program,
    lowered: &mut lower::Lowered,
    results: &analysis::Results,
) -> Result<(), FrontError> {
    fn walk(stmts: &[crate::ast::Stmt], out: &mut Vec<(crate::ast::Expr, Span)>) {
        use crate::ast::StmtKind as K;
        for s in stmts {
            match &s.kind {
                K::Opaque {
                    kind: crate::ast::OpaqueKind::PointerAssign,
                    reads,
                    ..
                } => {
                    out.extend(reads.iter().map(|r| (r.clone(), s.span)));
                }
                K::If { arms, otherwise } => {
                    arms.iter().for_each(|(_, b)| walk(b, out));
                    if let Some(b) = otherwise {
                        walk(b, out);
                    }
                }
                K::Do { body, .. } | K::DoWhile { body, .. } => walk(body, out),
                K::Select { cases, .. } => cases.iter().for_each(|c| walk(&c.body, out)),
                _ => {}
            }
        }
    }
    for (u, unit) in prog.units.iter().enumerate() {
        let mut targets = Vec::new();
        walk(&unit.ast.body, &mut targets);
        for (t, span) in targets {
            let (crate::ast::Expr::Name(n, _) | crate::ast::Expr::Apply { name: n, .. }) = &t
            else {
                continue;
            };
            // A complex(8) target carries derivatives in its parts, which a
            // pointer would bypass: refused once they vary.
            if let Some((o, k)) = prog.var(u, n) {
                let s = prog.symbol(o, k);
                let rank = s.rank();
                let part = if rank > 0 {
                    format!("{n}({rank})%re")
                } else {
                    format!("{n}%re")
                };
                let varied = ["re", "im"].iter().any(|leaf| {
                    lowered
                        .component_loc(crate::components::COMPLEX_TYPE, leaf)
                        .is_some_and(|l| {
                            results.activity.conservative
                                || results.activity.varied.contains(l.index())
                        })
                });
                if prog.resolve_component_path(u, &part).is_some() && varied {
                    return Err(FrontError::unsupported(
                        span,
                        format!("unsupported construct: pointer associated with complex data '{n}' that depends on the independents (pointers are passive)"),
                    ));
                }
            }
        }
    }
    Ok(())
}

/// Stage timings on stderr when `FORTRAN2XAIF_TIMING` is set.
struct StageClock {
    on: bool,
    last: std::time::Instant,
}

impl StageClock {
    fn new() -> Self {
        StageClock {
            on: std::env::var_os("FORTRAN2XAIF_TIMING").is_some_and(|v| !v.is_empty()),
            last: std::time::Instant::now(),
        }
    }
    fn lap(&mut self, what: &str) {
        if self.on {
            eprintln!(
                "fortran2xaif: {what}: {:.3} s{}",
                self.last.elapsed().as_secs_f64(),
                memory_now()
            );
        }
        self.last = std::time::Instant::now();
    }
}

/// The process's resident and peak resident memory, where `/proc` tells
/// them (the phases' memory at scale, docs/benchmarks.md).
fn memory_now() -> String {
    let Ok(status) = std::fs::read_to_string("/proc/self/status") else {
        return String::new();
    };
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .map(|v| v.trim().to_string())
    };
    match (field("VmRSS:"), field("VmHWM:")) {
        (Some(rss), Some(peak)) => format!(", resident {rss}, peak {peak}"),
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use xaif_schema::model as x;

    fn run_src(src: &str) -> Output {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("t.f90");
        std::fs::write(&p, src).unwrap();
        run(&[p], None).unwrap()
    }

    fn cfg<'a>(o: &'a Output, name: &str) -> &'a x::ControlFlowGraph {
        o.xaif
            .vertices
            .iter()
            .find_map(|v| match v {
                x::CallGraphVertex::ControlFlowGraph(g) if g.symbol_id == name => Some(g),
                _ => None,
            })
            .expect("cfg")
    }

    const SRC: &str = "subroutine head(x, y, n)\n  integer n, i\n  real(8) x(n), y\n  !$openad INDEPENDENT(x)\n  y = 0\n  do i = n, 1, -1\n    y = y + x(i) * n\n  end do\n  select case (n)\n  case (1)\n    y = 2 * y\n  case (2)\n    print *, y\n  end select\n  !$openad DEPENDENT(y)\nend subroutine\n";

    #[test]
    fn loops_branches_and_markers() {
        let o = run_src(SRC);
        let g = cfg(&o, "head");
        let fl = g
            .vertices
            .iter()
            .find_map(|v| match v {
                x::ControlFlowVertex::ForLoop(f) => Some(f),
                _ => None,
            })
            .expect("for loop");
        let cond = fl.condition.as_ref().unwrap();
        assert!(cond.vertices.iter().any(|v| matches!(v, x::ExpressionVertex::BooleanOperation(b) if b.name == x::BooleanOp::GreaterOrEqual)));
        let branch = g
            .vertices
            .iter()
            .find(|v| matches!(v, x::ControlFlowVertex::Branch(_)))
            .unwrap();
        let values: Vec<(bool, i64)> = g
            .edges
            .iter()
            .filter(|e| e.source == branch.vertex_id())
            .map(|e| (e.has_condition_value, e.condition_value))
            .collect();
        assert_eq!(values, [(true, 1), (true, 2), (false, 1)]);
        let marker = g.vertices.iter().find_map(|v| match v {
            x::ControlFlowVertex::BasicBlock(b) => b.elements.iter().find_map(|e| match e {
                x::BasicBlockElement::Marker(m) => Some(m.annotation.clone()),
                _ => None,
            }),
            _ => None,
        });
        let id = marker
            .expect("marker for print")
            .trim_start_matches("canon:")
            .to_string();
        let tag = format!("!$oad stmt {id}\n");
        let after = o.canon.split(&tag).nth(1).expect("tagged statement");
        assert!(
            after.lines().next().unwrap().trim() == "print *, y",
            "{}",
            o.canon
        );
    }

    #[test]
    fn activity_follows_the_pragmas() {
        let o = run_src(SRC);
        let scope = o
            .xaif
            .scope_hierarchy
            .scopes
            .iter()
            .find(|s| s.annotation == "unit:head")
            .unwrap();
        let active = |n: &str| {
            scope.symbol_tables[0]
                .symbols
                .iter()
                .find(|s| s.symbol_id == n)
                .unwrap()
                .active
        };
        assert!(active("x") && active("y"));
        assert!(!active("n") && !active("i"));
    }
}
