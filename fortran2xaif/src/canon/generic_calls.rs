//! References to generic procedures are given their specific procedure
//! before anything else (`generics.rs` picks it by the actual arguments):
//! calls, function references, user-defined operators (`a .dot. b`, parsed
//! as references to the generic `operator(.dot.)`), intrinsic operators
//! with a derived-type operand (`operator(+)`, ...) and assignments to a
//! derived-type variable with a defined assignment (`assignment(=)`),
//! so that the rest of the pass, the analyses and the back end only see
//! specific calls. A specific the unit cannot name (reached through the
//! generic only, or private to its module) is made public in its module
//! and named through a `use` added to the unit (renaming it if its name
//! means something else there); the generated code
//! calls specifics by their own names (the generic interface itself is not
//! emitted). Array-valued user functions are refused here by name, before
//! any array assignment is scalarised around them.

use crate::ast::*;
use crate::sema::{Binding, Cat, Symbol};

use super::{map_stmt_exprs, Canon};

impl Canon<'_> {
    pub(super) fn resolve_generic_calls_in(&mut self, body: Vec<Stmt>) -> FrontResult<Vec<Stmt>> {
        let mut out = Vec::with_capacity(body.len());
        for mut s in body {
            self.generic_calls_in_stmt(&mut s)?;
            out.push(s);
        }
        Ok(out)
    }

    fn generic_calls_in_stmt(&mut self, s: &mut Stmt) -> FrontResult<()> {
        let span = s.span;
        // Expressions first (actual arguments' own generic references).
        let mut failure = None;
        map_stmt_exprs(s, &mut |e| {
            if failure.is_none() {
                if let Err(err) = self.generic_calls_in_expr(e) {
                    failure = Some(err);
                }
            }
            Ok(())
        })?;
        if let Some(err) = failure {
            return Err(err);
        }
        self.generic_call_names_in(s, span)
    }

    /// Call statements' names, nested constructs included (their
    /// expressions were done by `map_stmt_exprs`).
    fn generic_call_names_in(&mut self, s: &mut Stmt, span: Span) -> FrontResult<()> {
        self.defined_assignment(s)?;
        let nested: Vec<&mut Vec<Stmt>> = match &mut s.kind {
            StmtKind::Call { name, args } => {
                if let Some(specific) = self.specific_name(name, args, span)? {
                    *name = specific;
                }
                Vec::new()
            }
            StmtKind::If { arms, otherwise } => arms
                .iter_mut()
                .map(|(_, b)| b)
                .chain(otherwise.iter_mut())
                .collect(),
            StmtKind::Do { body, .. }
            | StmtKind::DoWhile { body, .. }
            | StmtKind::Forall { body, .. } => vec![body],
            StmtKind::Where { arms } => arms.iter_mut().map(|(_, b)| b).collect(),
            StmtKind::Select { cases, .. } => cases.iter_mut().map(|c| &mut c.body).collect(),
            _ => Vec::new(),
        };
        for body in nested {
            for inner in body.iter_mut() {
                let at = inner.span;
                self.generic_call_names_in(inner, at)?;
            }
        }
        Ok(())
    }

    fn generic_calls_in_expr(&mut self, e: &mut Expr) -> FrontResult<()> {
        match e {
            Expr::Apply { name, args, span } => {
                for a in args.iter_mut() {
                    self.generic_calls_in_expr(&mut a.value)?;
                }
                if let Some(specific) = self.specific_name(name, args, *span)? {
                    *name = specific;
                }
                Ok(())
            }
            Expr::Member { base, args, .. } => {
                self.generic_calls_in_expr(base)?;
                for a in args.iter_mut().flatten() {
                    self.generic_calls_in_expr(&mut a.value)?;
                }
                Ok(())
            }
            Expr::Paren(x, _) => self.generic_calls_in_expr(x),
            Expr::Unary(op, x, span) => {
                self.generic_calls_in_expr(x)?;
                let operands = [Arg {
                    keyword: None,
                    value: (**x).clone(),
                }];
                if let Some(call) = self.overloaded_operator(unary_symbol(*op), &operands, *span)? {
                    *e = call;
                }
                Ok(())
            }
            Expr::Binary(op, l, r, span) => {
                self.generic_calls_in_expr(l)?;
                self.generic_calls_in_expr(r)?;
                let operands = [
                    Arg {
                        keyword: None,
                        value: (**l).clone(),
                    },
                    Arg {
                        keyword: None,
                        value: (**r).clone(),
                    },
                ];
                if let Some(call) =
                    self.overloaded_operator(Some(op.fortran()), &operands, *span)?
                {
                    *e = call;
                }
                Ok(())
            }
            Expr::Range { lo, hi, stride, .. } => {
                for x in [lo, hi, stride].into_iter().flatten() {
                    self.generic_calls_in_expr(x)?;
                }
                Ok(())
            }
            Expr::ArrayCtor(items, _) => items
                .iter_mut()
                .try_for_each(|x| self.generic_calls_in_expr(x)),
            Expr::ImpliedDo { items, control, .. } => {
                items
                    .iter_mut()
                    .try_for_each(|x| self.generic_calls_in_expr(x))?;
                self.generic_calls_in_expr(&mut control.lo)?;
                self.generic_calls_in_expr(&mut control.hi)?;
                match control.step.as_mut() {
                    Some(step) => self.generic_calls_in_expr(step),
                    None => Ok(()),
                }
            }
            Expr::Lit(..) | Expr::Name(..) => Ok(()),
        }
    }

    /// Is the unit being canonicalised unit `m` or nested in it?
    fn inside(&self, m: usize) -> bool {
        let mut u = Some(self.unit);
        while let Some(k) = u {
            if k == m {
                return true;
            }
            u = self.prog.units[k].parent;
        }
        false
    }

    /// An intrinsic operator applied to a derived-type operand: the call of
    /// the specific function of the generic `operator(OP)` it stands for.
    fn overloaded_operator(
        &mut self,
        symbol: Option<&str>,
        operands: &[Arg],
        span: Span,
    ) -> FrontResult<Option<Expr>> {
        let Some(symbol) = symbol else {
            return Ok(None);
        };
        let derived = operands
            .iter()
            .any(|a| self.prog.type_of(self.unit, &a.value).cat == Cat::Derived);
        if !derived {
            return Ok(None);
        }
        let generic = format!("operator({symbol})");
        if self.prog.generic_specifics(self.unit, &generic).is_none() {
            return Ok(None);
        }
        Ok(self
            .specific_name(&generic, operands, span)?
            .map(|name| Expr::Apply {
                name,
                args: operands.to_vec(),
                span,
            }))
    }

    /// `a = b` with a derived-type `a` and a defined assignment
    /// (`interface assignment(=)`) matching: the call of its subroutine.
    fn defined_assignment(&mut self, s: &mut Stmt) -> FrontResult<()> {
        let StmtKind::Assign { lhs, rhs } = &s.kind else {
            return Ok(());
        };
        if self.prog.type_of(self.unit, lhs).cat != Cat::Derived
            || self
                .prog
                .generic_specifics(self.unit, "assignment(=)")
                .is_none()
        {
            return Ok(());
        }
        let args = vec![
            Arg {
                keyword: None,
                value: lhs.clone(),
            },
            Arg {
                keyword: None,
                value: rhs.clone(),
            },
        ];
        if let Some(name) = self.specific_name("assignment(=)", &args, s.span)? {
            s.kind = StmtKind::Call { name, args };
        }
        Ok(())
    }

    /// The name under which this unit calls the specific that `name(args)`
    /// stands for, when `name` is a generic (not a variable or a specific
    /// procedure of that name).
    fn specific_name(
        &mut self,
        name: &str,
        args: &[Arg],
        span: Span,
    ) -> FrontResult<Option<String>> {
        // A local variable or statement function of that name hides it (a
        // generic named in a module's access statement has a symbol there).
        match self.prog.resolve(self.unit, name) {
            Some(Binding::Var { owner, .. }) if owner == self.unit => return Ok(None),
            Some(Binding::StmtFunction(..)) => return Ok(None),
            _ => {}
        }
        let Some(specifics) = self.prog.generic_specifics(self.unit, name) else {
            return Ok(None);
        };
        let p = self
            .prog
            .specific_for(self.unit, name, &specifics, args)
            .map_err(|e| FrontError::new(span, e.to_string()))?;
        let own = self.prog.units[p].ast.name.clone();
        let module = self.prog.units[p]
            .parent
            .filter(|&m| self.prog.units[m].ast.kind == UnitKind::Module);
        // Called from outside its module: public there (emitted as
        // `public :: name`; it may have been reachable through the generic
        // only, or private by the module's default).
        if let Some(module) = module.filter(|&m| !self.inside(m)) {
            let m = &mut self.prog.units[module];
            match m.lookup_local(&own) {
                Some(s) => m.symbols[s].access = Some(true),
                None => {
                    let mut sym = Symbol::new(&own, TypeSpec::new(BaseType::Real), span);
                    sym.access = Some(true);
                    m.add_symbol(sym);
                }
            }
        }
        if self.prog.proc_named(self.unit, &own) == Some(p) {
            return Ok(Some(own));
        }
        // Reached through the generic only: name it through its module.
        let Some(module) = module else {
            return self.err_unsupported(
                span,
                format!("unsupported construct: generic '{name}' resolves to '{own}', which is not a module procedure visible here"),
            );
        };
        // Under its own name unless that means something else here.
        let alias = if self.prog.resolve(self.unit, &own).is_none() {
            own.clone()
        } else {
            format!("oad_gen_{own}")
        };
        let module_name = self.prog.units[module].ast.name.clone();
        let unit = &mut self.prog.units[self.unit];
        let already = unit.ast.spec.iter().any(
            |s| matches!(s, SpecStmt::Use { items, .. } if items.iter().any(|(l, _)| *l == alias)),
        );
        if !already {
            unit.ast.spec.push(SpecStmt::Use {
                module: module_name,
                only: true,
                items: vec![(alias.clone(), own)],
                span,
            });
        }
        Ok(Some(alias))
    }
}

/// The symbol of a unary operator that a derived type may overload.
fn unary_symbol(op: UnOp) -> Option<&'static str> {
    match op {
        UnOp::Neg => Some("-"),
        UnOp::Plus => Some("+"),
        UnOp::Not => Some(".not."),
    }
}
