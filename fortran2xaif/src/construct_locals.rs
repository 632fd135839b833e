//! The semantic side of the parser's rewrite of `associate` and `block`
//! constructs (`parse/constructs.rs`): the variables holding expression
//! selectors get the selector's type, designator selectors must name
//! variables, and the hoisted locals of a block must have bounds the
//! procedure can declare.

use crate::ast::*;
use crate::sema::{Binding, Cat, Program, Symbol};

impl Program {
    /// Types and checks what the construct rewrite left in unit `i`; runs
    /// after the implicit symbols (the selectors may use implicitly typed
    /// variables).
    pub(crate) fn declare_construct_locals(&mut self, i: usize) -> FrontResult<()> {
        let locals = self.units[i].ast.construct_locals.clone();
        for (name, span) in &locals.selector_names {
            if matches!(self.resolve(i, name), Some(Binding::Proc(_))) {
                return Err(FrontError::unsupported(
                    *span,
                    format!("unsupported construct: associate selector that references function '{name}' (assign its result to a variable first)"),
                ));
            }
        }
        // `name(args)` selectors: a function's result is held in the
        // variable the parser assigned it to; an element or section is
        // the selector itself again.
        let mut function_temps = Vec::new();
        for m in &locals.maybe_function_selectors {
            if matches!(self.resolve(i, &m.head), Some(Binding::Var { .. })) {
                let body = &mut self.units[i].ast.body;
                remove_assignment_to(body, &m.temp);
                let sel = m.selector.clone().expect("parser keeps the selector");
                crate::parse::substitute_name(body, &m.temp, sel)?;
            } else {
                function_temps.push((m.temp.clone(), m.span));
            }
        }
        for (name, span) in locals.associate_temps.iter().chain(&function_temps) {
            let Some(value) = assigned_value(&self.units[i].ast.body, name) else {
                return Err(FrontError::new(
                    *span,
                    "internal error: associate selector lost",
                ));
            };
            let ty = self.type_of(i, value);
            let refuse = |what: &str| {
                Err(FrontError::unsupported(
                    *span,
                    format!("unsupported construct: associate selector that is {what} (associate with a variable, or assign it to one first)"),
                ))
            };
            if ty.rank > 0 {
                return refuse("an array expression");
            }
            let ts = match ty.cat {
                Cat::Int => TypeSpec::new(BaseType::Integer),
                Cat::Logical => TypeSpec::new(BaseType::Logical),
                Cat::Real(k) | Cat::Complex(k) => TypeSpec {
                    kind: Some(Expr::int(k as i64, *span)),
                    ..TypeSpec::new(if matches!(ty.cat, Cat::Real(_)) {
                        BaseType::Real
                    } else {
                        BaseType::Complex
                    })
                },
                Cat::Char => return refuse("a character expression"),
                Cat::Derived => return refuse("a derived-type expression"),
                Cat::Unknown => return refuse("an expression of unknown type"),
            };
            let mut sym = Symbol::new(name, ts, *span);
            sym.explicit_type = true;
            self.units[i].add_symbol(sym);
        }
        for (name, span) in &locals.block_locals {
            let Some(k) = self.units[i].lookup_local(name) else {
                continue;
            };
            let sym = &self.units[i].symbols[k];
            let mut bounds = Vec::new();
            for d in sym.dims.iter().flatten() {
                match d {
                    DimSpec::Explicit { lo, hi } => bounds.extend(lo.iter().chain([hi])),
                    DimSpec::Colon { lo } | DimSpec::AssumedSize { lo } => bounds.extend(lo),
                }
            }
            for b in bounds {
                if let Some(bad) = self.not_declarable(i, b) {
                    return Err(FrontError::unsupported(
                        *span,
                        format!("unsupported construct: automatic array in a block construct whose bounds use '{bad}', which the procedure's declarations cannot (declare the array in the procedure)"),
                    ));
                }
            }
        }
        Ok(())
    }

    /// A name in `e` that a declaration of unit `i` may not use (a local
    /// variable that is not a constant, a dummy or in common).
    fn not_declarable(&self, i: usize, e: &Expr) -> Option<String> {
        let mut bad = None;
        e.walk(&mut |x| {
            if let Expr::Name(n, _) = x {
                if let Some((o, k)) = self.var(i, n) {
                    let s = self.symbol(o, k);
                    let fine = o != i || s.parameter || s.dummy.is_some() || s.common.is_some();
                    if !fine && bad.is_none() {
                        bad = Some(n.clone());
                    }
                }
            }
        });
        bad
    }
}

/// The value first assigned to variable `name` in `stmts`, nested blocks
/// included.
fn assigned_value<'a>(stmts: &'a [Stmt], name: &str) -> Option<&'a Expr> {
    for s in stmts {
        let found = match &s.kind {
            StmtKind::Assign {
                lhs: Expr::Name(n, _),
                rhs,
            } if n == name => Some(rhs),
            StmtKind::If { arms, otherwise } => arms
                .iter()
                .find_map(|(_, b)| assigned_value(b, name))
                .or_else(|| otherwise.as_deref().and_then(|b| assigned_value(b, name))),
            StmtKind::Do { body, .. }
            | StmtKind::DoWhile { body, .. }
            | StmtKind::Forall { body, .. } => assigned_value(body, name),
            StmtKind::Select { cases, .. } => {
                cases.iter().find_map(|c| assigned_value(&c.body, name))
            }
            StmtKind::Where { arms } => arms.iter().find_map(|(_, b)| assigned_value(b, name)),
            _ => None,
        };
        if found.is_some() {
            return found;
        }
    }
    None
}

/// Removes the assignment to variable `name` from `stmts`, nested blocks
/// included (the one the parser put before an associate construct).
fn remove_assignment_to(stmts: &mut Vec<Stmt>, name: &str) {
    stmts.retain(
        |s| !matches!(&s.kind, StmtKind::Assign { lhs: Expr::Name(n, _), .. } if n == name),
    );
    for s in stmts.iter_mut() {
        match &mut s.kind {
            StmtKind::If { arms, otherwise } => {
                arms.iter_mut()
                    .for_each(|(_, b)| remove_assignment_to(b, name));
                if let Some(b) = otherwise {
                    remove_assignment_to(b, name);
                }
            }
            StmtKind::Do { body, .. }
            | StmtKind::DoWhile { body, .. }
            | StmtKind::Forall { body, .. } => remove_assignment_to(body, name),
            StmtKind::Select { cases, .. } => cases
                .iter_mut()
                .for_each(|c| remove_assignment_to(&mut c.body, name)),
            StmtKind::Where { arms } => arms
                .iter_mut()
                .for_each(|(_, b)| remove_assignment_to(b, name)),
            _ => {}
        }
    }
}
