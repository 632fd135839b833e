//! Calls (C3, C4): user functions become subroutine calls with the result
//! in a temporary, so that every side effect is a call statement; actual
//! arguments that are not variables or constants go through temporaries
//! (arrays through temporary arrays), so that the analyses see every value
//! passed as a variable. Subroutines without source are opaque and may not
//! receive real data (their derivatives would be unknown).

use crate::ast::*;
use crate::sema::{Binding, Cat};
use crate::unparse;

use super::{first_user_call, name, stmt, Canon};

impl Canon<'_> {
    pub(super) fn call(
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
                if self.prog.units[p].is_elemental()
                    && args.iter().any(|a| self.ty(&a.value).rank > 0)
                {
                    return self.elemental_subroutine_call(callee, args, span, out);
                }
                let mut post = Vec::new();
                let args = self.actuals(args, Some(p), out, &mut post)?;
                out.push(stmt(StmtKind::Call { name: callee, args }, span));
                out.extend(post);
                Ok(())
            }
            _ if self.prog.black_boxes.get(&callee).is_some() => {
                let bb = self
                    .prog
                    .black_boxes
                    .get(&callee)
                    .cloned()
                    .expect("guarded");
                self.black_box_call(bb, args, span, out)
            }
            None if crate::mpi::is_mpi_routine(&callee)
                && (crate::mpi::is_completion(&callee)
                    || crate::mpi::is_other_completion(&callee)
                    || args.iter().any(|a| {
                        matches!(self.ty(&a.value).cat, Cat::Real(_) | Cat::Complex(_))
                    })) =>
            {
                self.mpi_call(callee, args, span, out)
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
                            format!("call of subroutine '{callee}' whose source is not among the inputs passes real data (declare it as a black box: openad --black-box FILE, see the user guide)"),
                        );
                    }
                    if let Some((f, sp)) = first_user_call(self.prog, self.unit, &a.value) {
                        return self.err_unsupported(sp, format!("unsupported construct: user function '{f}' in a call of external '{callee}'"));
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
    pub(super) fn actuals(
        &mut self,
        args: Vec<Arg>,
        callee: Option<usize>,
        out: &mut Vec<Stmt>,
        post: &mut Vec<Stmt>,
    ) -> FrontResult<Vec<Arg>> {
        let mut res = Vec::new();
        for (position, a) in args.into_iter().enumerate() {
            let v = match a.value {
                Expr::Lit(..) => a.value,
                Expr::Name(ref n, sp) => match self.prog.resolve(self.unit, n) {
                    Some(Binding::Var { .. }) => a.value,
                    _ => {
                        return self.err_unsupported(
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
                    let d = self.designator(a.value, out)?;
                    if self.view(&d)?.is_some_and(|v| v.has_vector()) {
                        // A vector-subscripted actual is a copy the callee
                        // must not define (Fortran): pass a copy, whose
                        // loop carries the derivatives back in the adjoint.
                        let sp = d.span();
                        let (tmp, dealloc) = self.array_temp_of(d, sp, out)?;
                        post.extend(dealloc);
                        res.push(Arg {
                            keyword: a.keyword,
                            value: Expr::Name(tmp, sp),
                        });
                        continue;
                    }
                    d
                }
                // A derived-type component (`s%grid`) goes through a
                // temporary of its type, copied back unless the dummy is
                // intent(in): XAIF arguments are variables.
                Expr::Member { .. } if self.ty(&a.value).cat == Cat::Derived => {
                    let sp = a.value.span();
                    let Some(ts) = self.prog.member_type(self.unit, &a.value).map(|t| t.0) else {
                        return self.err(sp, "cannot determine the type of this component");
                    };
                    if self.ty(&a.value).rank > 0 {
                        return self.err_unsupported(
                            sp,
                            "unsupported construct: a derived-type component of an array of derived types passed as an actual argument",
                        );
                    }
                    let tmp = self.derived_temp(ts, sp)?;
                    self.assign(name(&tmp, sp), a.value.clone(), sp, out)?;
                    let read_only = callee.is_some_and(|p| {
                        let unit = &self.prog.units[p];
                        let dummy = a
                            .keyword
                            .clone()
                            .or_else(|| unit.ast.params.get(position).cloned());
                        dummy
                            .and_then(|d| unit.lookup_local(&d))
                            .is_some_and(|k| unit.symbols[k].intent == Some(Intent::In))
                    });
                    if !read_only {
                        self.assign(a.value.clone(), name(&tmp, sp), sp, post)?;
                    }
                    name(&tmp, sp)
                }
                // A structure constructor: built in a temporary of its type.
                Expr::Apply {
                    name: ref type_name,
                    ..
                } if self.is_structure_constructor(&a.value)
                    && !self.prog.real_leaves(type_name).is_empty() =>
                {
                    let sp = a.value.span();
                    let ts = TypeSpec::new(BaseType::Derived(type_name.clone()));
                    let tmp = self.derived_temp(ts, sp)?;
                    self.construct(name(&tmp, sp), a.value, sp, out)?;
                    name(&tmp, sp)
                }
                other => {
                    let sp = other.span();
                    let t = self.ty(&other);
                    let array_function = matches!(&other, Expr::Apply { name, .. }
                        if matches!(self.prog.resolve(self.unit, name), Some(Binding::Proc(_))));
                    if t.rank > 0 && array_function {
                        // An array-valued function: its result's temporary.
                        let v = self.value(other, out)?;
                        res.push(Arg {
                            keyword: a.keyword,
                            value: v,
                        });
                        continue;
                    }
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
                    // A derived-type function result is in a temporary.
                    if matches!(v, Expr::Lit(..))
                        || (t.cat == Cat::Derived && matches!(v, Expr::Name(..)))
                    {
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

    pub(super) fn function_call(
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
        let cat = self
            .prog
            .cat_of(p, &self.prog.units[p].symbols[rsym].ty.clone());
        let sub_name = self.prog.units[p].canon_name.clone();
        let mut post = Vec::new();
        let mut actuals = self.actuals(args, Some(p), out, &mut post)?;
        let t = if self.prog.units[p].symbols[rsym].rank() > 0 {
            self.array_result_temp(p, rsym, &actuals, span, out)?
        } else if cat == Cat::Derived {
            let ts = self.prog.units[p].symbols[rsym].ty.clone();
            self.derived_temp(ts, span)?
        } else {
            self.temp(cat, span)?
        };
        // By keyword after a keyword actual, and when optional arguments are
        // left out (the result would take the first absent one's place).
        let dummies = self.prog.units[p].ast.params.len();
        let keyword = if actuals.iter().any(|a| a.keyword.is_some()) || actuals.len() < dummies {
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
}
