//! Binomial checkpointing pragmas: `!$openad CHECKPOINT
//! BINOMIAL(snapshots=S)` (or Tapenade's `!$AD BINOMIAL-CKP nsteps nsnaps
//! firststep`) on the line(s) right before a counted DO loop asks the
//! adjoint modes to reverse that loop with at most S snapshots of its
//! state (the booster's `adjoint/checkpointed_loops.rs`). The front end
//! only finds the loop, checks what it can, and marks the loop's XAIF
//! `ForLoop` vertex with the annotation `checkpoint:binomial:S`
//! ([`annotation`]).
//!
//! Rules, each a named error at the user's file:line:column, in every
//! mode (they concern the pragma itself):
//! - the first code line after the pragma (only blank and comment lines
//!   in between) must start a counted `do` loop (`do i = lo, hi[, step]`);
//!   a `do while`, a `do` without control or any other statement is an
//!   error at the pragma;
//! - S is an integer literal or a name: a named integer constant (its
//!   value is checked and written into the annotation) or an integer
//!   variable visible in the routine (checked at run time); S < 1 is an
//!   error at S.
//!
//! What the loop's body does is the adjoint's business (the tangent modes
//! ignore the pragma): the booster refuses a body that leaves the loop
//! (`exit`, `return`, `goto` out, `cycle` of an enclosing loop). It cannot
//! see what an opaque statement writes, though, so the front end lists
//! the opaque statements of the body that write a variable (`read`,
//! `allocate`, pointer assignment, assignment of derived-type or
//! character data; the canonicaliser's own temporaries, set and read
//! within one statement's code, do not count) in the annotation, and the
//! booster refuses the loop at the first of them:
//! `checkpoint:binomial:S;opaque:sN=name;...` ([`annotation`]). The
//! variables read by the opaque statements that only set such
//! temporaries (`t = s%field`, derived-type data read into a real) are
//! listed too (`;reads:name@scope`): the recomputation depends on them,
//! so they belong to the loop's entry state.

use std::collections::HashMap;

use crate::ast::{Expr, Span, Stmt, StmtKind, UnitKind};
use crate::diagnostics::{Diagnostic, Location};
use crate::sema::Program;
use crate::source::{NormalizedSource, PragmaKind, SnapshotCount};

/// Prefix of the `ForLoop/@annotation` of a checkpointed loop; the rest
/// is the number of snapshots, an integer literal or `name@scope` (an
/// integer variable: its symbol and scope id), then `;opaque:sN=name` per
/// opaque statement of the body writing a variable.
pub const ANNOTATION_PREFIX: &str = "checkpoint:binomial:";

/// A counted DO loop a pragma asks to checkpoint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckpointedLoop {
    /// Front-end unit whose body holds the loop.
    pub unit: usize,
    /// The DO statement's span (the control flow graph's ForLoop vertex
    /// has the same).
    pub span: Span,
    /// The loop variable.
    pub var: String,
    /// A literal (named constants already evaluated) or a variable name.
    pub snapshots: SnapshotCount,
    /// Opaque statements of the body that write a variable: (statement
    /// name, variable). Filled by [`check_bodies`].
    pub opaque_writes: Vec<(String, String)>,
    /// Variables read by the body's opaque statements that set
    /// canonicaliser temporaries (`t = s%field`): the computation depends
    /// on them, the booster cannot see them. Filled by [`check_bodies`].
    pub opaque_reads: Vec<String>,
}

/// The statement a pragma's next code line starts, with its unit.
struct Found<'p> {
    unit: usize,
    stmt: &'p Stmt,
}

/// Matches every checkpoint pragma of `sources` with the counted DO loop
/// that follows it in `prog` (before canonicalisation: the loop as the
/// user wrote it) and checks S.
pub fn match_loops(
    prog: &Program,
    sources: &[NormalizedSource],
    locate: &dyn Fn(Span) -> Location,
) -> Result<Vec<CheckpointedLoop>, Diagnostic> {
    let mut out = Vec::new();
    for (file, source) in sources.iter().enumerate() {
        let lines: Vec<&str> = source.text.lines().collect();
        for pragma in &source.pragmas {
            let PragmaKind::CheckpointBinomial { snapshots, at } = &pragma.kind else {
                continue;
            };
            // Lines are 1-based: the line after the pragma is index
            // `pragma.line`.
            let next_code = (pragma.line..lines.len())
                .find(|&i| {
                    let t = lines[i].trim();
                    !t.is_empty() && !t.starts_with('!')
                })
                .map(|i| i + 1);
            let not_a_loop = |what: &str| {
                Diagnostic::error(
                    pragma.location.clone(),
                    format!(
                        "CHECKPOINT BINOMIAL pragma is not followed by a counted DO loop ({what})"
                    ),
                )
                .with_note("put the pragma on the line right before `do i = lo, hi[, step]`")
            };
            let Some(line) = next_code else {
                return Err(not_a_loop("nothing follows it"));
            };
            let Some(found) = statement_at(prog, file, line) else {
                return Err(not_a_loop("the next line starts no executable statement"));
            };
            let var = match &found.stmt.kind {
                StmtKind::Do {
                    control: Some(c), ..
                } => c.var.clone(),
                StmtKind::Do { control: None, .. } => {
                    return Err(not_a_loop("a DO loop without a control has no trip count"))
                }
                StmtKind::DoWhile { .. } => {
                    return Err(not_a_loop(
                        "a DO WHILE loop has no trip count known when it starts",
                    ))
                }
                _ => {
                    return Err(not_a_loop(&format!(
                        "the statement at {} is not a DO loop",
                        locate(found.stmt.span)
                    )))
                }
            };
            let snapshots = check_snapshots(prog, found.unit, snapshots, at)?;
            out.push(CheckpointedLoop {
                unit: found.unit,
                span: found.stmt.span,
                var,
                snapshots,
                opaque_writes: Vec::new(),
                opaque_reads: Vec::new(),
            });
        }
    }
    Ok(out)
}

/// The first statement of a differentiable unit of `file` starting on
/// normalised line `line`.
fn statement_at(prog: &Program, file: usize, line: usize) -> Option<Found<'_>> {
    fn walk(stmts: &[Stmt], file: usize, line: usize) -> Option<&Stmt> {
        for s in stmts {
            if s.span.file == file && s.span.line == line {
                return Some(s);
            }
            let inner = match &s.kind {
                StmtKind::If { arms, otherwise } => arms
                    .iter()
                    .find_map(|(_, b)| walk(b, file, line))
                    .or_else(|| otherwise.as_deref().and_then(|b| walk(b, file, line))),
                StmtKind::Do { body, .. } | StmtKind::DoWhile { body, .. } => {
                    walk(body, file, line)
                }
                StmtKind::Select { cases, .. } => {
                    cases.iter().find_map(|c| walk(&c.body, file, line))
                }
                StmtKind::Where { arms } => arms.iter().find_map(|(_, b)| walk(b, file, line)),
                StmtKind::Forall { body, .. } => walk(body, file, line),
                _ => None,
            };
            if inner.is_some() {
                return inner;
            }
        }
        None
    }
    prog.units.iter().enumerate().find_map(|(unit, u)| {
        if u.ast.span.file != file || u.interface_of.is_some() {
            return None;
        }
        walk(&u.ast.body, file, line).map(|stmt| Found { unit, stmt })
    })
}

/// S as the annotation will carry it: a literal (named constants
/// evaluated) or the name of an integer variable.
fn check_snapshots(
    prog: &Program,
    unit: usize,
    snapshots: &SnapshotCount,
    at: &Location,
) -> Result<SnapshotCount, Diagnostic> {
    let too_few = |value: i64| {
        Diagnostic::error(
            at.clone(),
            format!("CHECKPOINT BINOMIAL needs at least 1 snapshot, not {value}"),
        )
    };
    match snapshots {
        SnapshotCount::Literal(v) if *v < 1 => Err(too_few(*v)),
        SnapshotCount::Literal(v) => Ok(SnapshotCount::Literal(*v)),
        SnapshotCount::Name(n) => {
            let Some((owner, sym)) = prog.var(unit, n) else {
                return Err(Diagnostic::error(
                    at.clone(),
                    format!(
                        "the number of snapshots '{n}' is not a variable or named constant of '{}'",
                        prog.units[unit].ast.name
                    ),
                ));
            };
            let symbol = prog.symbol(owner, sym);
            if prog.cat_of(owner, &symbol.ty) != crate::sema::Cat::Int || symbol.dims.is_some() {
                return Err(Diagnostic::error(
                    at.clone(),
                    format!("the number of snapshots '{n}' is not an integer scalar"),
                ));
            }
            if symbol.parameter {
                let value = prog
                    .const_int(unit, &crate::ast::Expr::Name(n.clone(), symbol.span))
                    .ok_or_else(|| {
                        Diagnostic::error(
                            at.clone(),
                            format!("cannot evaluate the named constant '{n}'"),
                        )
                    })?;
                if value < 1 {
                    return Err(too_few(value));
                }
                return Ok(SnapshotCount::Literal(value));
            }
            Ok(SnapshotCount::Name(n.clone()))
        }
    }
}

/// After canonicalisation and statement numbering: the checkpointed
/// loops by the span of their DO statement, each with the opaque
/// statements of its body that write variables (`opaque_writes`).
pub fn check_bodies(
    prog: &Program,
    loops: &[CheckpointedLoop],
    locate: &dyn Fn(Span) -> Location,
) -> Result<HashMap<Span, CheckpointedLoop>, Diagnostic> {
    let mut out = HashMap::new();
    for l in loops {
        let unit = &prog.units[l.unit];
        if !matches!(unit.ast.kind, UnitKind::Subroutine | UnitKind::Function) {
            // A main program is not differentiated: nothing to do.
            continue;
        }
        let Some((_, body)) = find_loop(&unit.ast.body, l) else {
            return Err(Diagnostic::error(
                locate(l.span),
                "internal error: the checkpointed DO loop disappeared in canonicalisation",
            ));
        };
        let mut checked = l.clone();
        opaque_effects(prog, l.unit, body, &mut checked);
        out.insert(l.span, checked);
    }
    Ok(out)
}

/// The opaque statements of `stmts` (any depth): those that write a
/// variable other than a canonicaliser temporary go into
/// `opaque_writes` (statement name, variable), the variables read by the
/// others that write temporaries into `opaque_reads`.
fn opaque_effects(prog: &Program, unit: usize, stmts: &[Stmt], l: &mut CheckpointedLoop) {
    fn base_name(e: &Expr) -> Option<&str> {
        let mut base = e;
        while let Expr::Member { base: b, .. } = base {
            base = b;
        }
        match base {
            Expr::Name(n, _) | Expr::Apply { name: n, .. } => Some(n),
            _ => None,
        }
    }
    for s in stmts {
        match &s.kind {
            StmtKind::If { arms, otherwise } => {
                for (_, b) in arms {
                    opaque_effects(prog, unit, b, l);
                }
                if let Some(b) = otherwise {
                    opaque_effects(prog, unit, b, l);
                }
            }
            StmtKind::Do { body, .. } | StmtKind::DoWhile { body, .. } => {
                opaque_effects(prog, unit, body, l)
            }
            StmtKind::Select { cases, .. } => {
                for c in cases {
                    opaque_effects(prog, unit, &c.body, l);
                }
            }
            StmtKind::Opaque { writes, reads, .. } if !writes.is_empty() => {
                let temporary = |n: &str| {
                    prog.var(unit, n)
                        .is_some_and(|(owner, sym)| prog.symbol(owner, sym).temp)
                };
                let written = writes.iter().find_map(|w| match base_name(w) {
                    Some(n) if temporary(n) => None,
                    Some(n) => Some(n.to_string()),
                    None => Some("a variable".to_string()),
                });
                match written {
                    Some(n) => l.opaque_writes.push((crate::locations::stmt_name(s.id), n)),
                    None => {
                        for r in reads {
                            let mut names = Vec::new();
                            r.collect_names(&mut names);
                            for n in names {
                                if prog.var(unit, &n).is_some() && !l.opaque_reads.contains(&n) {
                                    l.opaque_reads.push(n);
                                }
                            }
                        }
                    }
                }
            }
            _ => {}
        }
    }
}

/// The canonical DO statement of a checkpointed loop: its construct name
/// and body.
fn find_loop<'p>(
    stmts: &'p [Stmt],
    l: &CheckpointedLoop,
) -> Option<(&'p Option<String>, &'p [Stmt])> {
    for s in stmts {
        match &s.kind {
            StmtKind::Do {
                construct,
                control: Some(c),
                body,
            } if s.span == l.span && c.var == l.var => return Some((construct, body)),
            _ => {}
        }
        let inner = match &s.kind {
            StmtKind::If { arms, otherwise } => arms
                .iter()
                .find_map(|(_, b)| find_loop(b, l))
                .or_else(|| otherwise.as_deref().and_then(|b| find_loop(b, l))),
            StmtKind::Do { body, .. } | StmtKind::DoWhile { body, .. } => find_loop(body, l),
            StmtKind::Select { cases, .. } => cases.iter().find_map(|c| find_loop(&c.body, l)),
            _ => None,
        };
        if inner.is_some() {
            return inner;
        }
    }
    None
}

/// The annotation of a checkpointed loop's `ForLoop` vertex, given the
/// symbol and scope of S when it is a variable, the opaque statements of
/// the body that write variables and the variables (symbol, scope) that
/// opaque statements setting temporaries read.
pub fn annotation(
    snapshots: &SnapshotCount,
    variable: Option<(&str, u64)>,
    opaque_writes: &[(String, String)],
    opaque_reads: &[(String, u64)],
) -> String {
    let mut text = match (snapshots, variable) {
        (SnapshotCount::Literal(v), _) => format!("{ANNOTATION_PREFIX}{v}"),
        (SnapshotCount::Name(_), Some((symbol, scope))) => {
            format!("{ANNOTATION_PREFIX}{symbol}@{scope}")
        }
        (SnapshotCount::Name(n), None) => format!("{ANNOTATION_PREFIX}{n}"),
    };
    for (statement, variable) in opaque_writes {
        text.push_str(&format!(";opaque:{statement}={variable}"));
    }
    for (symbol, scope) in opaque_reads {
        text.push_str(&format!(";reads:{symbol}@{scope}"));
    }
    text
}
