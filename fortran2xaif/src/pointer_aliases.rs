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
//! What the classes cannot express is refused by name here: a pointer
//! dummy associated inside its routine with other storage than its own
//! (the dummy's location must stay the dummy's).

use std::collections::HashMap;

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

/// Every pointer assignment of `stmts` (nested bodies included): the
/// pointer, the target and the statement's span.
fn pointer_assignments(stmts: &[Stmt], out: &mut Vec<(Expr, Expr, Span)>) {
    for s in stmts {
        match &s.kind {
            StmtKind::Opaque {
                kind: OpaqueKind::PointerAssign,
                reads,
                writes,
                ..
            } => {
                if let (Some(p), Some(t)) = (writes.first(), reads.first()) {
                    out.push((p.clone(), t.clone(), s.span));
                }
            }
            StmtKind::If { arms, otherwise } => {
                arms.iter().for_each(|(_, b)| pointer_assignments(b, out));
                if let Some(b) = otherwise {
                    pointer_assignments(b, out);
                }
            }
            StmtKind::Do { body, .. } | StmtKind::DoWhile { body, .. } => {
                pointer_assignments(body, out)
            }
            StmtKind::Select { cases, .. } => cases
                .iter()
                .for_each(|c| pointer_assignments(&c.body, out)),
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
                return Err(FrontError::new(
                    spans[d],
                    format!(
                        "unsupported construct: pointer association between the dummy argument '{}' and '{}' (a pointer dummy may be associated only with local data of its routine)",
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
            .or_else(|| dummies.first().and_then(|d| members.iter().position(|v| v == d)))
            .unwrap_or(0);
        members.swap(0, rep);
        classes.push(members);
    }
    classes.sort();
    Ok(PointerClasses { classes })
}
