//! Structure constructors of derived types with real components (`s =
//! state(h0, q0)`, `cells(i) = cell_t(0d0, x(i))`, keywords, nested
//! constructors, components left to their default values): the value is
//! assigned component by component, each component's assignment
//! canonicalised like any other (real components become component-path
//! assignments the booster differentiates, integer and character ones
//! opaque statements). Fortran evaluates the whole constructor before
//! assigning: when an argument reads the variable being assigned, the
//! components go to a temporary of the type first, which is then
//! assigned as a whole value (`derived_values.rs`).

use crate::ast::*;
use crate::components;
use crate::sema::Binding;

use super::{name, Canon};

impl Canon<'_> {
    /// Is `e` a structure constructor (`type_name(...)`)?
    pub(super) fn is_structure_constructor(&self, e: &Expr) -> bool {
        match e {
            Expr::Apply { name, .. } => {
                self.prog.resolve(self.unit, name).is_none()
                    && self.prog.derived_type(name).is_some()
            }
            Expr::Paren(x, _) => self.is_structure_constructor(x),
            _ => false,
        }
    }

    /// `lhs = type_name(args)`, component by component (module comment).
    pub(super) fn construct(
        &mut self,
        lhs: Expr,
        rhs: Expr,
        span: Span,
        out: &mut Vec<Stmt>,
    ) -> FrontResult<()> {
        let mut rhs = rhs;
        while let Expr::Paren(x, _) = rhs {
            rhs = *x;
        }
        let Expr::Apply {
            name: type_name,
            args,
            span: cspan,
        } = rhs
        else {
            unreachable!("checked by is_structure_constructor")
        };
        let (_, comps) = self
            .prog
            .derived_type(&type_name)
            .expect("checked by is_structure_constructor");
        if self.ty(&lhs).rank > 0 {
            return self.err_unsupported(
                span,
                format!("unsupported construct: structure constructor '{type_name}' assigned to an array of derived types (assign each element)"),
            );
        }
        if let Some(c) = comps.iter().find(|c| c.allocatable || c.pointer) {
            return self.err_unsupported(
                cspan,
                format!("unsupported construct: structure constructor of type '{type_name}', whose component '{}' is allocatable or a pointer (assign the components one by one)", c.name),
            );
        }
        // The value of every component, in order.
        let mut values: Vec<Option<Expr>> = vec![None; comps.len()];
        for (position, a) in args.into_iter().enumerate() {
            let k = match &a.keyword {
                Some(kw) => comps.iter().position(|c| c.name == *kw).ok_or_else(|| {
                    FrontError::new(
                        a.value.span(),
                        format!("type '{type_name}' has no component '{kw}'"),
                    )
                })?,
                None if position < comps.len() => position,
                None => {
                    return self.err(
                        cspan,
                        format!("too many values in a structure constructor of type '{type_name}'"),
                    )
                }
            };
            values[k] = Some(a.value);
        }
        let mut assignments = Vec::new();
        for (c, v) in comps.iter().zip(values) {
            let Some(v) = v.or_else(|| c.init.clone()) else {
                return self.err(
                    cspan,
                    format!("structure constructor of type '{type_name}' without a value for component '{}'", c.name),
                );
            };
            assignments.push((c.name.clone(), v));
        }
        // Fortran evaluates the constructor before assigning it. Component
        // references are component-path names by now (`l%t`): compared
        // by the variable they start with.
        let root = root_name(&lhs).map(variable_of);
        let reads_target = assignments.iter().any(|(_, v)| {
            let mut hit = false;
            v.walk(&mut |x| {
                if let Expr::Name(n, _) | Expr::Apply { name: n, .. } = x {
                    hit |= Some(variable_of(n)) == root;
                }
            });
            hit
        });
        if reads_target {
            let Some(ts) = self.target_type_spec(&lhs) else {
                return self.err(span, "cannot determine the type of the assignment's target");
            };
            let t = self.derived_temp(ts, span)?;
            for (field, v) in assignments {
                self.component_assign(name(&t, span), &field, v, span, out)?;
            }
            return self.assign(lhs, name(&t, span), span, out);
        }
        for (field, v) in assignments {
            self.component_assign(lhs.clone(), &field, v, span, out)?;
        }
        Ok(())
    }

    /// Is `e` an array constructor of structure constructors
    /// (`[cell_t(0d0, a), cell_t(1d0, b)]`)?
    pub(super) fn is_constructor_of_structures(&self, e: &Expr) -> bool {
        matches!(e, Expr::ArrayCtor(items, _)
            if !items.is_empty() && items.iter().all(|x| self.is_structure_constructor(x)))
    }

    /// `cells = [cell_t(...), ...]` on a whole rank-1 array: element by
    /// element (`cells(lbound(cells, 1) + k)`), every item built first
    /// when one reads the array (Fortran evaluates the right side first).
    pub(super) fn construct_elements(
        &mut self,
        lhs: Expr,
        rhs: Expr,
        span: Span,
        out: &mut Vec<Stmt>,
    ) -> FrontResult<()> {
        let Expr::ArrayCtor(items, _) = rhs else {
            unreachable!("checked by is_constructor_of_structures")
        };
        let items: Vec<Expr> = items
            .into_iter()
            .map(|mut x| {
                while let Expr::Paren(inner, _) = x {
                    x = *inner;
                }
                x
            })
            .collect();
        let (Expr::Name(array, _), 1) = (&lhs, self.ty(&lhs).rank) else {
            return self.err_unsupported(
                span,
                "unsupported construct: array constructor of structures assigned to something other than a whole rank-1 array",
            );
        };
        let array = array.clone();
        let reads_target = items.iter().any(|v| {
            let mut hit = false;
            v.walk(&mut |x| {
                if let Expr::Name(n, _) | Expr::Apply { name: n, .. } = x {
                    hit |= variable_of(n) == array;
                }
            });
            hit
        });
        let element = |k: usize| Expr::Apply {
            name: array.clone(),
            args: vec![Arg {
                keyword: None,
                value: Expr::Binary(
                    BinOp::Add,
                    Box::new(Expr::Apply {
                        name: "lbound".into(),
                        args: vec![
                            Arg {
                                keyword: None,
                                value: name(&array, span),
                            },
                            Arg {
                                keyword: None,
                                value: Expr::int(1, span),
                            },
                        ],
                        span,
                    }),
                    Box::new(Expr::int(k as i64, span)),
                    span,
                ),
            }],
            span,
        };
        if !reads_target {
            for (k, item) in items.into_iter().enumerate() {
                self.construct(element(k), item, span, out)?;
            }
            return Ok(());
        }
        let mut built = Vec::new();
        for item in items {
            let Expr::Apply { name: t, .. } = &item else {
                unreachable!("structure constructors")
            };
            let ts = TypeSpec::new(BaseType::Derived(t.clone()));
            let tmp = self.derived_temp(ts, span)?;
            self.construct(name(&tmp, span), item, span, out)?;
            built.push(tmp);
        }
        for (k, tmp) in built.into_iter().enumerate() {
            self.assign(element(k), name(&tmp, span), span, out)?;
        }
        Ok(())
    }

    /// `base%field = value`, as any assignment to a component.
    fn component_assign(
        &mut self,
        base: Expr,
        field: &str,
        value: Expr,
        span: Span,
        out: &mut Vec<Stmt>,
    ) -> FrontResult<()> {
        let mut target = Expr::Member {
            base: Box::new(base),
            field: field.to_string(),
            args: None,
            span,
        };
        components::rewrite_expr(self.prog, self.unit, &mut target)?;
        let mut value = value;
        components::rewrite_expr(self.prog, self.unit, &mut value)?;
        self.assign(target, value, span, out)
    }

    /// The declared type of a derived-type variable, element or component.
    fn target_type_spec(&self, e: &Expr) -> Option<TypeSpec> {
        match e {
            Expr::Name(n, _) | Expr::Apply { name: n, .. } => {
                match self.prog.resolve(self.unit, n)? {
                    Binding::Var { owner, sym } => Some(self.prog.symbol(owner, sym).ty.clone()),
                    _ => None,
                }
            }
            Expr::Member { .. } => self.prog.member_type(self.unit, e).map(|t| t.0),
            _ => None,
        }
    }
}

/// The variable of a component-path name (`l%t`, `cells(1)%h`: `l`,
/// `cells`).
fn variable_of(name: &str) -> &str {
    name.split(['%', '(']).next().unwrap_or(name)
}

/// The variable a designator belongs to.
fn root_name(e: &Expr) -> Option<&str> {
    match e {
        Expr::Name(n, _) | Expr::Apply { name: n, .. } => Some(n),
        Expr::Member { base, .. } => root_name(base),
        _ => None,
    }
}
