//! Temporaries the pass introduces: scalars `oad_tN`, loop indices `oad_iN`
//! and temporary arrays (automatic when their extents are specification
//! expressions of the unit, otherwise allocatable, allocated before use and
//! deallocated by the caller). All are declared in the unit's symbol table
//! with `temp` set, so the canonical source declares them.

use crate::ast::*;
use crate::sema::{Cat, Symbol};
use crate::unparse;

use super::{bin, name, paren, stmt, trip_count, Canon, Space, Sub, View};

impl Canon<'_> {
    /// A new local temporary of the given type category.
    pub(super) fn temp(&mut self, cat: Cat, span: Span) -> FrontResult<String> {
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
                return self.err_unsupported(
                    span,
                    "unsupported construct: character-valued expression that needs a temporary",
                )
            }
            Cat::Derived => {
                return self.err_unsupported(
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
        if cat == Cat::Complex(8) {
            self.add_complex_parts(&n);
        }
        Ok(n)
    }

    /// A character temporary of length `len` (a specification expression
    /// of the unit, e.g. `len(name)` of a dummy or of a local of constant
    /// length): assigning a shorter value pads it with blanks, which
    /// comparisons ignore.
    pub(super) fn char_temp(&mut self, len: Expr, span: Span) -> String {
        let unit = &mut self.prog.units[self.unit];
        let n = unit.fresh_name("oad_t", &mut self.temps);
        let mut sym = Symbol::new(
            &n,
            TypeSpec {
                len: Some(len),
                ..TypeSpec::new(BaseType::Character)
            },
            span,
        );
        sym.explicit_type = true;
        sym.temp = true;
        unit.add_symbol(sym);
        n
    }

    /// For `trim`, `adjustl` and `adjustr` of a variable (or a substring or
    /// element of one), whose result is never longer than the variable:
    /// `len(variable)`, a length a temporary can be declared with.
    pub(super) fn char_result_bound(&self, intrinsic: &str, call: &Expr) -> Option<Expr> {
        if !matches!(intrinsic, "trim" | "adjustl" | "adjustr") {
            return None;
        }
        let Expr::Apply { args, span, .. } = call else {
            return None;
        };
        let base = match &args.first()?.value {
            Expr::Name(b, _) | Expr::Apply { name: b, .. } => b.clone(),
            _ => return None,
        };
        // A variable of the unit or its hosts and modules: `len` of it is
        // a specification expression there.
        matches!(
            self.prog.resolve(self.unit, &base),
            Some(crate::sema::Binding::Var { .. })
        )
        .then(|| Expr::Apply {
            name: "len".to_string(),
            args: vec![Arg {
                keyword: None,
                value: Expr::Name(base, *span),
            }],
            span: *span,
        })
    }

    /// The parts `t%re`, `t%im` of a `complex(8)` temporary (after its
    /// shape is set), so derivatives flow through it as through any
    /// complex variable (`complex_parts.rs`).
    fn add_complex_parts(&mut self, t: &str) {
        let unit = &mut self.prog.units[self.unit];
        let k = unit.lookup_local(t).expect("temp just added");
        for p in crate::components::complex_part_paths(&unit.symbols[k]) {
            if unit.lookup_local(&p.name).is_none() {
                unit.add_symbol(p);
            }
        }
    }

    pub(super) fn loop_var(&mut self, span: Span) -> String {
        let unit = &mut self.prog.units[self.unit];
        let n = unit.fresh_name("oad_i", &mut self.loops);
        let mut sym = Symbol::new(&n, TypeSpec::new(BaseType::Integer), span);
        sym.explicit_type = true;
        sym.temp = true;
        unit.add_symbol(sym);
        n
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

    /// `tmp = e` for a canonical scalar expression `e` into a new
    /// temporary of its type; returns the temporary's name.
    pub(super) fn scalar_temp_of(&mut self, e: Expr, out: &mut Vec<Stmt>) -> FrontResult<Expr> {
        let span = e.span();
        let cat = self.ty(&e).cat;
        let t = self.temp(cat, span)?;
        out.push(stmt(
            StmtKind::Assign {
                lhs: name(&t, span),
                rhs: e,
            },
            span,
        ));
        Ok(name(&t, span))
    }

    /// A temporary array over `space` (1-based extents). Automatic when the
    /// extents are specification expressions; otherwise allocatable,
    /// allocated here (the caller deallocates with the returned statement).
    pub(super) fn temp_array(
        &mut self,
        cat: Cat,
        space: &[(Expr, Expr, Option<Expr>)],
        span: Span,
        out: &mut Vec<Stmt>,
    ) -> FrontResult<(String, Option<Stmt>)> {
        let t = self.temp(cat, span)?;
        let extents: Vec<Expr> = space
            .iter()
            .map(|(lo, hi, st)| trip_count(lo, hi, st.as_ref(), span))
            // A constant extent is declared as a number (`(2 - 5) / (-1) + 1`
            // would be legal but unreadable).
            .map(|e| match self.prog.const_int(self.unit, &e) {
                Some(c) if c >= 0 => Expr::int(c, span),
                _ => e,
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
            if cat == Cat::Complex(8) {
                self.add_complex_parts(&t);
            }
            return Ok((t, None));
        }
        unit.symbols[k].dims = Some(
            extents
                .iter()
                .map(|_| DimSpec::Colon { lo: None })
                .collect(),
        );
        unit.symbols[k].allocatable = true;
        if cat == Cat::Complex(8) {
            self.add_complex_parts(&t);
        }
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

    /// A new temporary array with 1-based `extents`, its view and index
    /// space; an allocatable one is deallocated after the statement.
    pub(super) fn new_temp_array(
        &mut self,
        cat: Cat,
        extents: &[Expr],
        span: Span,
        out: &mut Vec<Stmt>,
    ) -> FrontResult<(View, Space)> {
        let space: Space = extents
            .iter()
            .map(|e| (Expr::int(1, span), e.clone(), None))
            .collect();
        let (t, dealloc) = self.temp_array(cat, &space, span, out)?;
        self.pending_dealloc.extend(dealloc);
        Ok(self.temp_view(&t, extents.len(), span))
    }

    /// The view of temporary array `t` (1-based) and its index space.
    fn temp_view(&self, t: &str, rank: usize, span: Span) -> (View, Space) {
        let k = self.prog.units[self.unit].lookup_local(t).expect("temp");
        let dims = self
            .prog
            .symbol(self.unit, k)
            .dims
            .clone()
            .unwrap_or_default();
        let space: Space = (0..rank)
            .map(|d| {
                let hi = match dims.get(d) {
                    Some(DimSpec::Explicit { hi, .. }) => hi.clone(),
                    _ => Expr::Apply {
                        name: "ubound".into(),
                        args: vec![
                            Arg {
                                keyword: None,
                                value: name(t, span),
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
        let view = View {
            name: t.to_string(),
            subs: space
                .iter()
                .map(|(l, h, s)| Sub::Range {
                    lo: l.clone(),
                    hi: h.clone(),
                    stride: s.clone(),
                })
                .collect(),
        };
        (view, space)
    }

    /// `tmp = e` for an array expression `e`; returns the temporary's name
    /// and its deallocation, if any.
    pub(super) fn array_temp_of(
        &mut self,
        e: Expr,
        span: Span,
        out: &mut Vec<Stmt>,
    ) -> FrontResult<(String, Option<Stmt>)> {
        let e = self.value_array(e, out)?;
        let space = self.space_of(&e)?;
        let cat = self.ty(&e).cat;
        let (t, dealloc) = self.temp_array(cat, &space, span, out)?;
        let (tview, tspace) = self.temp_view(&t, space.len(), span);
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
        let el_s = self.elementwise(&e, &src_idx, &space)?;
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
}
