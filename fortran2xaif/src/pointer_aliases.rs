//! Pointers and their targets as alias classes.
//!
//! Every pointer assignment `p => x` (also `p => x(2:n)`, `p => t%comp`,
//! `p => q`) puts the pointer and its target in one class, flow
//! insensitively over the whole program. Lowering gives every member of a
//! class the same analysis location, so that activity, du/ud chains, TBR
//! and the XAIF alias keys see a reference through the pointer as a
//! reference to every possible target: a pointer is active iff one of its
//! possible targets is, and the generated code declares both active so
//! that `p => x` still compiles. Definitions of such a location never kill
//! (a write through `p` may touch only part of `x`, or another target).
//!
//! What the classes cannot express is refused by name here: a dummy
//! argument (pointer or target) in one class with another dummy or with
//! module data (the dummy's location must stay the dummy's).
//!
//! For the adjoint modes, `adjoint_fields` says how the sweeps restore
//! each association of an active pointer (recorded, re-made, or refused),
//! and `association_units` which units need an adjoint for that alone.

use std::collections::{HashMap, HashSet};

use crate::ast::{Expr, FrontError, OpaqueKind, Span, Stmt, StmtKind};
use crate::sema::{Binding, Program};

/// A variable: (owner unit, symbol).
pub type Var = (usize, usize);

/// The alias classes of pointer assignments.
#[derive(Debug, Default)]
pub struct PointerClasses {
    /// Each class, members sorted; the representative first.
    pub classes: Vec<Vec<Var>>,
}

/// A statement that changes what a pointer refers to.
enum Association {
    /// `p => target`.
    Assign { pointer: Expr, target: Expr },
    /// `nullify(p)`, `allocate(p(n))`, `deallocate(p)` of each named object.
    Other { objects: Vec<Expr> },
}

/// Every pointer assignment of `stmts` (nested bodies included): the
/// pointer, the target and the statement's span.
fn pointer_assignments(stmts: &[Stmt], out: &mut Vec<(Expr, Expr, Span)>) {
    let mut all = Vec::new();
    associations(stmts, &mut all);
    for (a, span) in all {
        if let Association::Assign { pointer, target } = a {
            out.push((pointer, target, span));
        }
    }
}

/// Every statement of `stmts` (nested bodies included) that may change an
/// association, with its span.
fn associations(stmts: &[Stmt], out: &mut Vec<(Association, Span)>) {
    for s in stmts {
        match &s.kind {
            StmtKind::Opaque {
                kind: OpaqueKind::PointerAssign,
                reads,
                writes,
                ..
            } => {
                if let (Some(p), Some(t)) = (writes.first(), reads.first()) {
                    out.push((
                        Association::Assign {
                            pointer: p.clone(),
                            target: t.clone(),
                        },
                        s.span,
                    ));
                }
            }
            StmtKind::Opaque {
                kind: OpaqueKind::Allocate,
                writes,
                ..
            } => out.push((
                Association::Other {
                    objects: writes.clone(),
                },
                s.span,
            )),
            StmtKind::If { arms, otherwise } => {
                arms.iter().for_each(|(_, b)| associations(b, out));
                if let Some(b) = otherwise {
                    associations(b, out);
                }
            }
            StmtKind::Do { body, .. } | StmtKind::DoWhile { body, .. } => associations(body, out),
            StmtKind::Select { cases, .. } => cases.iter().for_each(|c| associations(&c.body, out)),
            _ => {}
        }
    }
}

/// The variable an expression names (`x`, `x(2:n)`, `t%comp`).
fn var_of(prog: &Program, u: usize, e: &Expr) -> Option<Var> {
    let (Expr::Name(n, _) | Expr::Apply { name: n, .. }) = e else {
        return None;
    };
    match prog.resolve(u, n)? {
        Binding::Var { owner, sym } if !prog.symbol(owner, sym).parameter => Some((owner, sym)),
        _ => None,
    }
}

fn find(parent: &mut HashMap<Var, Var>, v: Var) -> Var {
    let p = *parent.entry(v).or_insert(v);
    if p == v {
        return v;
    }
    let root = find(parent, p);
    parent.insert(v, root);
    root
}

/// Is `v` a module variable, in a common block or saved: storage that
/// outlives a call.
fn is_global(prog: &Program, v: Var) -> bool {
    let s = prog.symbol(v.0, v.1);
    s.dummy.is_none()
        && (prog.units[v.0].ast.kind == crate::ast::UnitKind::Module
            || s.common.is_some()
            || s.save
            || s.init.is_some()
            || s.component.is_some())
}

/// The alias classes of every pointer assignment of the program.
pub fn classes(prog: &Program) -> Result<PointerClasses, FrontError> {
    let mut parent: HashMap<Var, Var> = HashMap::new();
    let mut spans: HashMap<Var, Span> = HashMap::new();
    for (u, unit) in prog.units.iter().enumerate() {
        let mut found = Vec::new();
        pointer_assignments(&unit.ast.body, &mut found);
        for (p, t, span) in found {
            let (Some(p), Some(t)) = (var_of(prog, u, &p), var_of(prog, u, &t)) else {
                continue;
            };
            spans.entry(p).or_insert(span);
            spans.entry(t).or_insert(span);
            let (a, b) = (find(&mut parent, p), find(&mut parent, t));
            if a != b {
                parent.insert(a, b);
            }
        }
    }
    let mut by_root: HashMap<Var, Vec<Var>> = HashMap::new();
    let vars: Vec<Var> = parent.keys().copied().collect();
    for v in vars {
        let r = find(&mut parent, v);
        by_root.entry(r).or_default().push(v);
    }
    let mut classes = Vec::new();
    for (_, mut members) in by_root {
        members.sort();
        let dummies: Vec<Var> = members
            .iter()
            .copied()
            .filter(|v| prog.symbol(v.0, v.1).dummy.is_some())
            .collect();
        if let Some(d) = dummies.first() {
            let other = members.iter().find(|v| *v != d).copied();
            if let Some(o) = other.filter(|o| dummies.len() > 1 || is_global(prog, *o)) {
                let name = |v: Var| prog.symbol(v.0, v.1).name.clone();
                return Err(FrontError::unsupported(
                    spans[d],
                    format!(
                        "unsupported construct: pointer association between the dummy argument '{}' and '{}' (a dummy argument may be a pointer or a target only together with local data of its routine)",
                        name(*d),
                        name(o)
                    ),
                ));
            }
        }
        // The representative: storage that outlives calls, else the dummy.
        let rep = members
            .iter()
            .position(|v| is_global(prog, *v))
            .or_else(|| {
                dummies
                    .first()
                    .and_then(|d| members.iter().position(|v| v == d))
            })
            .unwrap_or(0);
        members.swap(0, rep);
        classes.push(members);
    }
    classes.sort();
    Ok(PointerClasses { classes })
}

/// What the adjoint modes do at each statement that changes the
/// association of an active pointer, as the XAIF marker field
/// `pointer:KIND:NAMES` (docs/xaif.md, "Pointer associations"), keyed by
/// the statement's position:
///
/// - `replay`: a local pointer given exactly one pointer assignment in the
///   program, to a constant section of storage that exists whenever its
///   routine runs; the back end makes it again at the start of the
///   adjoint sweep (no tape).
/// - `record`: any other association (re-association, `nullify`,
///   `allocate`, `deallocate`) of a pointer whose possible targets all
///   outlive the sweeps (module, common, `save` data, or anonymous
///   allocations): the taping sweep pushes the pointer's association
///   before the statement, the adjoint sweep pops it back at the
///   statement's mirror (docs/adjoint.md, "Pointer associations"). NAMES
///   lists the active pointers the statement changes, comma-separated.
/// - `frame`: a local pointer re-associated only in its own routine, by
///   pointer assignments to sections of non-pointer variables (locals,
///   dummies, module data) or to `null()`: the taping sweep pushes which
///   of these statements made the current association and its subscript
///   values; the adjoint sweep pops them and makes the association again
///   (also in another activation of the routine, where its locals and
///   dummies may be elsewhere).
/// - `local` (refused by the back end in `-m rs`/`-m rj`): any other
///   association of a pointer whose possible targets include a local or a
///   dummy of some routine (a dummy or module pointer associated with
///   them, pointer-to-pointer copies among them, `nullify`, ...), whose
///   address the adjoint call of a split sweep need not find again.
///
/// A module pointer associated once with a constant target needs nothing:
/// it keeps its association between the sweeps.
pub fn adjoint_fields(
    prog: &Program,
    pointer_classes: &PointerClasses,
    active: &mut dyn FnMut(Var) -> bool,
) -> HashMap<(usize, usize, usize), String> {
    let mut found: Vec<(usize, Association, Span)> = Vec::new();
    for (u, unit) in prog.units.iter().enumerate() {
        let mut here = Vec::new();
        associations(&unit.ast.body, &mut here);
        found.extend(here.into_iter().map(|(a, s)| (u, a, s)));
    }
    let mut assignments: HashMap<Var, usize> = HashMap::new();
    let mut otherwise_changed: HashSet<Var> = HashSet::new();
    for (u, a, _) in &found {
        match a {
            Association::Assign { pointer, .. } => {
                if let Some(p) = var_of(prog, *u, pointer) {
                    *assignments.entry(p).or_default() += 1;
                }
            }
            Association::Other { objects } => {
                for p in objects.iter().filter_map(|o| var_of(prog, *u, o)) {
                    otherwise_changed.insert(p);
                }
            }
        }
    }
    // A class is stable when every member that is not a pointer (every
    // possible named target) is storage that outlives calls and stays
    // where it is: not (de)allocated in the program (the reverse sweep
    // would allocate it again elsewhere).
    let mut unstable: HashSet<Var> = HashSet::new();
    for class in &pointer_classes.classes {
        let stable = class.iter().all(|v| {
            let s = prog.symbol(v.0, v.1);
            (s.pointer && s.dummy.is_none())
                || (is_global(prog, *v) && !otherwise_changed.contains(v))
        });
        if !stable {
            unstable.extend(class.iter().copied());
        }
    }
    let frame_pointers = frame_pointers(prog, &found);
    let key = |s: Span| (s.file, s.line, s.column);
    let mut out = HashMap::new();
    for (u, a, span) in &found {
        let pointers: Vec<Var> = match a {
            Association::Assign { pointer, .. } => var_of(prog, *u, pointer).into_iter().collect(),
            Association::Other { objects } => objects
                .iter()
                .filter_map(|o| var_of(prog, *u, o))
                .filter(|p| prog.symbol(p.0, p.1).pointer)
                .collect(),
        };
        let pointers: Vec<Var> = pointers.into_iter().filter(|p| active(*p)).collect();
        if pointers.is_empty() {
            continue;
        }
        let names = pointers
            .iter()
            .map(|p| prog.symbol(p.0, p.1).name.clone())
            .collect::<Vec<_>>()
            .join(",");
        let once = |p: &Var| assignments.get(p) == Some(&1) && !otherwise_changed.contains(p);
        let in_frame = |p: &Var| frame_pointers.contains(p);
        let kind = match a {
            // A target that is itself a pointer may move between the
            // executions of the one assignment.
            Association::Assign { target, .. }
                if once(&pointers[0])
                    && invariant(prog, *u, target)
                    && !var_of(prog, *u, target).is_some_and(|t| prog.symbol(t.0, t.1).pointer) =>
            {
                let p = pointers[0];
                if is_global(prog, p) {
                    continue;
                }
                if replayable(prog, *u, p, target) {
                    "replay"
                } else if in_frame(&p) {
                    "frame"
                } else if unstable.contains(&p) {
                    "local"
                } else {
                    "record"
                }
            }
            Association::Assign { .. } if in_frame(&pointers[0]) => "frame",
            _ if pointers.iter().any(|p| unstable.contains(p)) => "local",
            _ => "record",
        };
        out.insert(key(*span), format!("pointer:{kind}:{names}"));
    }
    out
}

/// Local pointers (not dummies, not saved) changed only by pointer
/// assignments in their own routine, each to a section of a variable that
/// is not a pointer, or to `null()`: the sweeps can record which of those
/// statements made the association and the values of its subscripts, and
/// make it again in any activation of the routine (`pointer:frame:NAME`).
fn frame_pointers(prog: &Program, found: &[(usize, Association, Span)]) -> HashSet<Var> {
    let mut ok: HashMap<Var, bool> = HashMap::new();
    for (u, a, _) in found {
        match a {
            Association::Assign { pointer, target } => {
                let Some(p) = var_of(prog, *u, pointer) else {
                    continue;
                };
                let s = prog.symbol(p.0, p.1);
                let simple_pointer = matches!(pointer, Expr::Name(..));
                let null = matches!(target, Expr::Apply { name, args, .. } if name == "null" && args.is_empty())
                    && var_of(prog, *u, target).is_none();
                let plain_target =
                    var_of(prog, *u, target).is_some_and(|t| !prog.symbol(t.0, t.1).pointer);
                let fits = p.0 == *u
                    && s.dummy.is_none()
                    && !is_global(prog, p)
                    && simple_pointer
                    && (null || plain_target);
                *ok.entry(p).or_insert(true) &= fits;
            }
            Association::Other { objects } => {
                for p in objects.iter().filter_map(|o| var_of(prog, *u, o)) {
                    ok.insert(p, false);
                }
            }
        }
    }
    ok.into_iter().filter(|(_, f)| *f).map(|(p, _)| p).collect()
}

/// The units that change the association of an active pointer (a field
/// of `adjoint_fields` on one of their statements): they need an adjoint
/// even without an active assignment (it restores the associations), and
/// so their callers, up the call tree. `callers[u]`: the units calling
/// unit `u`; `unit_ids` maps the program's units to those indices.
pub fn association_units(
    prog: &Program,
    fields: &HashMap<(usize, usize, usize), String>,
    unit_ids: &HashMap<usize, usize>,
    callers: &[Vec<usize>],
) -> HashSet<usize> {
    let mut out = HashSet::new();
    let mut stack = Vec::new();
    for (u, unit) in prog.units.iter().enumerate() {
        let mut here = Vec::new();
        associations(&unit.ast.body, &mut here);
        let changes = here
            .iter()
            .any(|(_, s)| fields.contains_key(&(s.file, s.line, s.column)));
        if let Some(&id) = unit_ids.get(&u).filter(|_| changes) {
            if out.insert(id) {
                stack.push(id);
            }
        }
    }
    while let Some(u) = stack.pop() {
        for &c in &callers[u] {
            if out.insert(c) {
                stack.push(c);
            }
        }
    }
    out
}

/// A local pointer of unit `u` associated in `u` with storage that exists
/// whenever `u` runs (a local, a dummy or module data; not allocatable,
/// not a pointer, not optional): the adjoint sweep of `u` can redo the
/// association on entry (`pointer:replay:NAME`, docs/xaif.md).
fn replayable(prog: &Program, u: usize, p: Var, target: &Expr) -> bool {
    let s = prog.symbol(p.0, p.1);
    if p.0 != u || s.dummy.is_some() {
        return false;
    }
    var_of(prog, u, target).is_some_and(|t| {
        let t = prog.symbol(t.0, t.1);
        !(t.allocatable || t.pointer || t.optional)
    })
}

/// A target whose subscripts name only constants (`x`, `x(2:n)` with `n` a
/// parameter, `t%comp`): every execution associates the same storage.
fn invariant(prog: &Program, u: usize, target: &Expr) -> bool {
    let Expr::Apply { args, .. } = target else {
        return true;
    };
    let mut ok = true;
    for a in args {
        a.value.walk(&mut |e| {
            if let Expr::Name(n, _) | Expr::Apply { name: n, .. } = e {
                let constant = matches!(
                    prog.resolve(u, n),
                    Some(Binding::Var { owner, sym }) if prog.symbol(owner, sym).parameter
                );
                ok &= constant;
            }
        });
    }
    ok
}

#[cfg(test)]
mod tests {
    use super::*;

    fn build(src: &str) -> Program {
        Program::build(vec![crate::parse::parse_file(src, 0).unwrap()]).unwrap()
    }

    fn names(p: &Program, class: &[Var]) -> Vec<String> {
        class
            .iter()
            .map(|v| p.symbol(v.0, v.1).name.clone())
            .collect()
    }

    const DOUBLE_BUFFER: &str = "module m\n double precision, target :: a(3), b(3)\n double precision, pointer :: old(:), new(:), tmp(:)\ncontains\n subroutine swap()\n  tmp => old\n  old => new\n  new => tmp\n end subroutine\nend module\nsubroutine s()\n use m\n double precision, target :: w(4)\n double precision, pointer :: q(:)\n old => a\n new => b\n q => w(2:3)\nend\n";

    #[test]
    fn pointers_and_targets_form_classes_represented_by_module_data() {
        let p = build(DOUBLE_BUFFER);
        let c = classes(&p).unwrap();
        assert_eq!(c.classes.len(), 2);
        let mut named: Vec<Vec<String>> = c.classes.iter().map(|k| names(&p, k)).collect();
        named.sort();
        // Representative first: module data for the buffers.
        let buffers = named.iter().find(|k| k.len() == 5).unwrap();
        assert!(["a", "b"].contains(&buffers[0].as_str()), "{buffers:?}");
        let mut rest = buffers[1..].to_vec();
        rest.sort();
        assert!(rest.contains(&"old".to_string()) && rest.contains(&"tmp".to_string()));
        let mut local = named.iter().find(|k| k.len() == 2).unwrap().clone();
        local.sort();
        assert_eq!(local, vec!["q".to_string(), "w".to_string()]);
    }

    #[test]
    fn reassociations_of_module_buffers_are_recorded_and_a_local_alias_replayed() {
        let p = build(DOUBLE_BUFFER);
        let c = classes(&p).unwrap();
        let r = adjoint_fields(&p, &c, &mut |_| true);
        let mut fields: Vec<&str> = r.values().map(|s| s.as_str()).collect();
        fields.sort();
        assert_eq!(
            fields,
            vec![
                "pointer:record:new",
                "pointer:record:new",
                "pointer:record:old",
                "pointer:record:old",
                "pointer:record:tmp",
                "pointer:replay:q",
            ]
        );
        // Passive pointers are nobody's concern.
        assert!(adjoint_fields(&p, &c, &mut |_| false).is_empty());
    }

    #[test]
    fn reassociation_among_a_routines_own_arrays_is_recorded_by_statement_and_a_copy_refused() {
        let p = build("subroutine s(u)\n double precision, target :: u(6)\n double precision, pointer :: row(:), cp(:)\n integer :: k\n do k = 1, 3\n  row => u(k:k+2)\n  cp => row\n  cp(1) = 2 * row(2)\n end do\nend\n");
        let c = classes(&p).unwrap();
        let r = adjoint_fields(&p, &c, &mut |_| true);
        let mut fields: Vec<&str> = r.values().map(|s| s.as_str()).collect();
        fields.sort();
        assert_eq!(fields, vec!["pointer:frame:row", "pointer:local:cp"]);
    }

    #[test]
    fn allocation_through_a_pointer_is_recorded_with_every_active_object() {
        let p = build("subroutine s()\n double precision, pointer :: a(:), b(:)\n allocate(a(3), b(2))\n nullify(b)\n deallocate(a)\nend\n");
        let c = classes(&p).unwrap();
        let r = adjoint_fields(&p, &c, &mut |_| true);
        let mut fields: Vec<&str> = r.values().map(|s| s.as_str()).collect();
        fields.sort();
        assert_eq!(
            fields,
            vec!["pointer:record:a", "pointer:record:a,b", "pointer:record:b"]
        );
    }

    #[test]
    fn a_dummy_joined_with_module_data_is_refused() {
        let p = build("module m\n double precision, target :: g(2)\ncontains\n subroutine s(d)\n  double precision, pointer :: d(:)\n  d => g\n end subroutine\nend module\n");
        let e = classes(&p).unwrap_err();
        assert!(
            e.message.contains("dummy argument 'd' and 'g'"),
            "{}",
            e.message
        );
    }
}
