//! Canonicalisation (C1–C5 of the design): after this pass every assignment
//! writes one scalar variable from a side-effect-free expression over
//! variables, constants and catalogue intrinsics; user functions are
//! subroutine calls whose result lands in a temporary; non-variable actual
//! arguments are temporaries; statement functions are expanded; array
//! assignments and real array intrinsics are `do` loops; n-ary min/max are
//! nested binary calls. Statements the booster must not touch become
//! `Opaque`.

use crate::ast::*;
use crate::intrinsics::{self, REDUCTIONS};
use crate::sema::{Binding, Cat, Program, Symbol, Ty};
use crate::unparse;

/// Canonicalises every unit with a body.
pub fn canonicalise(prog: &mut Program) -> FrontResult<()> {
    for i in 0..prog.units.len() {
        if prog.units[i].interface_of.is_some() || prog.units[i].ast.kind == UnitKind::Module {
            continue;
        }
        let body = std::mem::take(&mut prog.units[i].ast.body);
        let mut c = Canon {
            prog,
            unit: i,
            temps: 0,
            loops: 0,
        };
        let body = c.expand_stmt_functions_in(body)?;
        let mut body = c.block(body)?;
        // A return as the last statement is the normal end: dropping it
        // keeps the control flow structured.
        if matches!(
            body.last(),
            Some(Stmt {
                kind: StmtKind::Return,
                label: None,
                ..
            })
        ) {
            body.pop();
        }
        prog.units[i].ast.body = body;
    }
    Ok(())
}

struct Canon<'p> {
    prog: &'p mut Program,
    unit: usize,
    temps: usize,
    loops: usize,
}

/// One dimension of an array operand: a fixed subscript or a range.
#[derive(Clone, Debug)]
enum Sub {
    Fixed(Expr),
    Range {
        lo: Expr,
        hi: Expr,
        stride: Option<Expr>,
    },
}

/// An array operand with every section dimension made explicit.
#[derive(Clone, Debug)]
struct View {
    name: String,
    subs: Vec<Sub>,
}

impl View {
    fn ranges(&self) -> Vec<(&Expr, &Expr, Option<&Expr>)> {
        self.subs
            .iter()
            .filter_map(|s| match s {
                Sub::Range { lo, hi, stride } => Some((lo, hi, stride.as_ref())),
                Sub::Fixed(_) => None,
            })
            .collect()
    }
}

fn stmt(kind: StmtKind, span: Span) -> Stmt {
    Stmt {
        id: 0,
        label: None,
        span,
        kind,
    }
}

fn bin(op: BinOp, a: Expr, b: Expr, span: Span) -> Expr {
    Expr::Binary(op, Box::new(a), Box::new(b), span)
}

fn name(n: &str, span: Span) -> Expr {
    Expr::Name(n.to_string(), span)
}

fn first_user_call(prog: &Program, unit: usize, e: &Expr) -> Option<(String, Span)> {
    let mut found = None;
    e.walk(&mut |x| {
        if found.is_some() {
            return;
        }
        if let Expr::Apply { name, span, .. } = x {
            match prog.resolve(unit, name) {
                Some(Binding::Proc(_)) | Some(Binding::StmtFunction(..)) => {
                    found = Some((name.clone(), *span))
                }
                _ => {}
            }
        }
    });
    found
}

impl<'p> Canon<'p> {
    fn err<T>(&self, span: Span, msg: impl Into<String>) -> FrontResult<T> {
        Err(FrontError::new(span, msg))
    }

    fn ty(&self, e: &Expr) -> Ty {
        self.prog.type_of(self.unit, e)
    }

    /// A new local temporary of the given type category.
    fn temp(&mut self, cat: Cat, span: Span) -> FrontResult<String> {
        let ts = match cat {
            Cat::Int => TypeSpec::new(BaseType::Integer),
            Cat::Real(4) => TypeSpec::new(BaseType::Real),
            Cat::Real(k) => TypeSpec {
                kind: Some(Expr::int(k as i64, span)),
                ..TypeSpec::new(BaseType::Real)
            },
            Cat::Complex(k) => TypeSpec {
                kind: Some(Expr::int(k as i64, span)),
                ..TypeSpec::new(BaseType::Complex)
            },
            Cat::Logical => TypeSpec::new(BaseType::Logical),
            Cat::Char => {
                return self.err(
                    span,
                    "unsupported construct: character-valued expression that needs a temporary",
                )
            }
            Cat::Derived => {
                return self.err(
                    span,
                    "unsupported construct: derived-type value that needs a temporary",
                )
            }
            Cat::Unknown => return self.err(span, "cannot determine the type of this expression"),
        };
        let unit = &mut self.prog.units[self.unit];
        let n = unit.fresh_name("oad_t", &mut self.temps);
        let mut sym = Symbol::new(&n, ts, span);
        sym.explicit_type = true;
        sym.temp = true;
        unit.add_symbol(sym);
        Ok(n)
    }

    fn loop_var(&mut self, span: Span) -> String {
        let unit = &mut self.prog.units[self.unit];
        let n = unit.fresh_name("oad_i", &mut self.loops);
        let mut sym = Symbol::new(&n, TypeSpec::new(BaseType::Integer), span);
        sym.explicit_type = true;
        sym.temp = true;
        unit.add_symbol(sym);
        n
    }

    // ------------------------------------------------------------------
    // Statement functions
    // ------------------------------------------------------------------

    fn expand_stmt_functions_in(&self, body: Vec<Stmt>) -> FrontResult<Vec<Stmt>> {
        let has_any = self.prog.units[self.unit]
            .ast
            .spec
            .iter()
            .any(|s| matches!(s, SpecStmt::StmtFunction { .. }));
        if !has_any {
            return Ok(body);
        }
        let mut out = Vec::new();
        for mut s in body {
            map_stmt_exprs(&mut s, &mut |e| self.expand_sf(e, 0))?;
            out.push(s);
        }
        Ok(out)
    }

    fn expand_sf(&self, e: &mut Expr, depth: usize) -> FrontResult<()> {
        if depth > 50 {
            return self.err(e.span(), "statement functions nest too deeply");
        }
        if let Expr::Apply { name, args, span } = e {
            if let Some(Binding::StmtFunction(owner, k)) = self.prog.resolve(self.unit, name) {
                let SpecStmt::StmtFunction { params, body, .. } =
                    &self.prog.units[owner].ast.spec[k]
                else {
                    return self.err(*span, "internal error: statement function");
                };
                if params.len() != args.len() {
                    return self.err(
                        *span,
                        format!(
                            "statement function '{name}' takes {} arguments",
                            params.len()
                        ),
                    );
                }
                for a in args.iter_mut() {
                    self.expand_sf(&mut a.value, depth + 1)?;
                }
                let mut b = body.clone();
                substitute(&mut b, params, args);
                self.expand_sf(&mut b, depth + 1)?;
                *e = Expr::Paren(Box::new(b), *span);
                return Ok(());
            }
        }
        match e {
            Expr::Apply { args, .. } => args
                .iter_mut()
                .try_for_each(|a| self.expand_sf(&mut a.value, depth + 1)),
            Expr::Member { base, args, .. } => {
                self.expand_sf(base, depth + 1)?;
                if let Some(a) = args {
                    a.iter_mut()
                        .try_for_each(|a| self.expand_sf(&mut a.value, depth + 1))?;
                }
                Ok(())
            }
            Expr::Unary(_, x, _) | Expr::Paren(x, _) => self.expand_sf(x, depth + 1),
            Expr::Binary(_, l, r, _) => {
                self.expand_sf(l, depth + 1)?;
                self.expand_sf(r, depth + 1)
            }
            Expr::Range { lo, hi, stride, .. } => {
                for x in [lo, hi, stride].into_iter().flatten() {
                    self.expand_sf(x, depth + 1)?;
                }
                Ok(())
            }
            Expr::ArrayCtor(items, _) => items
                .iter_mut()
                .try_for_each(|x| self.expand_sf(x, depth + 1)),
            Expr::Lit(..) | Expr::Name(..) => Ok(()),
        }
    }

    // ------------------------------------------------------------------
    // Statements
    // ------------------------------------------------------------------

    fn block(&mut self, stmts: Vec<Stmt>) -> FrontResult<Vec<Stmt>> {
        let mut out = Vec::new();
        for s in stmts {
            let label = s.label.clone();
            let start = out.len();
            self.stmt(s, &mut out)?;
            if let Some(l) = label {
                if out.len() == start {
                    out.push(Stmt {
                        id: 0,
                        label: None,
                        span: Span::default(),
                        kind: StmtKind::Continue,
                    });
                }
                out[start].label = Some(l);
            }
        }
        Ok(out)
    }

    fn stmt(&mut self, s: Stmt, out: &mut Vec<Stmt>) -> FrontResult<()> {
        let span = s.span;
        match s.kind {
            StmtKind::Assign { lhs, rhs } => self.assign(lhs, rhs, span, out),
            StmtKind::Call { name, args } => self.call(name, args, span, out),
            StmtKind::If { arms, otherwise } => self.if_chain(arms, otherwise, span, out),
            StmtKind::Do {
                construct,
                control,
                body,
            } => {
                let control = match control {
                    Some(c) => {
                        match self.prog.var(self.unit, &c.var) {
                            Some((o, k))
                                if self.prog.cat_of(o, &self.prog.symbol(o, k).ty.clone())
                                    == Cat::Int => {}
                            _ => {
                                return self.err(
                                    span,
                                    format!("do variable '{}' must be an integer variable", c.var),
                                )
                            }
                        }
                        let lo = self.value(c.lo, out)?;
                        let hi = self.value(c.hi, out)?;
                        let step = match c.step {
                            Some(st) => Some(self.value(st, out)?),
                            None => None,
                        };
                        Some(DoControl {
                            var: c.var,
                            lo,
                            hi,
                            step,
                        })
                    }
                    None => None,
                };
                let body = self.block(body)?;
                out.push(stmt(
                    StmtKind::Do {
                        construct,
                        control,
                        body,
                    },
                    span,
                ));
                Ok(())
            }
            StmtKind::DoWhile {
                construct,
                cond,
                body,
            } => {
                let mut pre = Vec::new();
                let c = self.value(cond.clone(), &mut pre)?;
                let mut body = self.block(body)?;
                if !pre.is_empty() {
                    if contains_cycle(&body, construct.as_deref(), 0) {
                        return self.err(span, "unsupported construct: cycle in a do while loop whose condition calls a function");
                    }
                    // Re-evaluate the condition's calls at the end of each trip.
                    let mut again = Vec::new();
                    let c2 = self.value(cond, &mut again)?;
                    debug_assert_eq!(c2, c);
                    out.extend(pre);
                    body.extend(again);
                }
                out.push(stmt(
                    StmtKind::DoWhile {
                        construct,
                        cond: c,
                        body,
                    },
                    span,
                ));
                Ok(())
            }
            StmtKind::Select { selector, cases } => self.select(selector, cases, span, out),
            StmtKind::Where { arms } => self.where_construct(arms, span, out),
            StmtKind::Continue => {
                // Only a labelled continue matters (a jump target).
                if s.label.is_some() {
                    out.push(stmt(StmtKind::Continue, span));
                }
                Ok(())
            }
            k @ (StmtKind::Exit(_) | StmtKind::Cycle(_) | StmtKind::Goto(_) | StmtKind::Return) => {
                out.push(stmt(k, span));
                Ok(())
            }
            StmtKind::Opaque {
                kind,
                text,
                reads,
                writes,
            } => {
                for e in reads.iter().chain(&writes) {
                    if let Some((f, sp)) = first_user_call(self.prog, self.unit, e) {
                        return self.err(sp, format!("unsupported construct: reference to user function '{f}' in an I/O or other opaque statement; assign it to a variable first"));
                    }
                }
                out.push(stmt(
                    StmtKind::Opaque {
                        kind,
                        text,
                        reads,
                        writes,
                    },
                    span,
                ));
                Ok(())
            }
        }
    }

    /// An if / else if chain. An `else if` condition that needs statements
    /// (function calls) turns the rest of the chain into a nested `if` in
    /// the `else` branch, after those statements.
    fn if_chain(
        &mut self,
        arms: Vec<(Expr, Vec<Stmt>)>,
        otherwise: Option<Vec<Stmt>>,
        span: Span,
        out: &mut Vec<Stmt>,
    ) -> FrontResult<()> {
        let mut rest = arms.into_iter();
        let (c0, b0) = rest
            .next()
            .ok_or_else(|| FrontError::new(span, "if without a condition"))?;
        let c = self.value(c0, out)?;
        let mut new_arms = vec![(c, self.block(b0)?)];
        let mut rest: Vec<(Expr, Vec<Stmt>)> = rest.collect();
        while !rest.is_empty() {
            if self.needs_statements(&rest[0].0) {
                let mut else_body = Vec::new();
                self.if_chain(rest, otherwise, span, &mut else_body)?;
                out.push(stmt(
                    StmtKind::If {
                        arms: new_arms,
                        otherwise: Some(else_body),
                    },
                    span,
                ));
                return Ok(());
            }
            let (c, b) = rest.remove(0);
            let mut pre = Vec::new();
            let cv = self.value(c, &mut pre)?;
            debug_assert!(pre.is_empty());
            out.extend(pre);
            new_arms.push((cv, self.block(b)?));
        }
        let otherwise = match otherwise {
            Some(o) => Some(self.block(o)?),
            None => None,
        };
        out.push(stmt(
            StmtKind::If {
                arms: new_arms,
                otherwise,
            },
            span,
        ));
        Ok(())
    }

    /// Does canonicalising this expression emit statements?
    fn needs_statements(&self, e: &Expr) -> bool {
        let mut needs = false;
        e.walk(&mut |x| match x {
            Expr::Apply { name, .. } => match self.prog.resolve(self.unit, name) {
                Some(Binding::Proc(_)) | Some(Binding::StmtFunction(..)) => needs = true,
                Some(Binding::Var { .. }) => {}
                _ => {
                    if intrinsics::xaif_name(name).is_none() {
                        needs = true;
                    }
                }
            },
            Expr::Member { .. } => needs = true,
            _ => {}
        });
        needs
    }

    /// `where`: every assignment becomes a loop over its target with the
    /// element of its arm's mask (and the negated earlier masks) as an `if`.
    /// Masks are evaluated once in Fortran, so they must not read what the
    /// construct assigns.
    fn where_construct(
        &mut self,
        arms: Vec<(Option<Expr>, Vec<Stmt>)>,
        span: Span,
        out: &mut Vec<Stmt>,
    ) -> FrontResult<()> {
        let mut assigned = Vec::new();
        for (_, body) in &arms {
            for st in body {
                if let StmtKind::Assign {
                    lhs: Expr::Name(n, _) | Expr::Apply { name: n, .. },
                    ..
                } = &st.kind
                {
                    assigned.push(n.clone());
                }
            }
        }
        let mut masks = Vec::new();
        for (m, _) in &arms {
            if let Some(m) = m {
                let mut clash = None;
                m.walk(&mut |x| {
                    if let Expr::Name(n, sp)
                    | Expr::Apply {
                        name: n, span: sp, ..
                    } = x
                    {
                        if assigned.contains(n) {
                            clash = Some((n.clone(), *sp));
                        }
                    }
                });
                if let Some((n, sp)) = clash {
                    return self.err(sp, format!("unsupported construct: where mask reads '{n}', which the construct assigns"));
                }
                masks.push(Some(self.value_array(m.clone(), out)?));
            } else {
                masks.push(None);
            }
        }
        for (k, (_, body)) in arms.into_iter().enumerate() {
            // This arm's condition: its mask and none of the earlier ones.
            let mut cond: Option<Expr> = masks[k].clone();
            for m in masks[..k].iter().flatten() {
                let not = Expr::Unary(
                    UnOp::Not,
                    Box::new(Expr::Paren(Box::new(m.clone()), span)),
                    span,
                );
                cond = Some(match cond {
                    None => not,
                    Some(c) => bin(BinOp::And, c, not, span),
                });
            }
            for st in body {
                let sp = st.span;
                let StmtKind::Assign { lhs, rhs } = st.kind else {
                    return self.err(
                        sp,
                        "unsupported construct: statement other than an assignment in where",
                    );
                };
                let lhs = self.designator(lhs, out)?;
                let target = self
                    .view(&lhs)?
                    .ok_or_else(|| FrontError::new(sp, "where assigns a non-array"))?;
                let space: Vec<(Expr, Expr, Option<Expr>)> = target
                    .ranges()
                    .into_iter()
                    .map(|(l, h, s)| (l.clone(), h.clone(), s.cloned()))
                    .collect();
                let rhs = self.value_array(rhs, out)?;
                if self.reads_other_section(&rhs, &target)? {
                    return self.err(sp, "unsupported construct: where assignment reading its target through another section");
                }
                let vars: Vec<String> = (0..space.len()).map(|_| self.loop_var(sp)).collect();
                let idx: Vec<Expr> = vars.iter().map(|v| name(v, sp)).collect();
                let el_l = self.element(&target, &idx, &space, sp)?;
                let el_r = self.elementwise(&rhs, &idx, &space, Some(&target))?;
                let assign = stmt(
                    StmtKind::Assign {
                        lhs: el_l,
                        rhs: el_r,
                    },
                    sp,
                );
                let inner = match &cond {
                    Some(c) => {
                        let el_c = self.elementwise(c, &idx, &space, None)?;
                        vec![stmt(
                            StmtKind::If {
                                arms: vec![(el_c, vec![assign])],
                                otherwise: None,
                            },
                            sp,
                        )]
                    }
                    None => vec![assign],
                };
                out.extend(self.loops(&vars, &space, inner, sp));
            }
        }
        Ok(())
    }

    fn select(
        &mut self,
        selector: Expr,
        cases: Vec<CaseBlock>,
        span: Span,
        out: &mut Vec<Stmt>,
    ) -> FrontResult<()> {
        let sel = self.value(selector, out)?;
        let sel_ty = self.ty(&sel);
        let simple = sel_ty.cat == Cat::Int
            && cases.iter().all(|c| match &c.values {
                None => true,
                Some(vs) => vs.len() == 1 && vs[0].const_int().is_some(),
            });
        if simple {
            let mut new_cases = Vec::new();
            for c in cases {
                new_cases.push(CaseBlock {
                    values: c.values,
                    body: self.block(c.body)?,
                });
            }
            out.push(stmt(
                StmtKind::Select {
                    selector: sel,
                    cases: new_cases,
                },
                span,
            ));
            return Ok(());
        }
        // Lower to an if chain over a selector evaluated once.
        let sel = match &sel {
            Expr::Name(..) => sel,
            _ => {
                let t = self.temp(sel_ty.cat, span)?;
                out.push(stmt(
                    StmtKind::Assign {
                        lhs: name(&t, span),
                        rhs: sel,
                    },
                    span,
                ));
                name(&t, span)
            }
        };
        let mut arms = Vec::new();
        let mut default = None;
        for c in cases {
            let body = self.block(c.body)?;
            match c.values {
                None => default = Some(body),
                Some(vs) => {
                    let mut cond: Option<Expr> = None;
                    for v in vs {
                        let test = match v {
                            Expr::Range { lo, hi, .. } => {
                                let a = lo.map(|l| bin(BinOp::Ge, sel.clone(), *l, span));
                                let b = hi.map(|h| bin(BinOp::Le, sel.clone(), *h, span));
                                match (a, b) {
                                    (Some(a), Some(b)) => bin(BinOp::And, a, b, span),
                                    (Some(a), None) => a,
                                    (None, Some(b)) => b,
                                    (None, None) => return self.err(span, "empty case range"),
                                }
                            }
                            v => {
                                let op = if sel_ty.cat == Cat::Logical {
                                    BinOp::Eqv
                                } else {
                                    BinOp::Eq
                                };
                                bin(op, sel.clone(), v, span)
                            }
                        };
                        cond = Some(match cond {
                            None => test,
                            Some(c) => bin(BinOp::Or, c, test, span),
                        });
                    }
                    let cond = cond.ok_or_else(|| FrontError::new(span, "case without values"))?;
                    arms.push((cond, body));
                }
            }
        }
        if arms.is_empty() {
            out.extend(default.unwrap_or_default());
            return Ok(());
        }
        out.push(stmt(
            StmtKind::If {
                arms,
                otherwise: default,
            },
            span,
        ));
        Ok(())
    }

    fn call(
        &mut self,
        callee: String,
        args: Vec<Arg>,
        span: Span,
        out: &mut Vec<Stmt>,
    ) -> FrontResult<()> {
        match self.prog.resolve(self.unit, &callee) {
            Some(Binding::Proc(p)) => {
                if self.prog.units[p].ast.kind != UnitKind::Subroutine {
                    return self.err(
                        span,
                        format!("'{callee}' is a function; it cannot be called with call"),
                    );
                }
                let mut post = Vec::new();
                let args = self.actuals(args, out, &mut post)?;
                out.push(stmt(StmtKind::Call { name: callee, args }, span));
                out.extend(post);
                Ok(())
            }
            _ => {
                // A subroutine without source: allowed only when no real
                // data goes in or out (otherwise derivatives would be lost).
                // Intrinsic subroutines that only produce values (clocks, random
                // numbers) give passive results: real arguments are fine.
                let producer = matches!(
                    callee.as_str(),
                    "cpu_time"
                        | "system_clock"
                        | "date_and_time"
                        | "random_number"
                        | "random_seed"
                        | "get_command_argument"
                        | "getarg"
                ) && self.prog.resolve(self.unit, &callee).is_none();
                for a in &args {
                    let t = self.ty(&a.value);
                    if matches!(t.cat, Cat::Real(_) | Cat::Complex(_)) && !producer {
                        return self.err(
                            a.value.span(),
                            format!("call of subroutine '{callee}' whose source is not among the inputs passes real data"),
                        );
                    }
                    if let Some((f, sp)) = first_user_call(self.prog, self.unit, &a.value) {
                        return self.err(sp, format!("unsupported construct: user function '{f}' in a call of external '{callee}'"));
                    }
                }
                let text = format!("call {callee}({})", unparse::args_text(&args));
                let reads = args.iter().map(|a| a.value.clone()).collect();
                // Variables passed may be written.
                let writes = args
                    .iter()
                    .filter(|a| {
                        matches!(a.value, Expr::Name(..) | Expr::Apply { .. })
                            && self.ty(&a.value).cat != Cat::Unknown
                    })
                    .map(|a| a.value.clone())
                    .collect();
                out.push(stmt(
                    StmtKind::Opaque {
                        kind: OpaqueKind::Other,
                        text,
                        reads,
                        writes,
                    },
                    span,
                ));
                Ok(())
            }
        }
    }

    /// Actual arguments of a user procedure: variables and constants stay,
    /// anything else goes through a temporary.
    fn actuals(
        &mut self,
        args: Vec<Arg>,
        out: &mut Vec<Stmt>,
        post: &mut Vec<Stmt>,
    ) -> FrontResult<Vec<Arg>> {
        let mut res = Vec::new();
        for a in args {
            let v = match a.value {
                Expr::Lit(..) => a.value,
                Expr::Name(ref n, sp) => match self.prog.resolve(self.unit, n) {
                    Some(Binding::Var { .. }) => a.value,
                    _ => {
                        return self.err(
                            sp,
                            format!("unsupported construct: procedure '{n}' passed as an argument"),
                        )
                    }
                },
                Expr::Apply { ref name, .. }
                    if matches!(
                        self.prog.resolve(self.unit, name),
                        Some(Binding::Var { .. })
                    ) =>
                {
                    self.designator(a.value, out)?
                }
                other => {
                    let sp = other.span();
                    let t = self.ty(&other);
                    if t.rank > 0 {
                        // An array expression: passed as a temporary array.
                        let (tmp, dealloc) = self.array_temp_of(other, sp, out)?;
                        post.extend(dealloc);
                        res.push(Arg {
                            keyword: a.keyword,
                            value: name(&tmp, sp),
                        });
                        continue;
                    }
                    let v = self.value(other, out)?;
                    if matches!(v, Expr::Lit(..)) {
                        v
                    } else {
                        let tmp = self.temp(t.cat, sp)?;
                        self.assign_scalar(name(&tmp, sp), v, sp, out)?;
                        name(&tmp, sp)
                    }
                }
            };
            res.push(Arg {
                keyword: a.keyword,
                value: v,
            });
        }
        Ok(res)
    }

    /// An array element or section reference with canonical subscripts.
    fn designator(&mut self, e: Expr, out: &mut Vec<Stmt>) -> FrontResult<Expr> {
        match e {
            Expr::Apply {
                name: n,
                args,
                span,
            } => {
                let mut subs = Vec::new();
                for a in args {
                    if a.keyword.is_some() {
                        return self.err(span, "keyword in an array subscript");
                    }
                    let v = match a.value {
                        Expr::Range {
                            lo,
                            hi,
                            stride,
                            span: rs,
                        } => {
                            let mut f =
                                |x: Option<Box<Expr>>,
                                 out: &mut Vec<Stmt>|
                                 -> FrontResult<Option<Box<Expr>>> {
                                    x.map(|b| self.value(*b, out).map(Box::new)).transpose()
                                };
                            let lo = f(lo, out)?;
                            let hi = f(hi, out)?;
                            let stride = f(stride, out)?;
                            Expr::Range {
                                lo,
                                hi,
                                stride,
                                span: rs,
                            }
                        }
                        v => {
                            if self.ty(&v).rank > 0 {
                                return self
                                    .err(v.span(), "unsupported construct: vector subscript");
                            }
                            self.value(v, out)?
                        }
                    };
                    subs.push(Arg {
                        keyword: None,
                        value: v,
                    });
                }
                Ok(Expr::Apply {
                    name: n,
                    args: subs,
                    span,
                })
            }
            other => Ok(other),
        }
    }

    // ------------------------------------------------------------------
    // Assignments
    // ------------------------------------------------------------------

    fn assign(&mut self, lhs: Expr, rhs: Expr, span: Span, out: &mut Vec<Stmt>) -> FrontResult<()> {
        let lt = self.ty(&lhs);
        let target_name = match &lhs {
            Expr::Name(n, _) | Expr::Apply { name: n, .. } => Some(n.clone()),
            _ => None,
        };
        if let Some(n) = &target_name {
            match self.prog.resolve(self.unit, n) {
                Some(Binding::Var { owner, sym }) => {
                    if self.prog.symbol(owner, sym).parameter {
                        return self.err(span, format!("assignment to parameter '{n}'"));
                    }
                }
                Some(Binding::Proc(p))
                    if self.prog.units[p].ast.result.as_deref() == Some(n.as_str()) => {}
                _ => return self.err(span, format!("'{n}' is not a variable")),
            }
        }
        // Passive data: character, logical-free derived, complex.
        if matches!(lhs, Expr::Member { .. })
            || matches!(lt.cat, Cat::Char | Cat::Derived | Cat::Complex(_))
        {
            return self.passive_assign(lhs, rhs, lt, span, out);
        }
        if lt.rank > 0
            && !lt.cat.is_real()
            && !self.xaif_expressible(&rhs)
            && first_user_call(self.prog, self.unit, &rhs).is_none()
        {
            return self.passive_assign(lhs, rhs, lt, span, out);
        }
        if lt.rank > 0 {
            return self.array_assign(lhs, rhs, span, out);
        }
        // Integer and logical targets whose right side uses intrinsics
        // outside the catalogue stay opaque.
        if !lt.cat.is_real()
            && !self.xaif_expressible(&rhs)
            && first_user_call(self.prog, self.unit, &rhs).is_none()
        {
            return self.passive_assign(lhs, rhs, lt, span, out);
        }
        let lhs = self.designator(lhs, out)?;
        let rhs = self.value(rhs, out)?;
        if self.ty(&rhs).rank > 0 {
            return self.err(span, "array value assigned to a scalar");
        }
        out.push(stmt(StmtKind::Assign { lhs, rhs }, span));
        Ok(())
    }

    /// `lhs = rhs` where `rhs` is already canonical.
    fn assign_scalar(
        &mut self,
        lhs: Expr,
        rhs: Expr,
        span: Span,
        out: &mut Vec<Stmt>,
    ) -> FrontResult<()> {
        out.push(stmt(StmtKind::Assign { lhs, rhs }, span));
        Ok(())
    }

    fn passive_assign(
        &mut self,
        lhs: Expr,
        rhs: Expr,
        lt: Ty,
        span: Span,
        out: &mut Vec<Stmt>,
    ) -> FrontResult<()> {
        if let Some((f, sp)) = first_user_call(self.prog, self.unit, &rhs)
            .or_else(|| first_user_call(self.prog, self.unit, &lhs))
        {
            if lt.rank > 0 || !matches!(lt.cat, Cat::Int | Cat::Logical) {
                return self.err(
                    sp,
                    format!(
                        "unsupported construct: user function '{f}' in an assignment of {}",
                        describe(lt.cat)
                    ),
                );
            }
        }
        // Real data flowing into passive storage would lose derivatives.
        let mut real_source = None;
        rhs.walk(&mut |e| {
            if real_source.is_some() {
                return;
            }
            if let Expr::Name(n, sp)
            | Expr::Apply {
                name: n, span: sp, ..
            } = e
            {
                if let Some((o, k)) = self.prog.var(self.unit, n) {
                    let s = self.prog.symbol(o, k);
                    if !s.parameter && self.prog.cat_of(o, &s.ty).is_real() {
                        real_source = Some((n.clone(), *sp));
                    }
                }
            }
        });
        if let Some((n, sp)) = real_source {
            if matches!(lt.cat, Cat::Complex(_) | Cat::Derived)
                || matches!(lhs, Expr::Member { .. })
            {
                return self.err(
                    sp,
                    format!(
                        "unsupported construct: real variable '{n}' flows into {}, which is passive (derivatives would be lost)",
                        if matches!(lhs, Expr::Member { .. }) { "a derived-type component" } else { describe(lt.cat) }
                    ),
                );
            }
        }
        let text = format!("{} = {}", unparse::expr(&lhs), unparse::expr(&rhs));
        out.push(stmt(
            StmtKind::Opaque {
                kind: OpaqueKind::PassiveAssign,
                text,
                reads: vec![rhs],
                writes: vec![lhs],
            },
            span,
        ));
        Ok(())
    }

    /// Can the expression go into XAIF as it is (catalogue intrinsics only,
    /// no derived-type components)?
    fn xaif_expressible(&self, e: &Expr) -> bool {
        let mut ok = true;
        e.walk(&mut |x| match x {
            Expr::Member { .. } | Expr::ArrayCtor(..) => ok = false,
            Expr::Binary(BinOp::Concat, ..) => ok = false,
            Expr::Lit(Literal::Str(_) | Literal::Complex(_), _) => ok = false,
            Expr::Apply { .. } => {
                if let Some(n) = intrinsics::is_intrinsic_ref(self.prog, self.unit, x) {
                    if intrinsics::xaif_name(&n).is_none() && !REDUCTIONS.contains(&n.as_str()) {
                        ok = false;
                    }
                }
            }
            _ => {}
        });
        ok
    }

    // ------------------------------------------------------------------
    // Expressions
    // ------------------------------------------------------------------

    /// Rewrites an expression into canonical form, appending the statements
    /// it needs (function calls, reductions) to `out`.
    fn value(&mut self, e: Expr, out: &mut Vec<Stmt>) -> FrontResult<Expr> {
        match e {
            Expr::Lit(..) => Ok(e),
            Expr::Name(ref n, sp) => match self.prog.resolve(self.unit, n) {
                Some(Binding::Var { .. }) => Ok(e),
                Some(Binding::Proc(_)) => self.err(
                    sp,
                    format!("unsupported construct: procedure name '{n}' used as a value"),
                ),
                _ => self.err(sp, format!("'{n}' is not a variable")),
            },
            Expr::Apply {
                name: ref n, span, ..
            } => {
                let n = n.clone();
                match self.prog.resolve(self.unit, &n) {
                    Some(Binding::Var { .. }) => self.designator(e, out),
                    Some(Binding::Proc(p)) => {
                        let Expr::Apply { args, .. } = e else {
                            unreachable!()
                        };
                        self.function_call(p, args, span, out)
                    }
                    Some(Binding::StmtFunction(..)) => {
                        self.err(span, "internal error: statement function left")
                    }
                    Some(Binding::Intrinsic) | None => {
                        let Expr::Apply { args, .. } = e else {
                            unreachable!()
                        };
                        self.intrinsic(n, args, span, out)
                    }
                }
            }
            Expr::Member { span, .. } => {
                // Derived types are passive: read the component into a
                // temporary through an opaque statement.
                let t = self.ty(&e);
                if let Some((f, sp)) = first_user_call(self.prog, self.unit, &e) {
                    return self.err(
                        sp,
                        format!(
                            "unsupported construct: user function '{f}' in a component reference"
                        ),
                    );
                }
                if t.rank == 0 && !matches!(t.cat, Cat::Unknown | Cat::Char | Cat::Derived) {
                    let tmp = self.temp(t.cat, span)?;
                    let text = format!("{tmp} = {}", unparse::expr(&e));
                    out.push(stmt(
                        StmtKind::Opaque {
                            kind: OpaqueKind::PassiveAssign,
                            text,
                            reads: vec![e],
                            writes: vec![name(&tmp, span)],
                        },
                        span,
                    ));
                    return Ok(name(&tmp, span));
                }
                self.err(span, "unsupported construct: derived-type component in an expression of the numerical core (derived types are passive containers)")
            }
            Expr::Unary(op, x, sp) => Ok(Expr::Unary(op, Box::new(self.value(*x, out)?), sp)),
            Expr::Binary(op, l, r, sp) => {
                let l = self.value(*l, out)?;
                let r = self.value(*r, out)?;
                Ok(Expr::Binary(op, Box::new(l), Box::new(r), sp))
            }
            Expr::Paren(x, sp) => {
                let v = self.value(*x, out)?;
                Ok(match v {
                    Expr::Name(..) | Expr::Lit(..) | Expr::Apply { .. } | Expr::Paren(..) => v,
                    v => Expr::Paren(Box::new(v), sp),
                })
            }
            Expr::Range { span, .. } => self.err(span, "array section outside a subscript"),
            Expr::ArrayCtor(_, span) => self.err(
                span,
                "unsupported construct: array constructor inside an expression",
            ),
        }
    }

    fn function_call(
        &mut self,
        p: usize,
        args: Vec<Arg>,
        span: Span,
        out: &mut Vec<Stmt>,
    ) -> FrontResult<Expr> {
        let callee = &self.prog.units[p];
        if callee.ast.kind != UnitKind::Function {
            return self.err(
                span,
                format!("subroutine '{}' referenced as a function", callee.ast.name),
            );
        }
        let rname = callee
            .ast
            .result
            .clone()
            .unwrap_or_else(|| callee.ast.name.clone());
        let rsym = callee
            .lookup_local(&rname)
            .ok_or_else(|| FrontError::new(span, "function without a result variable"))?;
        if callee.symbols[rsym].rank() > 0 {
            return self.err(
                span,
                format!(
                    "unsupported construct: array-valued function '{}'",
                    callee.ast.name
                ),
            );
        }
        let cat = self
            .prog
            .cat_of(p, &self.prog.units[p].symbols[rsym].ty.clone());
        let sub_name = self.prog.units[p].canon_name.clone();
        let mut post = Vec::new();
        let mut actuals = self.actuals(args, out, &mut post)?;
        let t = self.temp(cat, span)?;
        let keyword = if actuals.iter().any(|a| a.keyword.is_some()) {
            Some(rname)
        } else {
            None
        };
        actuals.push(Arg {
            keyword,
            value: name(&t, span),
        });

        out.push(stmt(
            StmtKind::Call {
                name: sub_name,
                args: actuals,
            },
            span,
        ));
        out.extend(post);
        Ok(name(&t, span))
    }

    fn intrinsic(
        &mut self,
        n: String,
        args: Vec<Arg>,
        span: Span,
        out: &mut Vec<Stmt>,
    ) -> FrontResult<Expr> {
        if REDUCTIONS.contains(&n.as_str()) {
            return self.reduction(&n, args, span, out);
        }
        if n == "matmul" || n == "transpose" {
            return self.err(span, format!("unsupported construct: {n} inside an expression (assign it to an array directly)"));
        }
        // Inquiries about arrays keep the whole array as argument.
        let inquiry = matches!(
            n.as_str(),
            "size"
                | "lbound"
                | "ubound"
                | "present"
                | "allocated"
                | "associated"
                | "len"
                | "kind"
                | "huge"
                | "tiny"
                | "epsilon"
                | "digits"
                | "precision"
                | "shape"
        );
        let mut new_args = Vec::new();
        for a in args {
            let v = if inquiry && matches!(a.value, Expr::Name(..)) {
                a.value
            } else {
                self.value(a.value, out)?
            };
            new_args.push(Arg {
                keyword: a.keyword,
                value: v,
            });
        }
        // n-ary min/max as nested binary calls.
        if (intrinsics::xaif_name(&n) == Some("min_scal_scal")
            || intrinsics::xaif_name(&n) == Some("max_scal_scal"))
            && new_args.len() > 2
        {
            let mut it = new_args.into_iter();
            let first = it.next().expect("args");
            let mut acc = first.value;
            for a in it {
                acc = Expr::Apply {
                    name: n.clone(),
                    args: vec![
                        Arg {
                            keyword: None,
                            value: acc,
                        },
                        Arg {
                            keyword: None,
                            value: a.value,
                        },
                    ],
                    span,
                };
            }
            return Ok(acc);
        }
        let e = Expr::Apply {
            name: n.clone(),
            args: new_args,
            span,
        };
        let t = self.ty(&e);
        if t.rank > 0 {
            return Ok(e); // elemental on arrays: handled by scalarisation
        }
        let complex_arg = {
            let Expr::Apply { args: ref a, .. } = e else {
                unreachable!()
            };
            a.iter()
                .any(|x| matches!(self.ty(&x.value).cat, Cat::Complex(_)))
        };
        if intrinsics::xaif_name(&n).is_some() && !complex_arg {
            return Ok(e);
        }
        // Outside the catalogue: fine when no derivative can flow through.
        let Expr::Apply { args: ref a, .. } = e else {
            unreachable!()
        };
        // Complex data is passive: only real arguments can carry derivatives.
        let real_arg = a
            .iter()
            .any(|x| self.ty(&x.value).cat.is_real() && !matches!(x.value, Expr::Lit(..)));
        let value_free = matches!(
            n.as_str(),
            "huge"
                | "tiny"
                | "epsilon"
                | "kind"
                | "digits"
                | "precision"
                | "present"
                | "allocated"
                | "associated"
                | "size"
                | "shape"
                | "range"
                | "radix"
                | "maxexponent"
                | "minexponent"
        );
        if real_arg && !value_free && (t.cat.is_real() || matches!(t.cat, Cat::Complex(_))) {
            return self.err(
                span,
                format!("unsupported construct: intrinsic '{n}' on real data (no derivative rule)"),
            );
        }
        let tmp = self.temp(t.cat, span)?;
        let text = format!("{tmp} = {}", unparse::expr(&e));
        out.push(stmt(
            StmtKind::Opaque {
                kind: OpaqueKind::PassiveAssign,
                text,
                reads: vec![e],
                writes: vec![name(&tmp, span)],
            },
            span,
        ));
        Ok(name(&tmp, span))
    }

    // ------------------------------------------------------------------
    // Arrays
    // ------------------------------------------------------------------

    /// Declared bounds of dimension `d` of array `n`.
    fn bounds(&self, n: &str, d: usize, span: Span) -> FrontResult<(Expr, Expr)> {
        let (o, k) = self
            .prog
            .var(self.unit, n)
            .ok_or_else(|| FrontError::new(span, format!("'{n}' is not an array")))?;
        let sym = self.prog.symbol(o, k);
        let dims = sym
            .dims
            .as_ref()
            .ok_or_else(|| FrontError::new(span, format!("'{n}' is not an array")))?;
        let inquiry = |f: &str| Expr::Apply {
            name: f.to_string(),
            args: vec![
                Arg {
                    keyword: None,
                    value: name(n, span),
                },
                Arg {
                    keyword: None,
                    value: Expr::int(d as i64 + 1, span),
                },
            ],
            span,
        };
        match dims.get(d) {
            Some(DimSpec::Explicit { lo, hi })
                if o == self.unit || self.is_constant_bounds(o, lo.as_ref(), hi) =>
            {
                Ok((lo.clone().unwrap_or_else(|| Expr::int(1, span)), hi.clone()))
            }
            Some(DimSpec::Explicit { .. }) | Some(DimSpec::Colon { .. }) => {
                Ok((inquiry("lbound"), inquiry("ubound")))
            }
            Some(DimSpec::AssumedSize { .. }) => self.err(
                span,
                format!("unsupported construct: whole-array operation on assumed-size array '{n}'"),
            ),
            None => self.err(span, format!("'{n}' has fewer dimensions")),
        }
    }

    fn is_constant_bounds(&self, owner: usize, lo: Option<&Expr>, hi: &Expr) -> bool {
        lo.is_none_or(|l| self.prog.const_int(owner, l).is_some())
            && self.prog.const_int(owner, hi).is_some()
    }

    /// The view of an array operand (`a` or `a(1, 2:n)`).
    fn view(&self, e: &Expr) -> FrontResult<Option<View>> {
        match e {
            Expr::Name(n, sp) => match self.prog.var(self.unit, n) {
                Some((o, k)) if self.prog.symbol(o, k).rank() > 0 => {
                    let rank = self.prog.symbol(o, k).rank();
                    let mut subs = Vec::new();
                    for d in 0..rank {
                        let (lo, hi) = self.bounds(n, d, *sp)?;
                        subs.push(Sub::Range {
                            lo,
                            hi,
                            stride: None,
                        });
                    }
                    Ok(Some(View {
                        name: n.clone(),
                        subs,
                    }))
                }
                _ => Ok(None),
            },
            Expr::Apply {
                name: n,
                args,
                span,
            } => match self.prog.var(self.unit, n) {
                Some((o, k)) if self.prog.symbol(o, k).rank() > 0 => {
                    let mut subs = Vec::new();
                    let mut any_range = false;
                    for (d, a) in args.iter().enumerate() {
                        match &a.value {
                            Expr::Range { lo, hi, stride, .. } => {
                                any_range = true;
                                let (dlo, dhi) = if lo.is_none() || hi.is_none() {
                                    self.bounds(n, d, *span)?
                                } else {
                                    (Expr::int(1, *span), Expr::int(1, *span))
                                };
                                subs.push(Sub::Range {
                                    lo: lo.as_deref().cloned().unwrap_or(dlo),
                                    hi: hi.as_deref().cloned().unwrap_or(dhi),
                                    stride: stride.as_deref().cloned(),
                                });
                            }
                            v => {
                                if self.ty(v).rank > 0 {
                                    return self
                                        .err(v.span(), "unsupported construct: vector subscript");
                                }
                                subs.push(Sub::Fixed(v.clone()));
                            }
                        }
                    }
                    Ok(if any_range {
                        Some(View {
                            name: n.clone(),
                            subs,
                        })
                    } else {
                        None
                    })
                }
                _ => Ok(None),
            },
            _ => Ok(None),
        }
    }

    /// The element of `view` at the iteration point `idx` of the space
    /// `space` (the ranges of the target).
    fn element(
        &self,
        view: &View,
        idx: &[Expr],
        space: &[(Expr, Expr, Option<Expr>)],
        span: Span,
    ) -> FrontResult<Expr> {
        let ranges = view.ranges();
        if ranges.len() != idx.len() {
            return self.err(
                span,
                format!(
                    "array '{}' does not conform (rank {} against {})",
                    view.name,
                    ranges.len(),
                    idx.len()
                ),
            );
        }
        let mut args = Vec::new();
        let mut k = 0;
        for s in &view.subs {
            let v = match s {
                Sub::Fixed(e) => e.clone(),
                Sub::Range { lo, stride, .. } => {
                    let (slo, _, sst) = &space[k];
                    let i = idx[k].clone();
                    k += 1;
                    if strip(lo) == strip(slo)
                        && stride.as_ref().map(strip) == sst.as_ref().map(strip)
                    {
                        i
                    } else {
                        // lo + (i - slo) / sst * stride
                        let mut off = bin(BinOp::Sub, i, slo.clone(), span);
                        if let Some(st) = sst {
                            off = bin(
                                BinOp::Div,
                                Expr::Paren(Box::new(off), span),
                                st.clone(),
                                span,
                            );
                        }
                        if let Some(st) = stride {
                            off = bin(
                                BinOp::Mul,
                                Expr::Paren(Box::new(off), span),
                                st.clone(),
                                span,
                            );
                        }
                        bin(
                            BinOp::Add,
                            lo.clone(),
                            Expr::Paren(Box::new(off), span),
                            span,
                        )
                    }
                }
            };
            args.push(Arg {
                keyword: None,
                value: v,
            });
        }
        Ok(Expr::Apply {
            name: view.name.clone(),
            args,
            span,
        })
    }

    /// Replaces every array operand of `e` by its element at `idx`, a point
    /// of `space` (the target's index ranges). `transpose` and `reshape`
    /// are index transformations on their argument.
    fn elementwise(
        &self,
        e: &Expr,
        idx: &[Expr],
        space: &[(Expr, Expr, Option<Expr>)],
        target: Option<&View>,
    ) -> FrontResult<Expr> {
        if let Some(v) = self.view(e)? {
            if let Some(t) = target {
                if t.name == v.name && !same_view(t, &v) {
                    return self.err(
                        e.span(),
                        format!("internal error: overlapping read of '{}'", v.name),
                    );
                }
            }
            return self.element(&v, idx, space, e.span());
        }
        Ok(match e {
            Expr::Apply {
                name: n,
                args,
                span,
            } if self.prog.var(self.unit, n).is_none() => {
                let sp = *span;
                if n == "transpose" && args.len() == 1 {
                    let src_space = self.space_of(&args[0].value)?;
                    if src_space.len() != 2 || idx.len() != 2 {
                        return self.err(sp, "transpose needs rank-2 arrays");
                    }
                    // (i, j) of the result is (j, i) of the argument.
                    let i_src = offset(&src_space[0].0, &idx[1], &space[1].0, sp);
                    let j_src = offset(&src_space[1].0, &idx[0], &space[0].0, sp);
                    return self.elementwise(&args[0].value, &[i_src, j_src], &src_space, target);
                }
                if n == "reshape" && !args.is_empty() {
                    if args.len() > 2 {
                        return self.err(sp, "unsupported construct: reshape with pad or order");
                    }
                    // Column-major position in the result, then in the source.
                    let src_space = self.space_of(&args[0].value)?;
                    let mut k: Option<Expr> = None;
                    let mut stride_prod: Option<Expr> = None;
                    for (d, (lo, hi, _)) in space.iter().enumerate() {
                        let term = bin(BinOp::Sub, idx[d].clone(), lo.clone(), sp);
                        let term = match &stride_prod {
                            None => term,
                            Some(p) => bin(BinOp::Mul, paren(term, sp), p.clone(), sp),
                        };
                        k = Some(match k {
                            None => term,
                            Some(acc) => bin(BinOp::Add, acc, term, sp),
                        });
                        let n_d = extent(lo, hi, sp);
                        stride_prod = Some(match stride_prod {
                            None => n_d,
                            Some(p) => bin(BinOp::Mul, p, n_d, sp),
                        });
                    }
                    let k = k.ok_or_else(|| FrontError::new(sp, "reshape of a scalar"))?;
                    let mut src_idx = Vec::new();
                    let mut below: Option<Expr> = None;
                    for (lo, hi, _) in &src_space {
                        let q = match &below {
                            None => paren(k.clone(), sp),
                            Some(b) => {
                                bin(BinOp::Div, paren(k.clone(), sp), paren(b.clone(), sp), sp)
                            }
                        };
                        let n_d = extent(lo, hi, sp);
                        let r = Expr::Apply {
                            name: "mod".into(),
                            args: vec![
                                Arg {
                                    keyword: None,
                                    value: q,
                                },
                                Arg {
                                    keyword: None,
                                    value: n_d.clone(),
                                },
                            ],
                            span: sp,
                        };
                        src_idx.push(bin(BinOp::Add, lo.clone(), r, sp));
                        below = Some(match below {
                            None => n_d,
                            Some(b) => bin(BinOp::Mul, b, n_d, sp),
                        });
                    }
                    let src_space: Vec<(Expr, Expr, Option<Expr>)> = src_space
                        .into_iter()
                        .map(|(l, h, _)| (l, h, None))
                        .collect();
                    return self.elementwise(&args[0].value, &src_idx, &src_space, target);
                }
                if n == "matmul" {
                    return self.err(sp, "unsupported construct: matmul inside an array expression (assign it to an array first)");
                }
                let mut new = Vec::new();
                for a in args {
                    new.push(Arg {
                        keyword: a.keyword.clone(),
                        value: self.elementwise(&a.value, idx, space, target)?,
                    });
                }
                Expr::Apply {
                    name: n.clone(),
                    args: new,
                    span: sp,
                }
            }
            Expr::Unary(op, x, sp) => {
                Expr::Unary(*op, Box::new(self.elementwise(x, idx, space, target)?), *sp)
            }
            Expr::Binary(op, l, r, sp) => Expr::Binary(
                *op,
                Box::new(self.elementwise(l, idx, space, target)?),
                Box::new(self.elementwise(r, idx, space, target)?),
                *sp,
            ),
            Expr::Paren(x, sp) => {
                Expr::Paren(Box::new(self.elementwise(x, idx, space, target)?), *sp)
            }
            Expr::ArrayCtor(_, sp) => {
                // Constructors are unrolled only as a whole right side
                // (handled by the caller).
                return self.err(
                    *sp,
                    "unsupported construct: array constructor inside an array expression",
                );
            }
            other => other.clone(),
        })
    }

    /// The index ranges an array expression runs over.
    fn space_of(&self, e: &Expr) -> FrontResult<Vec<(Expr, Expr, Option<Expr>)>> {
        if let Some(v) = self.view(e)? {
            return Ok(v
                .ranges()
                .into_iter()
                .map(|(l, h, s)| (l.clone(), h.clone(), s.cloned()))
                .collect());
        }
        match e {
            Expr::Apply {
                name: n,
                args,
                span,
            } if self.prog.var(self.unit, n).is_none() => {
                if n == "transpose" && args.len() == 1 {
                    let mut s = self.space_of(&args[0].value)?;
                    s.reverse();
                    return Ok(s);
                }
                if n == "reshape" && args.len() >= 2 {
                    let Expr::ArrayCtor(items, _) = &args[1].value else {
                        return self.err(*span, "unsupported construct: reshape with a shape that is not an array constructor");
                    };
                    return Ok(items
                        .iter()
                        .map(|it| (Expr::int(1, *span), it.clone(), None))
                        .collect());
                }
                for a in args {
                    if self.ty(&a.value).rank > 0 {
                        return self.space_of(&a.value);
                    }
                }
                self.err(*span, "not an array expression")
            }
            Expr::Unary(_, x, _) | Expr::Paren(x, _) => self.space_of(x),
            Expr::Binary(_, l, r, _) => {
                if self.ty(l).rank > 0 {
                    self.space_of(l)
                } else {
                    self.space_of(r)
                }
            }
            _ => self.err(e.span(), "not an array expression"),
        }
    }

    /// Can `e` appear in a declaration of this unit (automatic array bound)?
    fn is_spec_expr(&self, e: &Expr) -> bool {
        let mut ok = true;
        e.walk(&mut |x| match x {
            Expr::Name(n, _) => match self.prog.var(self.unit, n) {
                Some((o, k)) => {
                    let s = self.prog.symbol(o, k);
                    if !(s.parameter || s.dummy.is_some() || o != self.unit || s.common.is_some())
                        || s.temp
                    {
                        ok = false;
                    }
                }
                None => ok = false,
            },
            Expr::Apply { name, .. }
                if self.prog.var(self.unit, name).is_some()
                    || !matches!(name.as_str(), "lbound" | "ubound" | "size") =>
            {
                ok = false;
            }
            _ => {}
        });
        ok
    }

    /// A temporary array over `space` (1-based extents). Automatic when the
    /// extents are specification expressions; otherwise allocatable,
    /// allocated here (the caller deallocates with the returned statement).
    fn temp_array(
        &mut self,
        cat: Cat,
        space: &[(Expr, Expr, Option<Expr>)],
        span: Span,
        out: &mut Vec<Stmt>,
    ) -> FrontResult<(String, Option<Stmt>)> {
        let t = self.temp(cat, span)?;
        let extents: Vec<Expr> = space
            .iter()
            .map(|(lo, hi, st)| match st {
                None => extent(lo, hi, span),
                Some(s) => bin(
                    BinOp::Add,
                    bin(
                        BinOp::Div,
                        paren(bin(BinOp::Sub, hi.clone(), lo.clone(), span), span),
                        s.clone(),
                        span,
                    ),
                    Expr::int(1, span),
                    span,
                ),
            })
            .collect();
        let automatic = extents.iter().all(|e| self.is_spec_expr(e));
        let unit = &mut self.prog.units[self.unit];
        let k = unit.lookup_local(&t).expect("temp just added");
        if automatic {
            unit.symbols[k].dims = Some(
                extents
                    .into_iter()
                    .map(|hi| DimSpec::Explicit { lo: None, hi })
                    .collect(),
            );
            return Ok((t, None));
        }
        unit.symbols[k].dims = Some(
            extents
                .iter()
                .map(|_| DimSpec::Colon { lo: None })
                .collect(),
        );
        unit.symbols[k].allocatable = true;
        let shape = extents
            .iter()
            .map(unparse::expr)
            .collect::<Vec<_>>()
            .join(", ");
        out.push(stmt(
            StmtKind::Opaque {
                kind: OpaqueKind::Allocate,
                text: format!("allocate({t}({shape}))"),
                reads: extents.clone(),
                writes: vec![name(&t, span)],
            },
            span,
        ));
        let dealloc = stmt(
            StmtKind::Opaque {
                kind: OpaqueKind::Allocate,
                text: format!("deallocate({t})"),
                reads: vec![],
                writes: vec![name(&t, span)],
            },
            span,
        );
        Ok((t, Some(dealloc)))
    }

    /// `tmp = e` for an array expression `e`; returns the temporary's name
    /// and its deallocation, if any.
    fn array_temp_of(
        &mut self,
        e: Expr,
        span: Span,
        out: &mut Vec<Stmt>,
    ) -> FrontResult<(String, Option<Stmt>)> {
        let e = self.value_array(e, out)?;
        let space = self.space_of(&e)?;
        let cat = self.ty(&e).cat;
        let (t, dealloc) = self.temp_array(cat, &space, span, out)?;
        let tspace: Vec<(Expr, Expr, Option<Expr>)> = space
            .iter()
            .enumerate()
            .map(|(d, _)| {
                let (o, k) = (
                    self.unit,
                    self.prog.units[self.unit].lookup_local(&t).expect("temp"),
                );
                let hi = match &self.prog.symbol(o, k).dims.as_ref().expect("dims")[d] {
                    DimSpec::Explicit { hi, .. } => hi.clone(),
                    _ => Expr::Apply {
                        name: "ubound".into(),
                        args: vec![
                            Arg {
                                keyword: None,
                                value: name(&t, span),
                            },
                            Arg {
                                keyword: None,
                                value: Expr::int(d as i64 + 1, span),
                            },
                        ],
                        span,
                    },
                };
                (Expr::int(1, span), hi, None)
            })
            .collect();
        let tview = View {
            name: t.clone(),
            subs: tspace
                .iter()
                .map(|(l, h, s)| Sub::Range {
                    lo: l.clone(),
                    hi: h.clone(),
                    stride: s.clone(),
                })
                .collect(),
        };
        let vars: Vec<String> = (0..tspace.len()).map(|_| self.loop_var(span)).collect();
        let idx: Vec<Expr> = vars.iter().map(|v| name(v, span)).collect();
        let el_t = self.element(&tview, &idx, &tspace, span)?;
        // Source indices: offsets from the temporary's 1-based indices.
        let src_idx: Vec<Expr> = space
            .iter()
            .zip(&idx)
            .map(|((lo, _, st), i)| {
                let off = bin(BinOp::Sub, i.clone(), Expr::int(1, span), span);
                let off = match st {
                    Some(s) => bin(BinOp::Mul, paren(off, span), s.clone(), span),
                    None => off,
                };
                bin(BinOp::Add, lo.clone(), paren(off, span), span)
            })
            .collect();
        let el_s = self.elementwise(&e, &src_idx, &space, None)?;
        let body = vec![stmt(
            StmtKind::Assign {
                lhs: el_t,
                rhs: el_s,
            },
            span,
        )];
        out.extend(self.loops(&vars, &tspace, body, span));
        Ok((t, dealloc))
    }

    /// Canonicalises the scalar parts of an array expression (function
    /// calls, reductions), keeping whole-array intrinsics for scalarisation.
    fn value_array(&mut self, e: Expr, out: &mut Vec<Stmt>) -> FrontResult<Expr> {
        match e {
            Expr::Apply {
                name: n,
                args,
                span,
            } if self.prog.var(self.unit, &n).is_none()
                && matches!(n.as_str(), "transpose" | "reshape" | "matmul") =>
            {
                let mut new = Vec::new();
                for (k, a) in args.into_iter().enumerate() {
                    let v = if n == "reshape" && k == 1 {
                        a.value
                    } else {
                        self.value_array(a.value, out)?
                    };
                    new.push(Arg {
                        keyword: a.keyword,
                        value: v,
                    });
                }
                Ok(Expr::Apply {
                    name: n,
                    args: new,
                    span,
                })
            }
            Expr::Binary(op, l, r, sp) => {
                let l = self.value_array(*l, out)?;
                let r = self.value_array(*r, out)?;
                Ok(Expr::Binary(op, Box::new(l), Box::new(r), sp))
            }
            Expr::Unary(op, x, sp) => Ok(Expr::Unary(op, Box::new(self.value_array(*x, out)?), sp)),
            Expr::Paren(x, sp) => Ok(Expr::Paren(Box::new(self.value_array(*x, out)?), sp)),
            Expr::Apply {
                name: n,
                args,
                span,
            } if self.prog.var(self.unit, &n).is_none()
                && self
                    .ty(&Expr::Apply {
                        name: n.clone(),
                        args: args.clone(),
                        span,
                    })
                    .rank
                    > 0 =>
            {
                // Elemental intrinsic applied to arrays.
                let mut new = Vec::new();
                for a in args {
                    new.push(Arg {
                        keyword: a.keyword,
                        value: self.value_array(a.value, out)?,
                    });
                }
                Ok(Expr::Apply {
                    name: n,
                    args: new,
                    span,
                })
            }
            other => self.value(other, out),
        }
    }

    /// Nested loops over `space` (first dimension innermost) around `body`.
    fn loops(
        &self,
        vars: &[String],
        space: &[(Expr, Expr, Option<Expr>)],
        body: Vec<Stmt>,
        span: Span,
    ) -> Vec<Stmt> {
        let mut inner = body;
        for (k, (lo, hi, st)) in space.iter().enumerate() {
            inner = vec![stmt(
                StmtKind::Do {
                    construct: None,
                    control: Some(DoControl {
                        var: vars[k].clone(),
                        lo: lo.clone(),
                        hi: hi.clone(),
                        step: st.clone(),
                    }),
                    body: inner,
                },
                span,
            )];
        }
        inner
    }

    fn array_assign(
        &mut self,
        lhs: Expr,
        rhs: Expr,
        span: Span,
        out: &mut Vec<Stmt>,
    ) -> FrontResult<()> {
        let lhs = self.designator(lhs, out)?;
        let target = self
            .view(&lhs)?
            .ok_or_else(|| FrontError::new(span, "array assignment to a non-array"))?;
        let space: Vec<(Expr, Expr, Option<Expr>)> = target
            .ranges()
            .into_iter()
            .map(|(l, h, s)| (l.clone(), h.clone(), s.cloned()))
            .collect();
        // matmul on the whole right side.
        if let Expr::Apply { name: n, args, .. } = &rhs {
            if n == "matmul" && self.prog.var(self.unit, n).is_none() {
                let args = args.clone();
                let mut vals = Vec::new();
                for a in args {
                    vals.push(self.value_array(a.value, out)?);
                }
                return self.matmul(vals, &target, &space, span, out);
            }
        }
        if let Expr::ArrayCtor(items, _) = rhs {
            if space.len() != 1 {
                return self.err(span, "unsupported construct: array constructor assigned to a multi-dimensional array");
            }
            let (lo, _, st) = &space[0];
            for (j, it) in items.into_iter().enumerate() {
                let mut off = Expr::int(j as i64, span);
                if let Some(s) = st {
                    off = bin(BinOp::Mul, off, s.clone(), span);
                }
                let idx = bin(BinOp::Add, lo.clone(), off, span);
                let el = self.element(&target, &[idx], &space, span)?;
                let v = self.value(it, out)?;
                out.push(stmt(StmtKind::Assign { lhs: el, rhs: v }, span));
            }
            return Ok(());
        }
        // reshape of a constructor: element j goes to the j-th position in
        // array element order.
        if let Expr::Apply { name: n, args, .. } = &rhs {
            if n == "reshape" && self.prog.var(self.unit, n).is_none() {
                if let Some(Expr::ArrayCtor(items, _)) = args.first().map(|a| &a.value) {
                    let extents: Option<Vec<(i64, i64)>> = space
                        .iter()
                        .map(|(lo, hi, st)| {
                            match (
                                self.prog.const_int(self.unit, lo),
                                self.prog.const_int(self.unit, hi),
                                st,
                            ) {
                                (Some(l), Some(h), None) => Some((l, h - l + 1)),
                                _ => None,
                            }
                        })
                        .collect();
                    let extents = extents.ok_or_else(|| FrontError::new(span, "unsupported construct: reshape of a constructor into a non-constant shape"))?;
                    for (j, it) in items.clone().into_iter().enumerate() {
                        let mut rest = j as i64;
                        let mut idx = Vec::new();
                        for (lo, n) in &extents {
                            idx.push(Expr::int(lo + rest % n.max(&1), span));
                            rest /= n.max(&1);
                        }
                        let el = self.element(&target, &idx, &space, span)?;
                        let v = self.value(it, out)?;
                        out.push(stmt(StmtKind::Assign { lhs: el, rhs: v }, span));
                    }
                    return Ok(());
                }
            }
        }
        // Reductions and function calls first, then the elementwise loop.
        let mut rhs = self.value_array(rhs, out)?;
        let mut dealloc = None;
        if self.reads_other_section(&rhs, &target)? {
            // The right side reads the target through another section: it
            // must see the old values, so read them from a copy.
            let whole = name(&target.name, span);
            let (copy, d) = self.array_temp_of(whole, span, out)?;
            let full = self.space_of(&name(&target.name, span))?;
            rhs = self.redirect(&rhs, &target.name, &copy, &full, span)?;
            dealloc = d;
        }
        let vars: Vec<String> = (0..space.len()).map(|_| self.loop_var(span)).collect();
        let idx: Vec<Expr> = vars.iter().map(|v| name(v, span)).collect();
        let el_l = self.element(&target, &idx, &space, span)?;
        let el_r = self.elementwise(&rhs, &idx, &space, Some(&target))?;
        let body = vec![stmt(
            StmtKind::Assign {
                lhs: el_l,
                rhs: el_r,
            },
            span,
        )];
        out.extend(self.loops(&vars, &space, body, span));
        out.extend(dealloc);
        Ok(())
    }

    /// Does `e` read array `target.name` through a section other than the
    /// target's?
    fn reads_other_section(&self, e: &Expr, target: &View) -> FrontResult<bool> {
        let mut found = false;
        let mut err = None;
        e.walk(&mut |x| {
            if let Expr::Name(n, _) | Expr::Apply { name: n, .. } = x {
                if *n == target.name {
                    match self.view(x) {
                        Ok(Some(v)) => {
                            if !same_view(&v, target) {
                                found = true;
                            }
                        }
                        Ok(None) => found = true,
                        Err(e) => err = Some(e),
                    }
                }
            }
        });
        match err {
            Some(e) => Err(e),
            None => Ok(found),
        }
    }

    /// Replaces references to array `from` by the same elements of `to`, a
    /// 1-based copy of the whole of `from` (whose ranges are `full`).
    fn redirect(
        &self,
        e: &Expr,
        from: &str,
        to: &str,
        full: &[(Expr, Expr, Option<Expr>)],
        span: Span,
    ) -> FrontResult<Expr> {
        let shift = |d: usize, v: Expr| -> Expr {
            bin(
                BinOp::Add,
                paren(bin(BinOp::Sub, v, full[d].0.clone(), span), span),
                Expr::int(1, span),
                span,
            )
        };
        Ok(match e {
            Expr::Name(n, sp) if n == from => Expr::Name(to.to_string(), *sp),
            Expr::Apply {
                name: n,
                args,
                span: sp,
            } if n == from => {
                let mut new = Vec::new();
                for (d, a) in args.iter().enumerate() {
                    let v = match &a.value {
                        Expr::Range {
                            lo,
                            hi,
                            stride,
                            span: rs,
                        } => Expr::Range {
                            lo: Some(Box::new(shift(
                                d,
                                lo.as_deref().cloned().unwrap_or_else(|| full[d].0.clone()),
                            ))),
                            hi: Some(Box::new(shift(
                                d,
                                hi.as_deref().cloned().unwrap_or_else(|| full[d].1.clone()),
                            ))),
                            stride: stride.clone(),
                            span: *rs,
                        },
                        v => shift(d, v.clone()),
                    };
                    new.push(Arg {
                        keyword: None,
                        value: v,
                    });
                }
                Expr::Apply {
                    name: to.to_string(),
                    args: new,
                    span: *sp,
                }
            }
            Expr::Apply {
                name: n,
                args,
                span: sp,
            } => {
                let mut new = Vec::new();
                for a in args {
                    new.push(Arg {
                        keyword: a.keyword.clone(),
                        value: self.redirect(&a.value, from, to, full, span)?,
                    });
                }
                Expr::Apply {
                    name: n.clone(),
                    args: new,
                    span: *sp,
                }
            }
            Expr::Unary(op, x, sp) => {
                Expr::Unary(*op, Box::new(self.redirect(x, from, to, full, span)?), *sp)
            }
            Expr::Binary(op, l, r, sp) => Expr::Binary(
                *op,
                Box::new(self.redirect(l, from, to, full, span)?),
                Box::new(self.redirect(r, from, to, full, span)?),
                *sp,
            ),
            Expr::Paren(x, sp) => {
                Expr::Paren(Box::new(self.redirect(x, from, to, full, span)?), *sp)
            }
            other => other.clone(),
        })
    }

    /// `c = matmul(a, b)` for array expressions `a` and `b`.
    fn matmul(
        &mut self,
        args: Vec<Expr>,
        target: &View,
        space: &[(Expr, Expr, Option<Expr>)],
        span: Span,
        out: &mut Vec<Stmt>,
    ) -> FrontResult<()> {
        if args.len() != 2 {
            return self.err(span, "matmul needs two arguments");
        }
        for a in &args {
            let mut clash = false;
            a.walk(&mut |x| {
                if let Expr::Name(n, _) | Expr::Apply { name: n, .. } = x {
                    clash |= *n == target.name;
                }
            });
            if clash {
                return self.err(
                    span,
                    "unsupported construct: matmul whose result overwrites an argument",
                );
            }
        }
        let (sa, sb) = (self.space_of(&args[0])?, self.space_of(&args[1])?);
        let vars: Vec<String> = (0..space.len()).map(|_| self.loop_var(span)).collect();
        let idx: Vec<Expr> = vars.iter().map(|v| name(v, span)).collect();
        let el_c = self.element(target, &idx, space, span)?;
        let k = self.loop_var(span);
        let kk = name(&k, span);
        let last_a = sa
            .len()
            .checked_sub(1)
            .ok_or_else(|| FrontError::new(span, "matmul of a scalar"))?;
        let b_first = offset(&sb[0].0, &kk, &sa[last_a].0, span);
        let (ia, ib) = match (sa.len(), sb.len()) {
            (2, 2) => (
                vec![offset(&sa[0].0, &idx[0], &space[0].0, span), kk.clone()],
                vec![b_first, offset(&sb[1].0, &idx[1], &space[1].0, span)],
            ),
            (2, 1) => (
                vec![offset(&sa[0].0, &idx[0], &space[0].0, span), kk.clone()],
                vec![b_first],
            ),
            (1, 2) => (
                vec![kk.clone()],
                vec![b_first, offset(&sb[1].0, &idx[0], &space[0].0, span)],
            ),
            _ => return self.err(span, "matmul needs rank-1 or rank-2 arrays"),
        };
        let ea = self.elementwise(&args[0], &ia, &sa, None)?;
        let eb = self.elementwise(&args[1], &ib, &sb, None)?;
        let acc = stmt(
            StmtKind::Assign {
                lhs: el_c.clone(),
                rhs: bin(
                    BinOp::Add,
                    el_c.clone(),
                    bin(BinOp::Mul, ea, eb, span),
                    span,
                ),
            },
            span,
        );
        let (klo, khi, _) = sa[last_a].clone();
        let body = vec![
            stmt(
                StmtKind::Assign {
                    lhs: el_c,
                    rhs: Expr::int(0, span),
                },
                span,
            ),
            stmt(
                StmtKind::Do {
                    construct: None,
                    control: Some(DoControl {
                        var: k,
                        lo: klo,
                        hi: khi,
                        step: None,
                    }),
                    body: vec![acc],
                },
                span,
            ),
        ];
        out.extend(self.loops(&vars, space, body, span));
        Ok(())
    }

    /// sum / product / maxval / minval / dot_product over real data become a
    /// scalar temporary computed by a loop.
    fn reduction(
        &mut self,
        n: &str,
        args: Vec<Arg>,
        span: Span,
        out: &mut Vec<Stmt>,
    ) -> FrontResult<Expr> {
        if args.iter().any(|a| {
            a.keyword
                .as_deref()
                .is_some_and(|k| k != "array" && k != "vector_a" && k != "vector_b")
        }) || (n != "dot_product" && args.len() > 1)
        {
            return self.err(span, format!("unsupported construct: {n} with dim or mask"));
        }
        let mut vals = Vec::new();
        for a in args {
            vals.push(self.value(a.value, out)?);
        }
        let e_ty = self.ty(&Expr::Apply {
            name: n.to_string(),
            args: vals
                .iter()
                .map(|v| Arg {
                    keyword: None,
                    value: v.clone(),
                })
                .collect(),
            span,
        });
        let arg_cat = vals.first().map(|v| self.ty(v).cat).unwrap_or(Cat::Unknown);
        if !arg_cat.is_real() {
            // Passive data: keep the intrinsic, opaque.
            let e = Expr::Apply {
                name: n.to_string(),
                args: vals
                    .into_iter()
                    .map(|v| Arg {
                        keyword: None,
                        value: v,
                    })
                    .collect(),
                span,
            };
            let t = self.temp(e_ty.cat, span)?;
            out.push(stmt(
                StmtKind::Opaque {
                    kind: OpaqueKind::PassiveAssign,
                    text: format!("{t} = {}", unparse::expr(&e)),
                    reads: vec![e],
                    writes: vec![name(&t, span)],
                },
                span,
            ));
            return Ok(name(&t, span));
        }
        let elem_src = if n == "dot_product" {
            if vals.len() != 2 {
                return self.err(span, "dot_product needs two arguments");
            }
            bin(BinOp::Mul, vals[0].clone(), vals[1].clone(), span)
        } else {
            vals[0].clone()
        };
        // The iteration space comes from the first array operand.
        let mut first_view = None;
        let mut search_err = None;
        elem_src.walk(&mut |x| {
            if first_view.is_none() && search_err.is_none() {
                match self.view(x) {
                    Ok(Some(v)) => first_view = Some(v),
                    Ok(None) => {}
                    Err(e) => search_err = Some(e),
                }
            }
        });
        if let Some(e) = search_err {
            return Err(e);
        }
        let view = first_view.ok_or_else(|| FrontError::new(span, format!("{n} of a scalar")))?;
        let space: Vec<(Expr, Expr, Option<Expr>)> = view
            .ranges()
            .into_iter()
            .map(|(l, h, s)| (l.clone(), h.clone(), s.cloned()))
            .collect();
        let t = self.temp(e_ty.cat, span)?;
        let tn = name(&t, span);
        let vars: Vec<String> = (0..space.len()).map(|_| self.loop_var(span)).collect();
        let idx: Vec<Expr> = vars.iter().map(|v| name(v, span)).collect();
        let el = self.elementwise(&elem_src, &idx, &space, None)?;
        let (init, upd) = match n {
            "sum" | "dot_product" => (Expr::int(0, span), bin(BinOp::Add, tn.clone(), el, span)),
            "product" => (Expr::int(1, span), bin(BinOp::Mul, tn.clone(), el, span)),
            "maxval" | "minval" => {
                let lows: Vec<Expr> = space.iter().map(|(l, _, _)| l.clone()).collect();
                let first = self.elementwise(&elem_src, &lows, &space, None)?;
                let f = if n == "maxval" { "max" } else { "min" };
                (
                    first,
                    Expr::Apply {
                        name: f.into(),
                        args: vec![
                            Arg {
                                keyword: None,
                                value: tn.clone(),
                            },
                            Arg {
                                keyword: None,
                                value: el,
                            },
                        ],
                        span,
                    },
                )
            }
            _ => return self.err(span, format!("internal error: reduction {n}")),
        };
        out.push(stmt(
            StmtKind::Assign {
                lhs: tn.clone(),
                rhs: init,
            },
            span,
        ));
        let body = vec![stmt(
            StmtKind::Assign {
                lhs: tn.clone(),
                rhs: upd,
            },
            span,
        )];
        out.extend(self.loops(&vars, &space, body, span));
        Ok(tn)
    }
}

/// `lo + (i - base)`.
fn offset(lo: &Expr, i: &Expr, base: &Expr, span: Span) -> Expr {
    if strip(lo) == strip(base) {
        return i.clone();
    }
    bin(
        BinOp::Add,
        lo.clone(),
        paren(bin(BinOp::Sub, i.clone(), base.clone(), span), span),
        span,
    )
}

/// `hi - lo + 1`.
fn extent(lo: &Expr, hi: &Expr, span: Span) -> Expr {
    match (lo.const_int(), hi.const_int()) {
        (Some(1), _) => hi.clone(),
        (Some(l), Some(h)) => Expr::int(h - l + 1, span),
        _ => bin(
            BinOp::Add,
            bin(BinOp::Sub, hi.clone(), lo.clone(), span),
            Expr::int(1, span),
            span,
        ),
    }
}

fn paren(e: Expr, span: Span) -> Expr {
    match e {
        Expr::Name(..) | Expr::Lit(..) | Expr::Apply { .. } | Expr::Paren(..) => e,
        e => Expr::Paren(Box::new(e), span),
    }
}

fn same_view(a: &View, b: &View) -> bool {
    a.subs.len() == b.subs.len()
        && a.subs.iter().zip(&b.subs).all(|(x, y)| match (x, y) {
            (Sub::Fixed(p), Sub::Fixed(q)) => strip(p) == strip(q),
            (
                Sub::Range {
                    lo: l1,
                    hi: h1,
                    stride: s1,
                },
                Sub::Range {
                    lo: l2,
                    hi: h2,
                    stride: s2,
                },
            ) => {
                strip(l1) == strip(l2)
                    && strip(h1) == strip(h2)
                    && s1.as_ref().map(strip) == s2.as_ref().map(strip)
            }
            _ => false,
        })
}

/// Expression text without positions, for structural comparison.
fn strip(e: &Expr) -> String {
    unparse::expr(e)
}

fn describe(c: Cat) -> &'static str {
    match c {
        Cat::Char => "character data",
        Cat::Derived => "derived-type data",
        Cat::Complex(_) => "complex data",
        Cat::Int => "integer",
        Cat::Logical => "logical",
        _ => "passive",
    }
}

fn contains_cycle(stmts: &[Stmt], construct: Option<&str>, depth: usize) -> bool {
    stmts.iter().any(|s| match &s.kind {
        StmtKind::Cycle(None) => depth == 0,
        StmtKind::Cycle(Some(n)) => Some(n.as_str()) == construct,
        StmtKind::Do { body, .. } | StmtKind::DoWhile { body, .. } => {
            contains_cycle(body, construct, depth + 1)
        }
        StmtKind::If { arms, otherwise } => {
            arms.iter()
                .any(|(_, b)| contains_cycle(b, construct, depth))
                || otherwise
                    .as_ref()
                    .is_some_and(|b| contains_cycle(b, construct, depth))
        }
        StmtKind::Select { cases, .. } => cases
            .iter()
            .any(|c| contains_cycle(&c.body, construct, depth)),
        _ => false,
    })
}

/// Replaces dummy names by (parenthesised) actual arguments.
fn substitute(e: &mut Expr, params: &[String], args: &[Arg]) {
    match e {
        Expr::Name(n, sp) => {
            if let Some(k) = params.iter().position(|p| p == n) {
                *e = Expr::Paren(Box::new(args[k].value.clone()), *sp);
            }
        }
        Expr::Apply { args: a, .. } => a
            .iter_mut()
            .for_each(|x| substitute(&mut x.value, params, args)),
        Expr::Member { base, args: a, .. } => {
            substitute(base, params, args);
            if let Some(a) = a {
                a.iter_mut()
                    .for_each(|x| substitute(&mut x.value, params, args));
            }
        }
        Expr::Unary(_, x, _) | Expr::Paren(x, _) => substitute(x, params, args),
        Expr::Binary(_, l, r, _) => {
            substitute(l, params, args);
            substitute(r, params, args);
        }
        Expr::Range { lo, hi, stride, .. } => {
            for x in [lo, hi, stride].into_iter().flatten() {
                substitute(x, params, args);
            }
        }
        Expr::ArrayCtor(items, _) => items.iter_mut().for_each(|x| substitute(x, params, args)),
        Expr::Lit(..) => {}
    }
}

/// Applies `f` to every top-level expression of a statement, recursively.
fn map_stmt_exprs(
    s: &mut Stmt,
    f: &mut dyn FnMut(&mut Expr) -> FrontResult<()>,
) -> FrontResult<()> {
    match &mut s.kind {
        StmtKind::Assign { lhs, rhs } => {
            f(lhs)?;
            f(rhs)
        }
        StmtKind::Call { args, .. } => args.iter_mut().try_for_each(|a| f(&mut a.value)),
        StmtKind::If { arms, otherwise } => {
            for (c, b) in arms {
                f(c)?;
                b.iter_mut().try_for_each(|s| map_stmt_exprs(s, f))?;
            }
            if let Some(b) = otherwise {
                b.iter_mut().try_for_each(|s| map_stmt_exprs(s, f))?;
            }
            Ok(())
        }
        StmtKind::Do { control, body, .. } => {
            if let Some(c) = control {
                f(&mut c.lo)?;
                f(&mut c.hi)?;
                if let Some(st) = &mut c.step {
                    f(st)?;
                }
            }
            body.iter_mut().try_for_each(|s| map_stmt_exprs(s, f))
        }
        StmtKind::DoWhile { cond, body, .. } => {
            f(cond)?;
            body.iter_mut().try_for_each(|s| map_stmt_exprs(s, f))
        }
        StmtKind::Where { arms } => {
            for (m, b) in arms {
                if let Some(m) = m {
                    f(m)?;
                }
                b.iter_mut().try_for_each(|s| map_stmt_exprs(s, f))?;
            }
            Ok(())
        }
        StmtKind::Select { selector, cases } => {
            f(selector)?;
            for c in cases {
                c.body.iter_mut().try_for_each(|s| map_stmt_exprs(s, f))?;
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::parse_file;

    /// The canonical source of a small program.
    fn canon_text(src: &str) -> String {
        let mut prog = Program::build(vec![parse_file(src, 0).unwrap()]).unwrap();
        canonicalise(&mut prog).unwrap();
        crate::emit_canon::emit(&prog)
    }

    fn body(text: &str, unit: &str) -> String {
        let start = text.find(&format!("!$oad unit {unit}\n")).expect("unit");
        let rest = &text[start..];
        let b = rest.find("!$oad body\n").expect("body") + "!$oad body\n".len();
        let e = rest.find("!$oad end-body").expect("end-body");
        rest[b..e]
            .lines()
            .map(str::trim)
            .collect::<Vec<_>>()
            .join("\n")
    }

    fn canon_err(src: &str) -> String {
        let mut prog = Program::build(vec![parse_file(src, 0).unwrap()]).unwrap();
        canonicalise(&mut prog).unwrap_err().message
    }

    #[test]
    fn function_becomes_subroutine_with_result_temporary() {
        let t = canon_text(
            "real function f(a)\n f = a * a\nend\nsubroutine s(x, y)\n y = f(x) * 2\nend\n",
        );
        assert!(t.contains("subroutine oad_s_f(a, f)"), "{t}");
        assert_eq!(body(&t, "s"), "call oad_s_f(x, oad_t1)\ny = oad_t1 * 2");
    }

    #[test]
    fn expression_arguments_go_through_temporaries() {
        let t = canon_text("subroutine g(a, b, c)\n c = a + b\nend\nsubroutine s(x, y)\n call g(x + 1.0, 2.0, y)\nend\n");
        assert_eq!(body(&t, "s"), "oad_t1 = x + 1.0\ncall g(oad_t1, 2.0, y)");
    }

    #[test]
    fn statement_functions_are_expanded() {
        let t = canon_text("subroutine s(x, y)\n sq(u) = u * u\n y = sq(x + 1.0)\nend\n");
        assert_eq!(body(&t, "s"), "y = ((x + 1.0) * (x + 1.0))");
        assert!(!t.contains("sq"), "{t}");
    }

    #[test]
    fn nary_max_is_nested() {
        let t = canon_text("subroutine s(a, b, c, y)\n y = max(a, b, c)\nend\n");
        assert_eq!(body(&t, "s"), "y = max(max(a, b), c)");
    }

    #[test]
    fn whole_array_assignment_is_a_loop_nest() {
        let t = canon_text("subroutine s(a, b)\n real a(3, 4), b(3, 4)\n a = 2 * b\nend\n");
        assert_eq!(
            body(&t, "s"),
            "do oad_i2 = 1, 4\ndo oad_i1 = 1, 3\na(oad_i1, oad_i2) = 2 * b(oad_i1, oad_i2)\nend do\nend do"
        );
    }

    #[test]
    fn overlapping_section_reads_a_copy() {
        let t = canon_text("subroutine s(a)\n real a(5)\n a(2:5) = a(1:4)\nend\n");
        let b = body(&t, "s");
        assert!(
            b.starts_with("do oad_i1 = 1, 5\noad_t1(oad_i1) = a(1 + (oad_i1 - 1))"),
            "{b}"
        );
        assert!(b.contains("a(oad_i2) = oad_t1("), "{b}");
    }

    #[test]
    fn select_with_ranges_becomes_if_chain() {
        let t = canon_text("subroutine s(i, y)\n select case (i + 1)\n case (1:3)\n y = 1\n case default\n y = 2\n end select\nend\n");
        let b = body(&t, "s");
        assert!(
            b.starts_with("oad_t1 = i + 1\nif (oad_t1 >= 1 .and. oad_t1 <= 3) then"),
            "{b}"
        );
        assert!(b.contains("else\ny = 2"), "{b}");
    }

    #[test]
    fn else_if_that_calls_a_function_nests() {
        let t = canon_text(
            "logical function p(a)\n p = a > 0\nend\nsubroutine s(x, y)\n logical p\n if (x > 1) then\n y = 1\n else if (p(x)) then\n y = 2\n end if\nend\n",
        );
        let b = body(&t, "s");
        assert_eq!(b, "if (x > 1) then\ny = 1\nelse\ncall oad_s_p(x, oad_t1)\nif (oad_t1) then\ny = 2\nend if\nend if");
    }

    #[test]
    fn sum_over_real_data_is_a_loop() {
        let t = canon_text("subroutine s(a, y)\n real a(4)\n y = sum(a) / 4\nend\n");
        assert_eq!(
            body(&t, "s"),
            "oad_t1 = 0\ndo oad_i1 = 1, 4\noad_t1 = oad_t1 + a(oad_i1)\nend do\ny = oad_t1 / 4"
        );
    }

    #[test]
    fn where_becomes_masked_loops() {
        let t = canon_text("subroutine s(a, b)\n real a(3), b(3)\n where (a > 0)\n b = a\n elsewhere\n b = 0\n end where\nend\n");
        assert_eq!(
            body(&t, "s"),
            "do oad_i1 = 1, 3\nif (a(oad_i1) > 0) then\nb(oad_i1) = a(oad_i1)\nend if\nend do\n\
             do oad_i2 = 1, 3\nif (.not. (a(oad_i2) > 0)) then\nb(oad_i2) = 0\nend if\nend do"
        );
        let e = canon_err("subroutine s(a)\n real a(3)\n where (a > 0) a = -a\nend\n");
        assert!(e.contains("where mask reads 'a'"), "{e}");
    }

    #[test]
    fn real_data_into_a_derived_component_is_rejected() {
        let e = canon_err("module m\n type t\n real :: v\n end type\nend module\nsubroutine s(x)\n use m\n type(t) :: p\n p%v = x\nend\n");
        assert!(e.contains("derived-type component"), "{e}");
    }
}
