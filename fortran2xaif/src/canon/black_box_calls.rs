//! Calls of black boxes (routines without source declared with
//! `--black-box`, `black_box.rs`): checked against the declaration and
//! kept as one opaque statement, `OpaqueKind::BlackBox`. Lowering turns a
//! differentiable one into a call of an external routine for the
//! analyses (outputs depend on inputs); a passive one stays an opaque
//! statement that writes its `out`/`inout` actuals without derivative,
//! and gets a warning here.
//!
//! An actual argument of an `active` dummy must be a whole real(8)
//! variable: the back end passes it with its derivative (`x%v, x%d`) and
//! stores and restores its value for the adjoint, which an element,
//! section or expression would not allow.

use crate::ast::*;
use crate::black_box::{ArgIntent, ArgType, BlackBox, BlackBoxArg, Derivatives};
use crate::sema::{Binding, Cat};
use crate::unparse;

use super::{first_user_call, stmt, Canon};

impl Canon<'_> {
    pub(super) fn black_box_call(
        &mut self,
        bb: BlackBox,
        args: Vec<Arg>,
        span: Span,
        out: &mut Vec<Stmt>,
    ) -> FrontResult<()> {
        let mut bb = bb;
        if let Some(intents) = bb.call_intents.clone() {
            if intents.len() != args.len() {
                return self.err(
                    span,
                    format!(
                        "call of black box '{}' passes {} argument(s), its pragma at {} gives {} intent(s)",
                        bb.name,
                        args.len(),
                        bb.declared_at,
                        intents.len()
                    ),
                );
            }
            bb.args = self.arguments_as_called(&args, &intents);
        }
        let callee = &bb.name;
        if args.len() != bb.args.len() {
            return self.err(
                span,
                format!(
                    "call of black box '{callee}' passes {} argument(s), its declaration at {} has {} ({})",
                    args.len(),
                    bb.declared_at,
                    bb.args.len(),
                    bb.args.iter().map(|a| a.name.as_str()).collect::<Vec<_>>().join(", ")
                ),
            );
        }
        // Keywords name the declared dummies; the canonical call is positional.
        let mut slots: Vec<Option<Arg>> = vec![None; bb.args.len()];
        for (k, a) in args.into_iter().enumerate() {
            let position = match &a.keyword {
                Some(kw) => bb
                    .args
                    .iter()
                    .position(|d| d.name.eq_ignore_ascii_case(kw))
                    .ok_or_else(|| {
                        FrontError::new(
                            a.value.span(),
                            format!(
                                "black box '{callee}' has no argument '{kw}' (declared at {})",
                                bb.declared_at
                            ),
                        )
                    })?,
                None => k,
            };
            if slots[position].is_some() {
                return self.err(
                    a.value.span(),
                    format!(
                        "argument '{}' of black box '{callee}' is given twice",
                        bb.args[position].name
                    ),
                );
            }
            slots[position] = Some(Arg {
                keyword: None,
                value: a.value,
            });
        }
        let args: Vec<Arg> = slots
            .into_iter()
            .map(|a| a.expect("every slot filled"))
            .collect();
        let differentiable = matches!(bb.derivatives, Derivatives::Routines { .. });
        let mut reads = Vec::new();
        let mut writes = Vec::new();
        for (a, d) in args.iter().zip(&bb.args) {
            let at = a.value.span();
            if let Some((f, sp)) = first_user_call(self.prog, self.unit, &a.value) {
                return self.err_unsupported(sp, format!("unsupported construct: user function '{f}' in a call of black box '{callee}' (assign it to a variable first)"));
            }
            let t = self.ty(&a.value);
            let is_variable = match &a.value {
                Expr::Name(n, _) | Expr::Apply { name: n, .. } => matches!(
                    self.prog.resolve(self.unit, n),
                    Some(Binding::Var { owner, sym }) if !self.prog.symbol(owner, sym).parameter
                ),
                _ => false,
            };
            let type_ok = match d.ty {
                ArgType::Double => t.cat == Cat::Real(8),
                ArgType::OtherReal => matches!(t.cat, Cat::Real(k) if k != 8),
                ArgType::Integer => t.cat == Cat::Int,
                ArgType::Logical => t.cat == Cat::Logical,
                ArgType::Character => t.cat == Cat::Char,
                ArgType::Complex => matches!(t.cat, Cat::Complex(_)),
            };
            if !type_ok && t.cat != Cat::Unknown {
                return self.err(
                    at,
                    format!(
                        "argument '{}' of black box '{callee}' is declared {} at {}, the call passes {}",
                        d.name,
                        d.ty,
                        bb.declared_at,
                        cat_name(t.cat)
                    ),
                );
            }
            if d.intent.writes() && !is_variable {
                return self.err(
                    at,
                    format!(
                        "argument '{}' of black box '{callee}' is intent({}): the call must pass a variable",
                        d.name,
                        d.intent.keyword()
                    ),
                );
            }
            let whole_variable = is_variable && matches!(a.value, Expr::Name(..));
            // The adjoint stores and restores what the call reads: that
            // needs variables, not elements with subscripts that may have
            // changed by the time the reverse sweep gets there.
            if differentiable && matches!(a.value, Expr::Apply { .. }) && is_variable {
                return self.err_unsupported(
                    at,
                    format!(
                        "unsupported construct: argument '{}' of differentiable black box '{callee}' is an array element or section (pass a whole variable)",
                        d.name
                    ),
                );
            }
            if differentiable && d.active {
                if !whole_variable {
                    return self.err_unsupported(
                        at,
                        format!(
                            "unsupported construct: argument '{}' of black box '{callee}' is active; pass a whole real(8) variable (not an element, section or expression: its derivative goes along and the adjoint stores its value)",
                            d.name
                        ),
                    );
                }
                if (d.rank == 0) != (t.rank == 0) {
                    return self.err(
                        at,
                        format!(
                            "argument '{}' of black box '{callee}' is declared {} at {}, the call passes {}",
                            d.name,
                            if d.rank == 0 { "a scalar" } else { "an array" },
                            bb.declared_at,
                            if t.rank == 0 { "a scalar" } else { "an array" },
                        ),
                    );
                }
            }
        }
        if !differentiable {
            let dropped: Vec<&str> = bb
                .args
                .iter()
                .filter(|d| {
                    d.intent.writes() && matches!(d.ty, ArgType::Double | ArgType::OtherReal)
                })
                .map(|d| d.name.as_str())
                .collect();
            let outputs = if dropped.is_empty() {
                String::new()
            } else {
                format!(" (real outputs without derivative: {})", dropped.join(", "))
            };
            self.prog.canon_warnings.push((
                span,
                format!("call of passive black box '{callee}': derivatives through it are dropped{outputs}"),
            ));
        }
        // Expressions go through temporaries (variables the adjoint can
        // store); constants stay.
        let mut post = Vec::new();
        let args = if differentiable {
            self.actuals(args, None, out, &mut post)?
        } else {
            args
        };
        for (a, d) in args.iter().zip(&bb.args) {
            if d.intent != ArgIntent::Out {
                reads.push(a.value.clone());
            }
            if d.intent.writes() {
                writes.push(a.value.clone());
            }
        }
        let text = format!("call {callee}({})", unparse::args_text(&args));
        self.prog
            .black_box_calls
            .insert((span.file, span.line, span.column), bb.annotation());
        out.push(stmt(
            StmtKind::Opaque {
                kind: OpaqueKind::BlackBox,
                text,
                reads,
                writes,
            },
            span,
        ));
        out.extend(post);
        Ok(())
    }
}

impl Canon<'_> {
    /// The dummies of a black box declared by a pragma, from one call and
    /// the pragma's intents: types and ranks as passed, nothing active.
    fn arguments_as_called(&self, args: &[Arg], intents: &[ArgIntent]) -> Vec<BlackBoxArg> {
        args.iter()
            .zip(intents)
            .enumerate()
            .map(|(k, (a, intent))| {
                let t = self.ty(&a.value);
                BlackBoxArg {
                    name: a
                        .keyword
                        .clone()
                        .unwrap_or_else(|| format!("argument {}", k + 1)),
                    ty: match t.cat {
                        Cat::Real(8) => ArgType::Double,
                        Cat::Real(_) => ArgType::OtherReal,
                        Cat::Int => ArgType::Integer,
                        Cat::Logical => ArgType::Logical,
                        Cat::Complex(_) => ArgType::Complex,
                        _ => ArgType::Character,
                    },
                    rank: t.rank,
                    intent: *intent,
                    active: false,
                }
            })
            .collect()
    }
}

fn cat_name(c: Cat) -> String {
    match c {
        Cat::Int => "an integer".into(),
        Cat::Real(8) => "a real(8)".into(),
        Cat::Real(k) => format!("a real({k})"),
        Cat::Complex(_) => "a complex".into(),
        Cat::Logical => "a logical".into(),
        Cat::Char => "a character".into(),
        Cat::Derived => "a derived type".into(),
        Cat::Unknown => "something of unknown type".into(),
    }
}
